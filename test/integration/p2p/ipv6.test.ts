/**
 * P2P on the IPv6 loopback (`p2p.listen.ip ::1`): libp2p listens on `/ip6/::1/tcp/…`, discv5 binds a UDP6 socket,
 * the ENR carries `ip6`/`tcp6`/`udp6`, a host finds another through it as a bootnode and connects over IPv6, and a
 * block gossiped over that connection is accepted. Skipped (with a note) on a machine without `::1`.
 */
import { ENR } from "@chainsafe/enr";
import { createServer } from "node:net";
import { afterAll, describe, expect, it, vi } from "vitest";
import { addressOfSecretKey, parseSecretKeyHex } from "../../../src/protocol/p2p/signing.js";
import { blocksTopic } from "../../../src/protocol/p2p/gossip.js";
import { samplePayload } from "../../unit/protocol/p2p/fixtures.js";
import { P2PRig } from "./rig.js";

const SEQ = `0x${"11".repeat(32)}`;
const seqAddr = addressOfSecretKey(parseSecretKeyHex(SEQ));
const FAST = { lookupFastMs: 150, lookupSlowMs: 150, connectFastMs: 150, connectSlowMs: 150, kickoffMs: 50 };
const WAIT = { timeout: 30_000, interval: 50 };

const hasIpv6Loopback = await new Promise<boolean>((resolve) => {
  const s = createServer();
  s.once("error", () => resolve(false));
  s.listen(0, "::1", () => s.close(() => resolve(true)));
});

const rig = new P2PRig();
afterAll(() => rig.closeAll());

describe.skipIf(!hasIpv6Loopback)("P2P on ::1", () => {
  it("listens, advertises ip6/tcp6/udp6, discovers and connects over IPv6, and gossips", async () => {
    const b = await rig.host(901n, {
      signer: () => seqAddr,
      listenIp: "::1",
      noDiscovery: false,
      bootnodes: [],
      discoveryTiming: FAST,
    });
    expect(b.p2p.addrs()[0]).toMatch(/^\/ip6\/::1\/tcp\/\d+\/p2p\/16Uiu2/);
    const enrText = b.p2p.discovery?.enrText() as string;
    const rec = ENR.decodeTxt(enrText);
    expect(rec.ip6).toBe("::1");
    expect(rec.tcp6).toBe(Number(/\/tcp\/(\d+)/.exec(b.p2p.addrs()[0] ?? "")?.[1]));
    expect(rec.udp6).toBeGreaterThan(0);
    expect(rec.ip).toBeUndefined();

    const a = await rig.host(901n, {
      signer: () => seqAddr,
      sequencerKey: SEQ,
      listenIp: "::1",
      noDiscovery: false,
      bootnodes: [enrText],
      discoveryTiming: FAST,
    });
    await vi.waitFor(() => {
      const conns = a.p2p.host.getConnections().filter((c) => c.remotePeer.toString() === b.p2p.peerId);
      expect(conns.length).toBeGreaterThan(0);
      expect(conns[0]?.remoteAddr.toString()).toMatch(/^\/ip6\/::1\/tcp\//);
    }, WAIT);
    await vi.waitFor(
      () => expect(a.p2p.pubsub.getSubscribers(blocksTopic(901n, 3)).map(String)).toContain(b.p2p.peerId),
      WAIT,
    );
    const env = samplePayload(3, { blockNumber: 7, timestamp: Math.floor(Date.now() / 1000) });
    await a.p2p.publish(env);
    await vi.waitFor(
      () => expect(b.received.map((r) => r.env.executionPayload.blockHash)).toContain(env.executionPayload.blockHash),
      WAIT,
    );
    expect(a.p2p.discovery?.table().some((t) => ENR.decodeTxt(t).nodeId === rec.nodeId)).toBe(true);
  });
});
