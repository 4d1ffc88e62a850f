import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InteropRuntime } from "../../../src/app/interop.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { VerifiedStore } from "../../../src/io/db/interop/verified-store.js";
import { fakeConfig } from "../../integration/app/fake-chains.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;
const ACTIVATION = 100;

/**
 * `superroot_atTimestamp`'s regimes as the interop runtime reads them off a real verified store (op-supernode's
 * `VerifiedResultAtTimestamp`): hand-off before the activation and before the first verified timestamp, the entry
 * itself, pending after it.
 */
describe("InteropRuntime.lookup (superroot_atTimestamp regimes)", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("hands off before the activation and below the first verified timestamp; the entry, then pending, past it", async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-superroot-lookup-"));
    const store = await VerifiedStore.open(join(dir, "interop"));
    // a cold start after a backfill: the first verified timestamp is 110, ten past the activation
    for (const ts of [110, 111]) {
      await store.commit({
        timestamp: ts,
        l1Inclusion: { hash: h(ts + 1000), number: ts + 1000 },
        l2Heads: { "10": { hash: h(ts), number: ts - 100 }, "11": { hash: h(ts + 1), number: ts - 100 } },
      });
    }
    await store.close();
    const config = { ...fakeConfig([10n, 11n]), dataDir: dir, interopActivationTimestamp: ACTIVATION };
    const rt = (await InteropRuntime.open(config)) as InteropRuntime;
    try {
      expect(await rt.lookup(ACTIVATION - 1)).toEqual({ regime: "handoff" });
      // after the activation but before the first verified timestamp: the optimistic outputs are canonical
      expect(await rt.lookup(ACTIVATION)).toEqual({ regime: "handoff" });
      expect(await rt.lookup(109)).toEqual({ regime: "handoff" });
      const v = await rt.lookup(111);
      expect(v).toMatchObject({
        regime: "verified",
        l1Inclusion: { hash: h(1111), number: 1111 },
        l2Heads: { "10": { hash: h(111), number: 11 }, "11": { hash: h(112), number: 11 } },
      });
      expect(await rt.lookup(112)).toEqual({ regime: "pending" });
      // the activity has not run a round: the verifier is processing nothing yet
      expect(rt.currentL1()).toEqual({ hash: h(0), number: 0 });
    } finally {
      await rt.close();
    }
  });
});
