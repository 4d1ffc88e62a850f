import { describe, expect, it } from "vitest";
import { heartbeatCheck, runHeartbeat } from "../../../src/activities/heartbeat.js";
import type { ActivityChainView, ChainBlockAt } from "../../../src/activities/ports.js";
import {
  parseTimestampParam,
  type SuperRootVerifier,
  superRootAtTimestamp,
  type VerifiedLookup,
} from "../../../src/activities/superroot.js";
import { aggregateSyncStatus, ZERO_SYNC_STATUS } from "../../../src/activities/sync-status.js";
import { DecodeError } from "../../../src/core/errors/supernode-error.js";
import type { Logger } from "../../../src/core/logger.js";
import type { Clock } from "../../../src/core/time/clock.js";
import type { BlockId, SyncStatus } from "../../../src/core/types/block-ref.js";
import type { Hash } from "../../../src/core/types/primitives.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;

function status(o: { l1: number; safe: number; localSafe: number; finalized: number }): SyncStatus {
  const l2 = (ts: number) => ({ ...ZERO_SYNC_STATUS.safe_l2, timestamp: ts, number: ts });
  return {
    ...ZERO_SYNC_STATUS,
    current_l1: { hash: h(o.l1), number: o.l1, parentHash: h(0), timestamp: 0 },
    safe_l2: l2(o.safe),
    local_safe_l2: l2(o.localSafe),
    finalized_l2: l2(o.finalized),
  };
}

/** A chain whose local-safe blocks are `blocks` (by timestamp) and whose execution client also holds `byHash`. */
function chain(
  id: bigint,
  s: SyncStatus | undefined,
  blocks: Record<number, ChainBlockAt> = {},
  byHash: readonly ChainBlockAt[] = [],
): ActivityChainView {
  const all = [...Object.values(blocks), ...byHash];
  return {
    chainId: id,
    syncStatus: async () => s,
    state: () => "running",
    optimisticAt: async (ts) => blocks[ts],
    outputAtHash: async (hash) => all.find((b) => b.l2.hash === hash)?.output,
  };
}

const hashing = {
  outputRoot: (o: { blockHash: Hash }) => o.blockHash,
  superRoot: (ts: number, chains: ReadonlyArray<{ chainId: bigint }>) => h(ts * 1000 + chains.length),
};

describe("aggregateSyncStatus", () => {
  it("takes minima over chains and sorts chain IDs numerically", async () => {
    const r = await aggregateSyncStatus([
      chain(420n, status({ l1: 50, safe: 100, localSafe: 120, finalized: 80 })),
      chain(10n, status({ l1: 40, safe: 110, localSafe: 115, finalized: 90 })),
      chain(9n, status({ l1: 60, safe: 105, localSafe: 130, finalized: 70 })),
    ]);
    expect(r.chain_ids).toEqual(["9", "10", "420"]);
    expect(r.current_l1).toEqual({ hash: h(40), number: 40 });
    expect([r.safe_timestamp, r.local_safe_timestamp, r.finalized_timestamp]).toEqual([100, 115, 70]);
    expect(Object.keys(r.chains)).toEqual(["9", "10", "420"]);
  });

  it("counts a chain that never reported as all-zero (a legitimate minimum)", async () => {
    const r = await aggregateSyncStatus([
      chain(10n, status({ l1: 40, safe: 1, localSafe: 1, finalized: 1 })),
      chain(11n, undefined),
    ]);
    expect(r.current_l1.number).toBe(0);
    expect(r.safe_timestamp).toBe(0);
    expect(r.chains["11"]).toEqual(ZERO_SYNC_STATUS);
  });

  it("returns zeros and empty lists without chains", async () => {
    const r = await aggregateSyncStatus([]);
    expect(r).toMatchObject({ chain_ids: [], safe_timestamp: 0, local_safe_timestamp: 0, finalized_timestamp: 0 });
    expect(r.current_l1).toEqual({ hash: h(0), number: 0 });
  });
});

