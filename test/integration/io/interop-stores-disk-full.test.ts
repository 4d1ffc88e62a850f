/**
 * A full disk under the interop stores (a real 2 MiB tmpfs): the verified results, the write-ahead transition and
 * the chains' logs (sublevels of one LevelDB). A failed write is a temporary INTEROP_STORE_* error the store reports
 * as its fault until a write succeeds again; the LevelDB is opened again and checked before anything else is
 * acknowledged, so every round it acknowledged — before the disk filled and after space was freed — is still there
 * after a restart.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fillUp } from "../../../chaos/small-fs.js";
import { SupernodeError } from "../../../src/core/errors/supernode-error.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import type { LogsStore } from "../../../src/io/db/interop/logs-store.js";
import { VerifiedStore } from "../../../src/io/db/interop/verified-store.js";
import type { SealedBlock, VerifiedResult } from "../../../src/protocol/interop/types.js";
import { describeWithSmallFs, mountSmallFs, type SmallFs } from "../../support/small-fs.js";
import { InteropActivity } from "../../../src/activities/interop/activity.js";
import type { InteropState } from "../../../src/activities/interop/ports.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { makeDependencySet } from "../../../src/protocol/interop/dependency-set.js";
import { WorldChain, WorldL1 } from "../../unit/activities/interop-world.js";
import { waitFor } from "../../unit/node/fakes.js";

const CHAINS = ["901", "902"] as const;
const h = (tag: string, n: number): Hash => `0x${tag}${n.toString(16).padStart(64 - tag.length, "0")}` as Hash;
const blk = (chain: string, n: number): SealedBlock => ({
  hash: h(chain, n),
  number: n,
  parentHash: h(chain, n - 1),
  timestamp: 1000 + n,
});
const res = (n: number): VerifiedResult => ({
  timestamp: 1000 + n,
  l1Inclusion: { hash: h("e1", n), number: n },
  l2Heads: Object.fromEntries(CHAINS.map((c) => [c, { hash: h(c, n), number: n }])),
});

describeWithSmallFs("interop stores on a full disk", () => {
  let fs: SmallFs;
  beforeAll(() => {
    fs = mountSmallFs(2048);
  });
  const open: VerifiedStore[] = [];
  afterAll(async () => {
    for (const v of open) await v.close(); // also after a failed assertion: the tmpfs can then be unmounted
    fs?.unmount();
  });

  async function openAll(dir: string): Promise<{ verified: VerifiedStore; logs: LogsStore[] }> {
    const verified = await VerifiedStore.open(dir);
    open.push(verified);
    const logs: LogsStore[] = [];
    for (const c of CHAINS) logs.push(await verified.logsStore(c));
    return { verified, logs };
  }

  it("fails rounds with a temporary error, recovers once space is freed, and keeps every acknowledged round", async () => {
    const dir = join(fs.dir, "interop");
    const filler = join(fs.dir, "filler");
    const { verified, logs } = await openAll(dir);
    const acked: number[] = [];
    const errors: SupernodeError[] = [];
    let n = 1;
    // one round as the activity runs it: the write-ahead record, then the seals and the result in one batch
    const round = async (): Promise<boolean> => {
      try {
        await verified.setPending({ kind: "rewind", rewindAtOrAfter: 1000 + n });
        const staged = [];
        for (const [i, l] of logs.entries()) {
          const s = await l.stage([{ block: blk(CHAINS[i] as string, n), logs: [{ hash: h("c", n) }] }]);
          if (s !== undefined) staged.push(s);
        }
        await verified.commit(res(n), staged);
        acked.push(n);
        n++; // a failed round is tried again with the same timestamp, as the activity does
        return true;
      } catch (err) {
        errors.push(err as SupernodeError);
        return false;
      }
    };
    for (let i = 0; i < 30; i++) await round();
    expect(errors).toEqual([]);
    expect(verified.fault()).toBeUndefined();

    fillUp(filler);
    let failures = 0;
    for (let i = 0; i < 2000 && failures < 3; i++) if (!(await round())) failures++;
    expect(failures).toBe(3); // the disk really filled
    for (const e of errors) {
      expect(e).toBeInstanceOf(SupernodeError);
      expect(e.severity).toBe("temporary");
      expect(e.code).toMatch(/^INTEROP_STORE_(WRITE|OPEN)$/);
    }
    expect(verified.fault()?.code).toMatch(/^INTEROP_STORE_/);
    expect(verified.last()?.timestamp).toBe(1000 + (acked.at(-1) as number));

    rmSync(filler);
    let after = 0;
    for (let i = 0; i < 300 && after < 200; i++) if (await round()) after++;
    expect(after).toBe(200);
    expect(verified.fault()).toBeUndefined();
    await verified.setPending({ kind: "rewind", rewindAtOrAfter: 5000 });
    await verified.close();

    const again = await openAll(dir);
    const lost: string[] = [];
    for (const k of acked) {
      if ((await again.verified.get(1000 + k))?.l1Inclusion.number !== k) lost.push(`result ${k}`);
      for (const [i, l] of again.logs.entries())
        if ((await l.blockAt(k))?.hash !== h(CHAINS[i] as string, k)) lost.push(`logs ${CHAINS[i]} ${k}`);
    }
    expect(lost).toEqual([]);
    expect(await again.verified.pending()).toEqual({ kind: "rewind", rewindAtOrAfter: 5000 });
    await again.verified.close();
  });

  it("the interop activity reports `degraded` while its store cannot write, and verifies on once space is freed", async () => {
    const GENESIS = 1000;
    const l1 = new WorldL1();
    const a = new WorldChain(901n, 1, GENESIS, l1);
    const b = new WorldChain(902n, 1, GENESIS, l1);
    const dir = join(fs.dir, "interop-activity");
    const filler = join(fs.dir, "filler-2");
    const { verified, logs } = await openAll(dir);
    const states: InteropState[] = [];
    const activity = new InteropActivity(
      { activationTimestamp: GENESIS, dependencySet: makeDependencySet([901n, 902n]), errorMs: 5, idleMs: 5 },
      {
        chains: [a, b],
        logs: new Map(CHAINS.map((c, i) => [c, logs[i] as LogsStore])),
        verified,
        l1,
        clock: systemClock,
        logger: silentLogger,
        metrics: {
          verified: () => {},
          decision: () => {},
          invalidation: () => {},
          denied: () => {},
          rewind: () => {},
          verificationSeconds: () => {},
          state: (st) => void states.push(st as InteropState),
          backfillProgress: () => {},
        },
      },
    );
    a.advance(5);
    b.advance(5);
    const stop = new AbortController();
    const running = activity.run(stop.signal);
    try {
      await waitFor(() => verified.last()?.timestamp === GENESIS + 5, 10_000);
      fillUp(filler);
      a.advance(200, (n) => [WorldChain.initiating(`a${n}`)]);
      b.advance(200, (n) => [WorldChain.initiating(`b${n}`)]);
      await waitFor(() => activity.state === "degraded", 10_000);
      expect(activity.status().error).toMatch(/^interop store (write|open) failed/);
      expect(verified.fault()?.severity).toBe("temporary");
      const heldAt = verified.last()?.timestamp as number;
      expect(heldAt).toBeLessThan(GENESIS + 205);

      rmSync(filler);
      await waitFor(() => verified.last()?.timestamp === GENESIS + 205, 10_000);
      expect(activity.state).not.toBe("degraded");
      expect(states).toContain("degraded");
    } finally {
      stop.abort();
      await running;
      rmSync(filler, { force: true });
    }
    await verified.close();
    const again = await openAll(dir);
    expect(again.verified.last()?.timestamp).toBe(GENESIS + 205);
    expect(again.logs[0]?.latest()?.number).toBe(205);
  });
});
