import { describe, expect, it } from "vitest";
import { CriticalError, ResetError, TemporaryError } from "../../../src/core/errors/supernode-error.js";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import {
  buildStartFailure,
  checkForkchoiceUpdate,
  rpcCodeOf,
  sealFailure,
} from "../../../src/node/engine/engine-errors.js";
import { allHeads, headsOnParent } from "../../../src/node/engine/heads.js";

const rpcError = (code: number) => Object.assign(new Error(`rpc ${code}`), { rpcCode: code });
const status = (s: string) => ({
  ok: true as const,
  result: { payloadStatus: { status: s }, payloadId: null } as never,
});

describe("engine-errors: Engine API failures as typed errors", () => {
  it("reads the JSON-RPC code of an error, and nothing from anything else", () => {
    expect(rpcCodeOf(rpcError(-38002))).toBe(-38002);
    expect(rpcCodeOf(new Error("x"))).toBeUndefined();
    expect(rpcCodeOf(null)).toBeUndefined();
    expect(rpcCodeOf({ rpcCode: "-38002" })).toBeUndefined();
  });

  it("a forkchoice update: invalid state → reset, other failures → temporary, INVALID → reset, VALID/SYNCING pass", () => {
    const thrown = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const invalidState = thrown(() => checkForkchoiceUpdate({ ok: false, error: rpcError(-38002) }));
    expect(invalidState).toBeInstanceOf(ResetError);
    expect((invalidState as ResetError).code).toBe("INVALID_FORKCHOICE");
    const network = thrown(() => checkForkchoiceUpdate({ ok: false, error: new Error("ECONNRESET") }));
    expect(network).toBeInstanceOf(TemporaryError);
    expect((network as TemporaryError).code).toBe("ENGINE_FCU");
    for (const s of ["INVALID", "INVALID_BLOCK_HASH"]) {
      const e = thrown(() => checkForkchoiceUpdate(status(s)));
      expect(e).toBeInstanceOf(ResetError);
      expect((e as ResetError).code).toBe("FCU_INVALID");
    }
    expect(thrown(() => checkForkchoiceUpdate(status("VALID")))).toBeUndefined();
    expect(thrown(() => checkForkchoiceUpdate(status("SYNCING")))).toBeUndefined();
  });

  it("a build start: rejected attributes → invalid, invalid state → reset, typed errors kept unless critical", () => {
    expect(buildStartFailure(rpcError(-38003))).toBe("invalid");
    const reset = buildStartFailure(rpcError(-38002));
    expect(reset).toBeInstanceOf(ResetError);
    const temp = new TemporaryError("ENGINE_SYNCING", "syncing");
    expect(buildStartFailure(temp)).toBe(temp);
    const critical = buildStartFailure(new CriticalError("X", "boom"));
    expect(critical).toBeInstanceOf(TemporaryError);
    expect((critical as TemporaryError).code).toBe("ENGINE_BUILD_START");
  });

  it("a failed seal is temporary, an unknown payload named as such", () => {
    expect(sealFailure(rpcError(-38001)).code).toBe("ENGINE_UNKNOWN_PAYLOAD");
    expect(sealFailure(new Error("timeout")).code).toBe("ENGINE_GET_PAYLOAD");
  });
});

describe("heads on a build parent", () => {
  const ref = (n: number): L2BlockRef => ({
    hash: `0x${n.toString(16).padStart(64, "0")}` as Hash,
    number: n,
    parentHash: `0x${"00".repeat(32)}`,
    timestamp: n * 2,
    l1origin: { hash: `0x${"00".repeat(32)}`, number: 0 },
    sequenceNumber: 0,
  });

  it("caps safe, finalized and pending-safe at the parent; local-safe is safe", () => {
    const h = {
      ...allHeads(ref(10)),
      unsafe: ref(12),
      crossUnsafe: ref(12),
      pendingSafe: ref(11),
      safe: ref(10),
      finalized: ref(8),
    };
    expect(headsOnParent(h, ref(12))).toEqual({
      unsafe: ref(12),
      crossUnsafe: ref(12),
      pendingSafe: ref(11),
      localSafe: ref(10),
      safe: ref(10),
      finalized: ref(8),
    });
    // A parent below safe (a reorg of safe blocks): everything at the parent, pending-safe falls back to it too.
    expect(headsOnParent(h, ref(9))).toEqual({ ...allHeads(ref(9)), finalized: ref(8) });
  });
});