describe("superroot_atTimestamp", () => {
  it.each([
    [["0x7b"], 123],
    [["0x0"], 0],
    [["0xABC"], 0xabc],
  ])("accepts %j", (params, ts) => {
    expect(parseTimestampParam(params)).toBe(ts);
  });

  it.each([[[]], [[123]], [["0x07"]], [["7b"]], [["0x"]], [["0x7b", 1]], [[null]]])(
    "rejects %j with a DecodeError",
    (params) => {
      expect(() => parseTimestampParam(params)).toThrow(DecodeError);
    },
  );

  const block = (chainId: number, n: number, l1: number): ChainBlockAt => ({
    l2: { hash: h(chainId * 100 + n), number: n },
    output: { stateRoot: h(1), messagePasserStorageRoot: h(2), blockHash: h(chainId * 100 + n) },
    requiredL1: { hash: h(l1), number: l1 },
  });

  it("hands off (no verifier): data from the optimistic outputs sorted by chain ID, with the maximum required L1", async () => {
    const s = status({ l1: 1, safe: 1, localSafe: 1, finalized: 1 });
    const r = await superRootAtTimestamp(
      [chain(420n, s, { 123: block(420, 5, 77) }), chain(10n, s, { 123: block(10, 7, 70) })],
      ["0x7b"],
      hashing,
    );
    expect(r.data).toEqual({
      verified_required_l1: { hash: h(77), number: 77 },
      super: {
        timestamp: "0x7b",
        chains: [
          { ChainID: "10", Output: h(1007) },
          { ChainID: "420", Output: h(42005) },
        ],
      },
      super_root: h(123_002),
    });
    expect(r.optimistic_at_timestamp["10"]).toEqual({
      output: block(10, 7, 70).output,
      output_root: h(1007),
      required_l1: { hash: h(70), number: 70 },
    });
  });

  it("hands off: no data while a chain has no local-safe block there, the others' optimistic outputs kept", async () => {
    const s = status({ l1: 1, safe: 1, localSafe: 1, finalized: 1 });
    const r = await superRootAtTimestamp([chain(10n, s, { 5: block(10, 1, 3) }), chain(11n, s)], ["0x5"], hashing);
    expect("data" in r).toBe(false);
    expect(Object.keys(r.optimistic_at_timestamp)).toEqual(["10"]);
  });

  it("with no chains, data is present with an empty chain list", async () => {
    const r = await superRootAtTimestamp([], ["0x1"], hashing);
    expect(r.data?.super.chains).toEqual([]);
    expect(r.optimistic_at_timestamp).toEqual({});
  });

  const verifier = (lookup: VerifiedLookup, currentL1?: BlockId): SuperRootVerifier => ({
    lookup: async () => lookup,
    currentL1: () => currentL1,
  });

  it("verified: data from the entry's pinned hashes (outputs read by hash) and its L1 inclusion, whatever is canonical now", async () => {
    const s = status({ l1: 90, safe: 1, localSafe: 1, finalized: 1 });
    // the pinned blocks are no longer what the chains hold at the timestamp (say, replaced since): the answer for
    // timestamp 5 stays the verified one
    const pinned10 = block(10, 3, 40);
    const pinned11 = block(11, 3, 41);
    const chains = [
      chain(10n, s, { 5: block(10, 9, 60) }, [pinned10]),
      chain(11n, s, { 5: block(11, 9, 61) }, [pinned11]),
    ];
    const v = verifier({
      regime: "verified",
      l1Inclusion: { hash: h(42), number: 42 },
      l2Heads: { "10": pinned10.l2, "11": pinned11.l2 },
    });
    const r = await superRootAtTimestamp(chains, ["0x5"], hashing, v);
    expect(r.data).toEqual({
      verified_required_l1: { hash: h(42), number: 42 },
      super: {
        timestamp: "0x5",
        chains: [
          { ChainID: "10", Output: h(1003) },
          { ChainID: "11", Output: h(1103) },
        ],
      },
      super_root: h(5002),
    });
    // the optimistic branch still shows what the chains hold now
    expect(r.optimistic_at_timestamp["10"]?.output_root).toBe(h(1009));
    expect(r.current_l1).toEqual({ hash: h(90), number: 90 });
  });

  it("current_l1 is no higher than the L1 block the verifier is still processing, in every regime", async () => {
    const s = status({ l1: 90, safe: 1, localSafe: 1, finalized: 1 });
    const b = block(10, 3, 40);
    const currentL1 = { hash: h(50), number: 50 };
    const verified = verifier({ regime: "verified", l1Inclusion: b.requiredL1, l2Heads: { "10": b.l2 } }, currentL1);
    expect((await superRootAtTimestamp([chain(10n, s, {}, [b])], ["0x5"], hashing, verified)).current_l1).toEqual(
      currentL1,
    );
    const pending = await superRootAtTimestamp(
      [chain(10n, s, { 5: b })],
      ["0x5"],
      hashing,
      verifier({ regime: "pending" }, currentL1),
    );
    expect(pending.current_l1).toEqual(currentL1);
    expect("data" in pending).toBe(false);
    const handoff = await superRootAtTimestamp(
      [chain(10n, s, { 5: b })],
      ["0x5"],
      hashing,
      verifier({ regime: "handoff" }, currentL1),
    );
    expect(handoff.current_l1).toEqual(currentL1);
    expect(handoff.data?.verified_required_l1).toEqual(b.requiredL1);
    // a verifier that waits for the chains (or is ahead of them) caps nothing
    for (const v of [undefined, { hash: h(95), number: 95 }]) {
      const r = await superRootAtTimestamp([chain(10n, s)], ["0x5"], hashing, verifier({ regime: "pending" }, v));
      expect(r.current_l1.number).toBe(90);
    }
  });

  it("verified: an entry that does not name every configured chain, or a pinned block the EL lacks, is an error", async () => {
    const s = status({ l1: 1, safe: 1, localSafe: 1, finalized: 1 });
    const b = block(10, 3, 40);
    const entry = { regime: "verified", l1Inclusion: b.requiredL1, l2Heads: { "10": b.l2 } } as const;
    await expect(
      superRootAtTimestamp([chain(10n, s, {}, [b]), chain(11n, s)], ["0x5"], hashing, verifier(entry)),
    ).rejects.toThrow(/dependency-set size mismatch/);
    await expect(superRootAtTimestamp([chain(10n, s)], ["0x5"], hashing, verifier(entry))).rejects.toThrow(
      /block not found/,
    );
  });
});

describe("heartbeat", () => {
  it("returns 4 fresh random bytes", () => {
    const a = heartbeatCheck();
    expect(a).toMatch(/^0x[0-9a-f]{8}$/);
    const seen = new Set(Array.from({ length: 20 }, () => heartbeatCheck()));
    expect(seen.size).toBeGreaterThan(15);
  });

  it("logs a beat per interval and stops on abort", async () => {
    const lines: string[] = [];
    const logger = { debug: (_o: object, m?: string) => lines.push(m ?? "") } as unknown as Logger;
    const ctl = new AbortController();
    let sleeps = 0;
    const clock: Clock = {
      nowMs: () => 0,
      sleep: async () => {
        sleeps++;
        if (sleeps > 3) ctl.abort();
        if (ctl.signal.aborted) throw new DecodeError("aborted");
      },
    };
    await expect(runHeartbeat({ logger, clock, signal: ctl.signal, intervalMs: 0 })).resolves.toBeUndefined();
    expect(lines).toEqual(["heartbeat", "heartbeat", "heartbeat"]);
  });
});
