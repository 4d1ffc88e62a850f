/**
 * The interop wiring of the composition root with fake chains: the activity runs over the supervised chains, its
 * stores live under the data directory, `supernode_syncStatus` reports it, `superroot_atTimestamp` answers `data`
 * only for verified timestamps, and its metrics are exported.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Supernode } from "../../../src/app/supernode.js";
import type { ChainService } from "../../../src/app/chain-service.js";
import type { L1Source } from "../../../src/node/ports.js";
import {
  FakeChainControl,
  fakeInteropConfig,
  fakeHashing,
  fastSupervisor,
  hash,
  rpc,
  testLogger,
  waitFor,
} from "./fake-chains.js";

let node: Supernode | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await node?.stop();
  node = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const hex = (n: number) => `0x${n.toString(16)}`;

function withInterop(ctl: FakeChainControl) {
  const tagOf = (n: number) => Number(ctl.chainId) * 1_000_000 + n;
  const block = (n: number) => ({
    block: { hash: hash(tagOf(n)), number: n, parentHash: hash(tagOf(n - 1)), timestamp: ctl.genesisTime + 2 * n },
    receipts: [],
  });
  return async (attempt: number): Promise<ChainService> => {
    const inst = await ctl.factory(attempt);
    return Object.assign(inst, {
      interop: {
        async blockLogs(h: string) {
          for (let n = 0; n <= ctl.head; n++) if (hash(tagOf(n)) === h) return block(n);
          return undefined;
        },
        async blockLogsAt(n: number) {
          return n <= ctl.head ? block(n) : undefined;
        },
        async invalidate() {
          throw new Error("unexpected invalidation");
        },
        async pruneDenied() {},
      },
    }) as ChainService;
  };
}

async function startInterop(dir: string, ctls: FakeChainControl[], backfillDepthMs = 0, chainReadyWaitMs = 0) {
  const base = fakeInteropConfig(
    ctls.map((c) => c.chainId),
    dir,
    {
      activation: 1000,
      backfillDepthMs,
      rollupOf: () => ({ block_time: 2, genesis: { l2_time: 1000, l2: { number: 0 } } }),
    },
  );
  const config = { ...base, rpc: { ...base.rpc, chainReadyWaitMs } };
  const l1 = {
    l1BlockRefByNumber: async (n: number) => ({ hash: hash(n), number: n, parentHash: hash(n - 1), timestamp: n }),
  } as unknown as L1Source;
  return Supernode.start(config, {
    logger: testLogger,
    buildChains: async () => ({
      factories: new Map(ctls.map((c) => [c.chainId, withInterop(c)])),
      l1,
      close: async () => {},
    }),
    hashing: fakeHashing,
    supervisor: fastSupervisor,
  });
}

describe("Supernode with interop", () => {
  it("verifies the fake chains and reports the activity", async () => {
    const dir = mkdtempSync(join(tmpdir(), "supernode-interop-"));
    dirs.push(dir);
    const ctls = [new FakeChainControl(10n), new FakeChainControl(420n)];
    node = await startInterop(dir, ctls);
    const sn = node;
    const status = async () =>
      (await rpc(`${sn.rpc.url}/`, "supernode_syncStatus")).result as { interop: Record<string, unknown> };
    // head 10 at 2 s blocks: timestamps 1000..1021 are local-safe on both chains.
    await waitFor(async () => (await status()).interop.verified_timestamp === 1021, 20_000);
    expect((await status()).interop).toMatchObject({ activation_timestamp: 1000, error: null });

    const at = async (ts: number) =>
      (await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", [hex(ts)])).result as Record<string, unknown>;
    expect(await at(1010)).toHaveProperty("data");
    expect(await at(1022)).not.toHaveProperty("data");

    const metrics = await (await fetch(`${sn.metricsServer!.url}/metrics`)).text();
    expect(metrics).toMatch(/^supernode_interop_verified_timestamp 1021$/m);
    expect(metrics).toMatch(/^supernode_interop_timestamps_verified_total 22$/m);
    expect(metrics).toMatch(/^supernode_activity_up\{activity="interop"\} 1$/m);
  });

  it("cold start: waits for every chain's SafeDB, backfills, then verifies from the latest first-safe timestamp", async () => {
    const dir = mkdtempSync(join(tmpdir(), "supernode-interop-"));
    dirs.push(dir);
    const ctls = [new FakeChainControl(10n), new FakeChainControl(420n)];
    ctls[0]!.firstSafeTime = null; // chain 10 has not recorded a safe head yet
    ctls[1]!.firstSafeTime = 1010;
    node = await startInterop(dir, ctls, 10_000);
    const sn = node;
    const status = async () =>
      (await rpc(`${sn.rpc.url}/`, "supernode_syncStatus")).result as { interop: Record<string, unknown> };
    const metrics = async () => (await fetch(`${sn.metricsServer!.url}/metrics`)).text();
    await waitFor(async () => (await status()).interop.state === "awaiting_safedb", 20_000);
    expect(await metrics()).toMatch(/^supernode_interop_activity_state\{state="awaiting_safedb"\} 1$/m);
    ctls[0]!.firstSafeTime = 1006;
    await waitFor(async () => (await status()).interop.verified_timestamp === 1021, 20_000);
    const text = await metrics();
    // Backfill window [max(1000, 1010 − 10 s), 1010): blocks 0..4 of each chain, complete.
    expect(text).toMatch(/^supernode_interop_log_backfill_progress\{chain_id="10"\} 1$/m);
    expect(text).toMatch(/^supernode_interop_log_backfill_progress\{chain_id="420"\} 1$/m);
    expect(text).toMatch(/^supernode_interop_timestamps_verified_total 12$/m); // 1010..1021
    type Answer = { data?: { verified_required_l1: { number: number } }; optimistic_at_timestamp: object };
    const at = async (ts: number) => (await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", [hex(ts)])).result as Answer;
    // Before the cold start (below the first verifiable timestamp) the answer hands off to the optimistic outputs,
    // as op-supernode's does (ErrBeforeVerifiedDB): data from them, the maximum of their L1 inclusions.
    const before = await at(1009);
    const l1s = Object.values(before.optimistic_at_timestamp).map(
      (o: { required_l1: { number: number } }) => o.required_l1.number,
    );
    expect(l1s).toHaveLength(2);
    expect(before.data?.verified_required_l1.number).toBe(Math.max(...l1s));
    expect(await at(1010)).toHaveProperty("data");
  });

  it("a warm restart serves no safe_l2 older than what was verified: requests wait until the chain is back there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "supernode-interop-"));
    dirs.push(dir);
    const ctls = [new FakeChainControl(10n), new FakeChainControl(420n)];
    node = await startInterop(dir, ctls);
    const first = node;
    const status = async () =>
      (await rpc(`${first.rpc.url}/`, "supernode_syncStatus")).result as { interop: Record<string, unknown> };
    await waitFor(async () => (await status()).interop.verified_timestamp === 1021, 20_000); // block 10 verified
    await first.stop();
    node = undefined;

    // The process comes back with the chains re-deriving from an older safe head (block 4).
    for (const c of ctls) c.head = 4;
    node = await startInterop(dir, ctls, 0, 20_000);
    const sn = node;
    let settled = false;
    const answer = rpc(`${sn.rpc.url}/10/`, "stack_syncStatus").finally(() => {
      settled = true;
    });
    const reads = ctls[0]!.statusReads;
    await waitFor(() => ctls[0]!.statusReads >= reads + 5, 20_000); // the barrier looked again and again
    expect(settled).toBe(false);
    ctls[0]!.head = 10; // back at the verified block
    const r = await answer;
    expect((r.result as { safe_l2: { number: number } }).safe_l2.number).toBe(10);
    // Passed once, passed for good: the instance answers at once from then on.
    ctls[0]!.head = 9;
    expect(
      ((await rpc(`${sn.rpc.url}/10/`, "stack_syncStatus")).result as { safe_l2: { number: number } }).safe_l2.number,
    ).toBe(9);
  });
});
