/**
 * A sequencing chain's host signing with a remote signer (real op-signer-like server on 127.0.0.1, real libp2p
 * hosts on loopback): its blocks are accepted by a peer that checks them against the L1 unsafe-block signer; a
 * signer holding another key is caught before anything is published; a signer that is down costs the block but not
 * the next one once it is back; mutual TLS works end to end. Failures count in
 * `supernode_p2p_block_signing_failures_total` and the log has one line per change of state.
 */
import { rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import type { Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, describe, expect, it, vi } from "vitest";
import { RemoteBlockSigner } from "../../../src/io/signer/remote-signer.js";
import { createP2PMetrics } from "../../../src/p2p/metrics.js";
import { blocksTopic } from "../../../src/protocol/p2p/gossip.js";
import { startTestSigner, type TestSignerServer } from "../../support/remote-signer-server.js";
import { describeWithTools } from "../../support/system-tools.js";
import { makeTestPki } from "../../support/tls-certs.js";
import { recordingLogger } from "../../unit/node/fakes.js";
import { samplePayload } from "../../unit/protocol/p2p/fixtures.js";
import { P2PRig, type RigHost } from "./rig.js";

const SEQ: Hex = `0x${"11".repeat(32)}`;
const OTHER: Hex = `0x${"22".repeat(32)}`;
const seqAddr = privateKeyToAddress(SEQ).toLowerCase() as `0x${string}`;

const rig = new P2PRig();
const servers: TestSignerServer[] = [];
const signers: RemoteBlockSigner[] = [];
const pkiDirs: string[] = [];
afterAll(async () => {
  await Promise.allSettled(pkiDirs.map((d) => rm(d, { recursive: true, force: true })));
  await rig.closeAll();
  for (const s of signers) s.close();
  await Promise.allSettled(servers.map((s) => s.close()));
});

const now = (): number => Math.floor(Date.now() / 1000);
const block = (n: number) => samplePayload(3, { blockNumber: n, timestamp: now() });
const WAIT = { timeout: 20_000, interval: 20 };

async function link(a: RigHost, b: RigHost): Promise<void> {
  await b.p2p.connect(`${a.p2p.addrs()[0]}`);
  const topic = blocksTopic(901n, 3);
  await vi.waitFor(() => {
    expect(a.p2p.pubsub.getSubscribers(topic).map(String)).toContain(b.p2p.peerId);
    expect(b.p2p.pubsub.getSubscribers(topic).map(String)).toContain(a.p2p.peerId);
  }, WAIT);
}

function remote(opts: ConstructorParameters<typeof RemoteBlockSigner>[0]): RemoteBlockSigner {
  const s = new RemoteBlockSigner(opts);
  signers.push(s);
  return s;
}

async function signerServer(opts: Parameters<typeof startTestSigner>[0]): Promise<TestSignerServer> {
  const s = await startTestSigner(opts);
  servers.push(s);
  return s;
}

async function counter(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = (m?.values ?? []).find((x) => Object.entries(labels).every(([k, l]) => x.labels[k] === l));
  return Number(v?.value ?? 0);
}

const hashes = (h: RigHost) => h.received.map((r) => r.env.executionPayload.blockHash);

describe("remote block signer", () => {
  it("signed blocks are accepted by a peer; another key is caught; a signer that is down costs only its blocks", async () => {
    const follower = await rig.host(901n, { signer: () => seqAddr });

    // 1. A good signer, with headers.
    const good = await signerServer({ key: SEQ });
    const r1 = new Registry();
    const a = await rig.host(901n, {
      signer: () => seqAddr,
      metrics: createP2PMetrics(r1, 901n),
      blockSigner: remote({ endpoint: good.url, address: seqAddr, headers: { authorization: "Bearer abc" } }),
    });
    await link(a, follower);
    const b1 = block(30);
    await a.p2p.publish(b1);
    await vi.waitFor(() => expect(hashes(follower)).toContain(b1.executionPayload.blockHash), WAIT);
    expect(follower.received.at(-1)?.from).toBe(a.p2p.peerId);
    expect(good.requests.at(-1)?.headers.authorization).toBe("Bearer abc");
    expect(await counter(r1, "supernode_p2p_published_blocks_total", { result: "ok" })).toBe(1);

    // 2. A signer holding another key than signer.address: nothing is published.
    const wrong = await signerServer({ key: OTHER });
    const r2 = new Registry();
    const log2 = recordingLogger();
    const c = await rig.host(901n, {
      signer: () => seqAddr,
      metrics: createP2PMetrics(r2, 901n),
      logger: log2,
      blockSigner: remote({ endpoint: wrong.url, address: seqAddr }),
    });
    await link(c, follower);
    await c.p2p.publish(block(31));
    await c.p2p.publish(block(32));
    expect(wrong.requests.filter((r) => r.method === "opsigner_signBlockPayload")).toHaveLength(2);
    expect(await counter(r2, "supernode_p2p_block_signing_failures_total", { reason: "wrong_signer" })).toBe(2);
    expect(await counter(r2, "supernode_p2p_published_blocks_total", { result: "ok" })).toBe(0);
    const errors = log2.lines.filter((l) => l.msg.startsWith("block signing failed"));
    expect(errors.map((l) => [l.level, l.obj.reason])).toEqual([["error", "wrong_signer"]]);
    expect(String(errors[0]?.obj.err)).toContain(privateKeyToAddress(OTHER).toLowerCase());

    // 3. The signer is down: the block is not gossiped; once it is back, the next one is.
    const flaky = await signerServer({ key: SEQ });
    const port = Number(new URL(flaky.url).port);
    await flaky.close();
    const r3 = new Registry();
    const log3 = recordingLogger();
    const d = await rig.host(901n, {
      signer: () => seqAddr,
      metrics: createP2PMetrics(r3, 901n),
      logger: log3,
      blockSigner: remote({ endpoint: flaky.url, address: seqAddr, timeoutMs: 2_000 }),
    });
    await link(d, follower);
    const lost = block(33);
    await d.p2p.publish(lost);
    await d.p2p.publish(block(34));
    expect(await counter(r3, "supernode_p2p_block_signing_failures_total", { reason: "unavailable" })).toBe(2);
    expect(await counter(r3, "supernode_p2p_published_blocks_total", { result: "ok" })).toBe(0);
    const back = await signerServer({ key: SEQ, port });
    const b35 = block(35);
    await d.p2p.publish(b35);
    await vi.waitFor(() => expect(hashes(follower)).toContain(b35.executionPayload.blockHash), WAIT);
    expect(back.requests.some((r) => r.method === "opsigner_signBlockPayload")).toBe(true);
    expect(hashes(follower)).not.toContain(lost.executionPayload.blockHash);
    const states = log3.lines
      .filter((l) => /^block signing/.test(l.msg))
      .map((l) => [l.level, l.obj.reason ?? l.obj.after]);
    expect(states).toEqual([
      ["warn", "unavailable"],
      ["info", "unavailable"],
    ]);
    // Nothing of the wrong signer's blocks ever reached the follower.
    expect(follower.received.map((r) => r.env.executionPayload.blockNumber).sort()).toEqual([30, 35]);
  });
});

describe("remote block signer and the L1 unsafe-block signer", () => {
  it("warns once when L1 names another signer, and still publishes", async () => {
    const s = await signerServer({ key: SEQ });
    const registry = new Registry();
    const log = recordingLogger();
    const otherAddr = privateKeyToAddress(OTHER).toLowerCase() as `0x${string}`;
    let l1 = otherAddr;
    const a = await rig.host(901n, {
      signer: () => l1,
      metrics: createP2PMetrics(registry, 901n),
      logger: log,
      blockSigner: remote({ endpoint: s.url, address: seqAddr }),
    });
    await a.p2p.publish(block(60));
    await a.p2p.publish(block(61));
    l1 = seqAddr;
    await a.p2p.publish(block(62));
    const lines = log.lines
      .filter((l) => /unsafe-block signer/.test(l.msg))
      .map((l) => [l.level, l.obj.l1UnsafeBlockSigner]);
    expect(lines).toEqual([
      ["warn", otherAddr],
      ["info", undefined],
    ]);
    expect(await counter(registry, "supernode_p2p_published_blocks_total", { result: "ok" })).toBe(3);
  });
});

describe("remote block signer that does not answer", () => {
  it("blocks wait one after another, at most 8; each times out, the 9th is dropped at once as backlog", async () => {
    const hung = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    try {
      const registry = new Registry();
      const a = await rig.host(901n, {
        signer: () => seqAddr,
        metrics: createP2PMetrics(registry, 901n),
        blockSigner: remote({
          endpoint: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
          address: seqAddr,
          timeoutMs: 200,
        }),
      });
      const pending = Array.from({ length: 8 }, (_, i) => a.p2p.publish(block(50 + i)));
      await a.p2p.publish(block(58));
      const reason = (r: string) => counter(registry, "supernode_p2p_block_signing_failures_total", { reason: r });
      expect(await reason("backlog")).toBe(1);
      await Promise.all(pending);
      expect(await reason("unavailable")).toBe(8);
    } finally {
      hung.closeAllConnections();
      await new Promise((r) => hung.close(r));
    }
  });
});

describeWithTools(["openssl"], "remote block signer over mutual TLS", ({ openssl }) => {
  it("a block signed through mutual TLS is accepted by the peer", async () => {
    const pki = makeTestPki(openssl);
    pkiDirs.push(pki.dir);
    const s = await signerServer({ key: SEQ, tls: { ca: pki.ca, cert: pki.serverCert, key: pki.serverKey } });
    const follower = await rig.host(901n, { signer: () => seqAddr });
    const a = await rig.host(901n, {
      signer: () => seqAddr,
      blockSigner: remote({
        endpoint: s.url,
        address: seqAddr,
        tls: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey },
      }),
    });
    await link(a, follower);
    const b = block(40);
    await a.p2p.publish(b);
    await vi.waitFor(() => expect(hashes(follower)).toContain(b.executionPayload.blockHash), WAIT);
    expect(s.requests.find((r) => r.method === "opsigner_signBlockPayload")?.clientCN).toBe("supernode");
  });
});
