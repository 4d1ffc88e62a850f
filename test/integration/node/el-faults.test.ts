/**
 * Execution-client faults against a verifying node on the devnet (real anvil, simulated ELs, the node's Engine API
 * through a fault proxy): an unreachable client and a hung one make the node `degraded` with the reason, and it
 * recovers when the client answers again; a client that comes back wiped (its chain at genesis) is recovered
 * without restarting the node (reset → find the heads → re-derive from L1), ending on the sequencer's chain.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, type DevnetChain, startDevnet } from "supernode-devnet";
import type { SimulatedExecutionClient } from "supernode-devnet/el";
import type { L1Client } from "../../../src/io/l1/l1-client.js";
import { FaultProxy } from "../app/fault-proxy.js";
import { sharedL1, startNode, startVerifierEl, type TestNode, traceLogger, waitFor } from "./node-support.js";

const HEALTH = { degradedAfterMs: 1_000, stallAfterMs: 4_000 };

describe("execution-client faults (verifying node)", () => {
  let dir: string;
  let devnet: Devnet;
  let chain: DevnetChain;
  let l1: L1Client;
  let seq: TestNode;
  let ver: TestNode;
  const els: SimulatedExecutionClient[] = [];
  let proxy: FaultProxy;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "supernode-el-faults-"));
    devnet = await startDevnet(
      {
        dir,
        l1BlockTimeSec: 1,
        l2BlockTimeSec: 1,
        batcherPollIntervalMs: 200,
        chains: [{ chainId: 901n, variant: "a", dataMode: "calldata", batchType: "singular" }],
      },
      { logger: traceLogger("devnet") },
    );
    chain = devnet.chain(901n);
    l1 = sharedL1(devnet, traceLogger("l1"));
    els.push(await startVerifierEl(devnet, chain));
    proxy = await FaultProxy.start(els[0]!.authUrl);
    seq = await startNode({
      chain,
      l1,
      authUrl: chain.el.authUrl,
      dataDir: join(dir, "seq"),
      sequencer: true,
      logger: traceLogger("seq"),
    });
    ver = await startNode({
      chain,
      l1,
      authUrl: proxy.url,
      dataDir: join(dir, "ver"),
      sequencer: false,
      logger: traceLogger("ver"),
      health: HEALTH,
      engineTimeoutMs: 1_000,
    });
    devnet.startBatchers();
  }, 90_000);

  afterAll(async () => {
    await ver?.close().catch(() => {});
    await seq?.close().catch(() => {});
    await proxy?.close().catch(() => {});
    for (const el of els) await el.stop().catch(() => {});
    await l1?.stop().catch(() => {});
    await devnet?.stop().catch(() => {});
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** The verifier's safe head reaches `min` on the sequencer's chain, as its current EL serves it. */
  const safeOnSequencerChain = async (min: number, timeoutMs: number): Promise<number> => {
    let n = -1;
    await waitFor(
      async () => {
        const safe = ver.node.syncStatus().safe_l2;
        if (safe.number < min) return false;
        const a = await ver.engine.l2BlockRefByNumber(safe.number).catch(() => undefined);
        const b = await seq.engine.l2BlockRefByNumber(safe.number);
        n = safe.number;
        return a !== undefined && a.hash === b?.hash;
      },
      timeoutMs,
      `verifier safe ≥ ${min} on the sequencer's chain`,
    );
    return n;
  };

  it("derives the sequencer's chain and is healthy", async () => {
    await safeOnSequencerChain(3, 40_000);
    expect(ver.node.health()).toEqual({ condition: "ok" });
  }, 60_000);

  it("an unreachable execution client makes the node degraded with the reason; it recovers when it returns", async () => {
    proxy.refuse();
    try {
      await waitFor(() => ver.node.health().condition === "degraded", 20_000, "degraded");
      expect(ver.node.health().reason).toMatch(/RPC_NETWORK/);
      expect(ver.node.health().reason).not.toMatch(/127\.0\.0\.1/);
    } finally {
      proxy.pass();
    }
    const before = ver.node.syncStatus().safe_l2.number;
    await waitFor(() => ver.node.health().condition === "ok", 20_000, "ok again");
    await safeOnSequencerChain(before + 1, 30_000);
  }, 60_000);

  it("a hung execution client (never answers) times out and makes the node degraded; it recovers", async () => {
    proxy.freeze();
    try {
      await waitFor(() => ver.node.health().condition === "degraded", 20_000, "degraded");
      expect(ver.node.health().reason).toMatch(/RPC_TIMEOUT/);
    } finally {
      proxy.pass();
    }
    const before = ver.node.syncStatus().safe_l2.number;
    await waitFor(() => ver.node.health().condition === "ok", 20_000, "ok again");
    await safeOnSequencerChain(before + 1, 30_000);
  }, 60_000);

  it("a wiped execution client is re-derived without restarting the node", async () => {
    const before = await safeOnSequencerChain(ver.node.syncStatus().safe_l2.number + 1, 30_000);
    const fresh = await startVerifierEl(devnet, chain);
    els.push(fresh);
    expect(fresh.head.header.number).toBe(0);
    proxy.retarget(fresh.authUrl);
    await els[0]!.stop();
    // the fresh EL is rebuilt from L1 up to (and past) the safe head it had before, on the sequencer's chain
    await safeOnSequencerChain(before + 1, 60_000);
    expect(Number(fresh.head.header.number)).toBeGreaterThan(before);
    await waitFor(() => ver.node.health().condition === "ok", 20_000, "ok again");
  }, 90_000);
});
