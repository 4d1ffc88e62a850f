/**
 * The router's readiness gate through the whole composition (real Fastify on port 0, the chain supervisors): a
 * request to a chain the supervisor is restarting after a failure waits for the new instance and is then answered;
 * a chain that failed for good (a critical error, never restarted) answers at once; and a chain reset by
 * `admin_resetDerivationPipeline` (a real virtual node, its instance kept) answers other requests during the reset.
 */
import { afterEach, describe, expect, it } from "vitest";
import { chainMethodTable } from "../../../src/app/chain-factory.js";
import type { ChainService } from "../../../src/app/chain-service.js";
import { Supernode } from "../../../src/app/supernode.js";
import { CriticalError } from "../../../src/core/errors/supernode-error.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { ChainNode } from "../../../src/node/chain-node.js";
import type { BlockLabel } from "../../../src/node/ports.js";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import {
  FakeEngine,
  FakeL1,
  MemorySafeDb,
  ToyPipeline,
  fakeAttributesBuilder,
  testRollupConfig,
} from "../../unit/node/fakes.js";
import { toyNodeConfig } from "../../unit/node/toy-node.js";
import { FakeChainControl, fakeConfig, fakeHashing, fastSupervisor, rpc, testLogger, waitFor } from "./fake-chains.js";

let node: Supernode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

const WAIT_MS = 30_000;

async function start(factories: Map<bigint, (attempt: number) => Promise<ChainService>>, enableAdmin = false) {
  const base = fakeConfig([...factories.keys()], { enableAdmin });
  node = await Supernode.start(
    { ...base, rpc: { ...base.rpc, chainReadyWaitMs: WAIT_MS } },
    {
      logger: testLogger,
      buildChains: async () => ({ factories, close: async () => {} }),
      hashing: fakeHashing,
      supervisor: fastSupervisor,
    },
  );
  const sn = node;
  await waitFor(() => [...sn.supervisors.values()].every((s) => s.state === "running"));
  return sn;
}

/** Sends `method` to `chain` and notes when the answer arrives. */
function pending(url: string, method: string) {
  const p = { settled: false, answer: rpc(url, method) };
  p.answer = p.answer.finally(() => {
    p.settled = true;
  });
  return p;
}

describe("requests to a chain the supervisor restarts", () => {
  it("wait for the new instance after a failure and are then answered", { timeout: 60_000 }, async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    const sn = await start(
      new Map([
        [a.chainId, a.factory],
        [b.chainId, b.factory],
      ]),
    );
    b.failStarts = 2; // the first two restarts fail too (backoff in between)
    b.live!.crash();
    await waitFor(() => sn.supervisors.get("420")!.state !== "running");
    const req = pending(`${sn.rpc.url}/420/`, "stack_chainId");
    await waitFor(() => b.starts >= 3); // two failed starts while the request waited
    expect(req.settled).toBe(false);
    expect((await rpc(`${sn.rpc.url}/10/`, "stack_chainId")).result).toBe("10"); // the other chain is not held up
    expect((await req.answer).result).toBe("420");
    expect(sn.supervisors.get("420")!.state).toBe("running");
  });

  it("a chain failed for good (critical, never restarted) answers at once, not after the wait", async () => {
    const b = new FakeChainControl(420n);
    const sn = await start(new Map([[b.chainId, b.factory]]));
    b.live!.crash(new CriticalError("SAFEDB_CORRUPT", "SafeDB corrupted"));
    await waitFor(() => sn.supervisors.get("420")!.state === "failed");
    const t0 = Date.now();
    const r = await rpc(`${sn.rpc.url}/420/`, "stack_chainId");
    expect(r.error?.code).toBe(-32000);
    expect(r.error?.message).toContain("chain 420 is not running (failed");
    expect(Date.now() - t0).toBeLessThan(WAIT_MS);
  });
});

/** A FakeEngine whose label reads block while `held` (an execution client slow to answer during a reset). */
class HeldEngine extends FakeEngine {
  held: Promise<void> | undefined;
  reached = 0;
  override async l2BlockRefByLabel(label: BlockLabel) {
    if (this.held !== undefined) {
      this.reached++;
      await this.held;
    }
    return super.l2BlockRefByLabel(label);
  }
}

describe("a chain reset by admin_resetDerivationPipeline", () => {
  it("keeps its instance and answers other requests during the reset", { timeout: 60_000 }, async () => {
    const rollup = testRollupConfig({ l2_chain_id: 901n });
    const l1 = new FakeL1(6);
    const engine = new HeldEngine(rollup);
    const factory = async (): Promise<ChainService> => {
      const builder = fakeAttributesBuilder(rollup, l1);
      const safeDb = new MemorySafeDb();
      const cn = await ChainNode.create(toyNodeConfig(rollup), {
        l1,
        engine,
        safeDb,
        clock: systemClock,
        logger: testLogger,
        createPipeline: () => new ToyPipeline(rollup, l1, builder),
        attributesBuilder: builder,
        refFromPayload: engine.refOf,
      });
      return {
        methods: chainMethodTable(createChainRpcMethods(cn, { version: "test" }), undefined, true),
        exited: new Promise<void>(() => {}),
        start: () => cn.start(),
        stop: () => cn.stop(),
        syncStatus: async () => cn.syncStatus(),
        health: () => cn.health(),
      } as unknown as ChainService;
    };
    const cfgs = new Map([[901n, factory]]);
    const sn = await start(cfgs, true);
    const url = `${sn.rpc.url}/901/`;
    await waitFor(
      async () =>
        ((await rpc(url, "stack_syncStatus")).result as { safe_l2: { number: number } } | undefined)?.safe_l2.number ===
        6,
    );
    let release!: () => void;
    engine.held = new Promise<void>((r) => (release = r));
    const reset = pending(url, "admin_resetDerivationPipeline");
    await waitFor(() => engine.reached > 0); // the reset is finding the heads
    const during = await rpc(url, "stack_syncStatus");
    expect((during.result as { safe_l2: { number: number } }).safe_l2.number).toBe(6);
    expect(reset.settled).toBe(false);
    engine.held = undefined;
    release();
    expect((await reset.answer).result).toBeNull();
    expect(sn.supervisors.get("901")!.state).toBe("running");
  });
});
