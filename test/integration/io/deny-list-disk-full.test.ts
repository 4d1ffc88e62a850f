/**
 * A full disk under the deny list (a real 2 MiB tmpfs): a failed write is a temporary DENYLIST_* error the list
 * reports as its fault (the chain's health reads it) until a write succeeds again; the list is opened again and
 * checked before it acknowledges anything else, so every record it acknowledged — before the disk filled and
 * after space was freed — is still there after a restart.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fillUp } from "../../../chaos/small-fs.js";
import { SupernodeError } from "../../../src/core/errors/supernode-error.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import { DenyList } from "../../../src/io/db/deny-list.js";
import type { DeniedBlock } from "../../../src/protocol/interop/types.js";
import { describeWithSmallFs, mountSmallFs, type SmallFs } from "../../support/small-fs.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { ChainNode } from "../../../src/node/chain-node.js";
import {
  FakeEngine,
  FakeL1,
  MemorySafeDb,
  ToyPipeline,
  fakeAttributesBuilder,
  testRollupConfig,
  waitFor,
} from "../../unit/node/fakes.js";
import { toyNodeConfig } from "../../unit/node/toy-node.js";

const h = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;
const rec = (height: number): DeniedBlock => ({
  height,
  payloadHash: h(height),
  decisionTimestamp: 1000 + height,
  stateRoot: h(1),
  messagePasserStorageRoot: h(2),
  txHashes: [h(3 + height)],
});

describeWithSmallFs("deny list on a full disk", () => {
  let fs: SmallFs;
  beforeAll(() => {
    fs = mountSmallFs(2048);
  });
  const open: DenyList[] = [];
  afterAll(async () => {
    for (const l of open) await l.close(); // also after a failed assertion: the tmpfs can then be unmounted
    fs?.unmount();
  });

  it("fails writes with a temporary error, recovers once space is freed, and keeps every acknowledged record", async () => {
    const dir = join(fs.dir, "denylist");
    const filler = join(fs.dir, "filler");
    const list = await DenyList.open(dir);
    open.push(list);
    const acked: number[] = [];
    const errors: SupernodeError[] = [];
    let n = 1;
    const add = async (): Promise<boolean> => {
      try {
        if (await list.add(rec(n))) acked.push(n);
        return true;
      } catch (err) {
        errors.push(err as SupernodeError);
        return false;
      } finally {
        n++;
      }
    };
    for (let i = 0; i < 50; i++) expect(await add()).toBe(true);
    await list.setReplacementHold(50);
    expect(list.fault()).toBeUndefined();

    fillUp(filler);
    let failures = 0;
    for (let i = 0; i < 2000 && failures < 3; i++) if (!(await add())) failures++;
    expect(failures).toBe(3); // the disk really filled
    for (const e of errors) {
      expect(e).toBeInstanceOf(SupernodeError);
      expect(e.severity).toBe("temporary");
      expect(e.code).toMatch(/^DENYLIST_(WRITE|OPEN)$/);
    }
    expect(list.fault()?.code).toMatch(/^DENYLIST_/);
    // a failed add records nothing in memory: what the list answers is what it acknowledged
    for (const k of acked) expect(list.isDenied(k, h(k))).toBe(true);

    rmSync(filler);
    // space is back: the next write reopens the list, checks it and succeeds; the fault clears
    let after = 0;
    for (let i = 0; i < 400 && after < 300; i++) if (await add()) after++;
    expect(after).toBe(300);
    expect(list.fault()).toBeUndefined();
    await list.setReplacementHold(undefined);
    await list.setReplacementHold(n - 1);
    await list.close();

    const again = await DenyList.open(dir);
    open.push(again);
    const lost = acked.filter((k) => !again.isDenied(k, h(k)));
    expect(lost).toEqual([]);
    expect(again.replacementHold()).toBe(n - 1);
    await again.close();
  });

  it("an invalidation on a full disk fails with a temporary error, the chain reports degraded, and recovers", async () => {
    const cfg = testRollupConfig();
    const l1 = new FakeL1(12);
    const engine = new FakeEngine(cfg);
    const builder = fakeAttributesBuilder(cfg, l1);
    const list = await DenyList.open(join(fs.dir, "chain-denylist"));
    open.push(list);
    const node = await ChainNode.create(toyNodeConfig(cfg), {
      l1,
      engine,
      safeDb: new MemorySafeDb(),
      clock: systemClock,
      logger: silentLogger,
      createPipeline: () => new ToyPipeline(cfg, l1, builder),
      attributesBuilder: builder,
      refFromPayload: engine.refOf,
      denyList: list,
    });
    const filler = join(fs.dir, "filler-2");
    try {
      await node.start();
      await waitFor(() => node.syncStatus().local_safe_l2.number === 12);
      const bad = (await engine.payloadByNumber(5))!.executionPayload;
      const request = {
        height: 5,
        payloadHash: bad.blockHash,
        decisionTimestamp: 1010,
        stateRoot: h(1),
        messagePasserStorageRoot: h(2),
      };
      expect(node.health().condition).toBe("ok");

      fillUp(filler);
      const err = await node.invalidateBlock(request).then(
        () => undefined,
        (e: unknown) => e as SupernodeError,
      );
      expect(err?.severity).toBe("temporary");
      expect(err?.code).toMatch(/^DENYLIST_(WRITE|OPEN)$/);
      const h1 = node.health();
      expect(h1.condition).toBe("degraded");
      expect(h1.reason).toContain("deny list write failing: DENYLIST_");
      expect(list.isDenied(5, bad.blockHash)).toBe(false);

      rmSync(filler);
      // the activity retries its write-ahead transition: the list reopens, checks itself and records the denial
      expect(await node.invalidateBlock(request)).toMatchObject({ denied: true });
      expect(node.health().condition).toBe("ok");
    } finally {
      rmSync(filler, { force: true });
      await node.stop();
      await list.close();
    }
    const again = await DenyList.open(join(fs.dir, "chain-denylist"));
    open.push(again);
    expect(again.atHeight(5)).toHaveLength(1);
    await again.close();
  });
});
