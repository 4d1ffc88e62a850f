import { describe, expect, it } from "vitest";
import { ZERO_SYNC_STATUS } from "../../../src/activities/sync-status.js";
import type { L1BlockRef, L2BlockRef, SyncStatus } from "../../../src/core/types/block-ref.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { stringifyJson } from "../../../src/rpc/dispatch.js";
import { syncStatusJson } from "../../../src/rpc/namespaces/stack.js";

const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hash;
const l1 = (n: number): L1BlockRef => ({ hash: h(n), number: n, parentHash: h(n - 1), timestamp: 1_000 + n });
// a ref carrying more than the answer shows (as the node's refs may): only the specification's fields go out
const l2 = (n: number): L2BlockRef =>
  ({
    ...l1(n),
    l1origin: { hash: h(900 + n), number: 900 + n, extra: 1 },
    sequenceNumber: n % 3,
    extra: 2,
  }) as unknown as L2BlockRef;

describe("syncStatusJson", () => {
  it("writes every field in the specification's order, each ref with its fields in order and nothing else", () => {
    const s: SyncStatus = {
      ...ZERO_SYNC_STATUS,
      current_l1: l1(10),
      head_l1: l1(12),
      safe_l1: l1(11),
      finalized_l1: l1(9),
      current_l1_finalized: l1(8),
      unsafe_l2: l2(30),
      safe_l2: l2(25),
      finalized_l2: l2(20),
      pending_safe_l2: l2(26),
      queued_unsafe_l2: l2(31),
      engine_sync_target: l2(30),
      cross_unsafe_l2: l2(29),
      local_safe_l2: l2(27),
    };
    const r1 = (n: number) => `{"hash":"${h(n)}","number":${n},"parentHash":"${h(n - 1)}","timestamp":${1_000 + n}`;
    const r2 = (n: number) =>
      `${r1(n)},"l1origin":{"hash":"${h(900 + n)}","number":${900 + n}},"sequenceNumber":${n % 3}}`;
    const keys: Array<[string, string]> = [
      ["current_l1", `${r1(10)}}`],
      ["current_l1_finalized", `${r1(8)}}`],
      ["head_l1", `${r1(12)}}`],
      ["safe_l1", `${r1(11)}}`],
      ["finalized_l1", `${r1(9)}}`],
      ["unsafe_l2", r2(30)],
      ["safe_l2", r2(25)],
      ["finalized_l2", r2(20)],
      ["pending_safe_l2", r2(26)],
      ["queued_unsafe_l2", r2(31)],
      ["engine_sync_target", r2(30)],
      ["cross_unsafe_l2", r2(29)],
      ["local_safe_l2", r2(27)],
    ];
    expect(stringifyJson(syncStatusJson(s))).toBe(`{${keys.map(([k, v]) => `"${k}":${v}`).join(",")}}`);
  });
});
