/**
 * discv5 and dialling limits on 127.0.0.x (real UDP and TCP): a flood of packets from one source address is dropped
 * (metric) and that address is banned for a while, while another address is still answered and the ban expires;
 * discovery's connect tick stops dialling at `p2p.peers.lo` (≤ `p2p.peers.hi`) even with 4 dial workers, and dials
 * again when a connection goes away.
 */
import { Discv5 } from "@chainsafe/discv5";
import { ENR } from "@chainsafe/enr";
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { multiaddr as multiaddr12 } from "multiaddr12";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it, vi } from "vitest";
import { boundPort, transportOf } from "../../../src/p2p/discv5-patches.js";
import { localEnr, setAddress } from "../../../src/p2p/enr.js";
import { createP2PMetrics } from "../../../src/p2p/metrics.js";
import { P2PRig } from "./rig.js";

const rig = new P2PRig();
const probes: Discv5[] = [];
afterAll(async () => {
  await Promise.allSettled(probes.map((p) => p.stop()));
  await rig.closeAll();
});
const signer = () => undefined;

/** A bare discv5 node bound to `ip` (a loopback address). */
async function probe(ip: string): Promise<Discv5> {
  const sk = secp256k1.utils.randomSecretKey();
  const dv5 = Discv5.create({
    enr: localEnr(sk, 901n, { ip, tcp: 30303, udp: 30303, seq: 1n }),
    privateKey: privateKeyFromRaw(sk) as Parameters<typeof Discv5.create>[0]["privateKey"],
    bindAddrs: { ip4: multiaddr12(`/ip4/${ip}/udp/0`) },
    config: { enrUpdate: false, requestTimeout: 2_000, requestRetries: 1 },
  });
  probes.push(dv5);
  await dv5.start();
  // The record must name the address packets come from, or the target does not answer.
  setAddress(dv5.enr, { ip, tcp: 30303, udp: boundPort(transportOf(dv5)) });
  return dv5;
}

/** Sends junk from `fromIp` in bursts of 100 until `stop()` (the kernel may drop some of a burst under load). */
async function flood(fromIp: string, toPort: number, stop: () => boolean): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, fromIp, resolve));
  let sent = 0;
  try {
    for (let burst = 0; burst < 200 && !stop(); burst++) {
      for (let i = 0; i < 100; i++, sent++)
        await new Promise<void>((resolve, reject) =>
          s.send(randomBytes(120), toPort, "127.0.0.1", (err) => (err ? reject(err) : resolve())),
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    s.close();
  }
  return sent;
}

describe("discv5 inbound rate limit", () => {
  it("drops a flood from one address and bans it for a while; another address is still answered", async () => {
    const registry = new Registry();
    const a = await rig.host(901n, {
      signer,
      noDiscovery: false,
      bootnodes: [],
      metrics: createP2PMetrics(registry, 901n),
      discoveryLimits: { perIp: 50, banMs: 60_000 },
    });
    const disc = a.p2p.discovery;
    if (disc === undefined) throw new Error("no discovery");
    const target = ENR.decodeTxt(disc.enrText());
    const port = target.udp as number;

    // (The flooding address must not be a node the target is waiting for an answer from: those always pass.)
    const sent = await flood("127.0.0.3", port, () => disc.limiter?.banned("127.0.0.3") === true);
    expect(disc.limiter?.banned("127.0.0.3")).toBe(true);
    expect(sent).toBeGreaterThan(50);
    expect(disc.limiter?.dropped).toBeGreaterThan(0);
    const flooder = await probe("127.0.0.3");
    const metric = (await registry.getMetricsAsJSON()).find(
      (m) => m.name === "supernode_p2p_discovery_dropped_packets_total",
    );
    expect(Number(metric?.values[0]?.value)).toBe(disc.limiter?.dropped);

    // The flooding address gets no answer now; another one does.
    await expect(flooder.sendPing(target)).rejects.toThrow();
    const other = await probe("127.0.0.2");
    const pong = await other.sendPing(target);
    expect(pong.enrSeq).toBe(target.seq);
    expect(disc.limiter?.banned("127.0.0.2")).toBe(false);

    // The ban expires (the sweep, which runs every 30 s, as it would run a minute later).
    disc.limiter?.sweep(Date.now() + 60_000);
    expect(disc.limiter?.banned("127.0.0.3")).toBe(false);
    await flooder.sendPing(target);
  });
});

describe("discovery dialling limits", () => {
  it("stops dialling at peers.lo with 4 dial workers, and dials again when a peer goes", async () => {
    const a = await rig.host(901n, {
      signer,
      noDiscovery: false,
      bootnodes: [],
      peersLo: 2,
      peersHi: 3,
      discoveryTiming: { connectFastMs: 100, connectSlowMs: 100, lookupFastMs: 60_000, lookupSlowMs: 60_000 },
    });
    const others = [];
    for (let i = 0; i < 6; i++) others.push(await rig.host(901n, { signer }));
    let open = 0;
    let maxOpen = 0;
    let opened = 0;
    a.p2p.host.addEventListener("connection:open", (e) => {
      if (e.detail.direction !== "outbound") return;
      open++;
      opened++;
      maxOpen = Math.max(maxOpen, open);
    });
    a.p2p.host.addEventListener("connection:close", (e) => {
      if (e.detail.direction === "outbound") open--;
    });
    for (const o of others)
      await a.p2p.host.peerStore.merge(peerIdFromString(o.p2p.peerId), {
        multiaddrs: [multiaddr(o.p2p.addrs()[0]?.replace(/\/p2p\/.*$/, "") ?? "")],
      });
    const peers = () => new Set(a.p2p.host.getConnections().map((c) => c.remotePeer.toString())).size;
    await vi.waitFor(() => expect(peers()).toBe(2), { timeout: 20_000, interval: 20 });
    // Ten more connect ticks: nothing beyond peers.lo.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(peers()).toBe(2);
    expect(maxOpen).toBe(2);
    // A peer goes: the next tick dials one more, and again no further.
    const gone = a.p2p.host.getConnections()[0]?.remotePeer;
    if (gone === undefined) throw new Error("no connection");
    await a.p2p.host.hangUp(gone);
    await vi.waitFor(
      () => {
        expect(opened).toBe(3);
        expect(peers()).toBe(2);
      },
      { timeout: 20_000, interval: 20 },
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(peers()).toBe(2);
    expect(maxOpen).toBe(2);
  });
});
