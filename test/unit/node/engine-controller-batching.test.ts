import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hex } from "../../../src/core/types/primitives.js";
import { type DerivedAttributes, EngineController } from "../../../src/node/engine/engine-controller.js";
import { genesisL2Ref } from "../../../src/node/engine/heads.js";
import type { ExecutionPayloadEnvelope } from "../../../src/node/ports.js";
import { derivedChild, genesisOrigin } from "./derived-fixture.js";
import { FakeEngine, fakeRefFromPayload, OpsEngine, testRollupConfig } from "./fakes.js";

const cfg = testRollupConfig();
const origin = genesisOrigin(cfg);
const derived = (parent: L2BlockRef, txs: Hex[] = []): DerivedAttributes => derivedChild(cfg, origin, parent, txs);

function rig(engine: OpsEngine) {
  const safeReports: number[] = [];
  const ctl = new EngineController({
    engine,
    cfg,
    logger: silentLogger,
    refFromPayload: fakeRefFromPayload(cfg),
    onSafeHead: async (safe) => {
      safeReports.push(safe.number);
    },
  });
  return { ctl, safeReports };
}

async function deriveChain(ctl: EngineController, n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect(await ctl.applyDerived(derived(ctl.heads.pendingSafe))).toBe("built");
  await ctl.flushForkchoice();
}

describe("EngineController: an adopted block's newPayload rides with the next forkchoice update", () => {
  it("sends newPayload with the child's build start as one operation (two operations per built block)", async () => {
    const engine = new OpsEngine(cfg);
    const { ctl, safeReports } = rig(engine);
    await deriveChain(ctl, 3);
    expect(engine.ops).toEqual([
      "startBuild",
      "getPayload",
      "startBuild(newPayload)",
      "getPayload",
      "startBuild(newPayload)",
      "getPayload",
      "insertAsHead",
    ]);
    expect(safeReports).toEqual([1, 2, 3]);
    expect(engine.canonical).toHaveLength(4);
    expect(engine.safe).toBe(ctl.heads.safe.hash);
    expect(ctl.publishedHeads.safe).toEqual(ctl.heads.safe);
  });

  it("an INVALID verdict in the build start restores the heads and asks for a reset; the child is not started", async () => {
    const engine = new OpsEngine(cfg);
    const { ctl, safeReports } = rig(engine);
    const genesis = genesisL2Ref(cfg);
    engine.poison.add("0x02bad0");
    expect(await ctl.applyDerived(derived(genesis, ["0x02bad0"]))).toBe("built");
    const b1 = ctl.heads.pendingSafe;
    await expect(ctl.applyDerived(derived(b1))).rejects.toMatchObject({ code: "SPECULATIVE_INSERT_FAILED" });
    expect(ctl.heads.safe.hash).toBe(genesis.hash);
    expect(ctl.heads.unsafe.hash).toBe(genesis.hash);
    expect(safeReports).toEqual([]);
    // No block was built on the rejected one.
    expect(engine.ops.filter((r) => r === "getPayload")).toHaveLength(1);
    // Re-derived after the reset: inserted synchronously, "invalid" decided there.
    await ctl.forceReset(genesis, genesis, genesis);
    expect(await ctl.applyDerived(derived(genesis, ["0x02bad0"]))).toBe("invalid");
    expect(await ctl.applyDerived(derived(genesis))).toBe("built");
    await ctl.flushForkchoice();
    expect(safeReports).toEqual([1]);
  });

  it("any other engine operation sends the held newPayload on its own first", async () => {
    const engine = new OpsEngine(cfg);
    const { ctl, safeReports } = rig(engine);
    const genesis = genesisL2Ref(cfg);
    expect(await ctl.applyDerived(derived(genesis))).toBe("built");
    await ctl.loadHeadsFromEngine();
    expect(engine.ops).toEqual(["startBuild", "getPayload", "newPayload"]);
    expect(safeReports).toEqual([1]);
  });
});

/** An EL that answers getPayload with another block than the one asked for. */
class MixedUpEngine extends FakeEngine {
  tamper:
    | ((p: ExecutionPayloadEnvelope["executionPayload"]) => ExecutionPayloadEnvelope["executionPayload"])
    | undefined;
  override async getPayload(id: Hex) {
    const env = await super.getPayload(id);
    return this.tamper === undefined ? env : { ...env, executionPayload: this.tamper(env.executionPayload) };
  }
}

describe("EngineController: the sealed payload is the one asked for", () => {
  const cases: [
    string,
    (p: ExecutionPayloadEnvelope["executionPayload"]) => ExecutionPayloadEnvelope["executionPayload"],
  ][] = [
    ["another parent", (p) => ({ ...p, parentHash: `0x${"99".repeat(32)}` })],
    ["another number", (p) => ({ ...p, blockNumber: p.blockNumber + 1 })],
    ["another timestamp", (p) => ({ ...p, timestamp: p.timestamp + 2 })],
    ["a transaction missing", (p) => ({ ...p, transactions: p.transactions.slice(0, -1) })],
    ["another transaction", (p) => ({ ...p, transactions: [...p.transactions.slice(0, -1), "0x02beef"] })],
  ];
  for (const [name, tamper] of cases) {
    it(`a payload with ${name} is not adopted (temporary error; the attributes are kept for a retry)`, async () => {
      const engine = new MixedUpEngine(cfg);
      const ctl = new EngineController({ engine, cfg, logger: silentLogger, refFromPayload: fakeRefFromPayload(cfg) });
      const genesis = genesisL2Ref(cfg);
      engine.tamper = tamper;
      const attrs = derived(genesis, ["0x02cafe"]);
      await expect(ctl.applyDerived(attrs)).rejects.toMatchObject({
        code: "ENGINE_WRONG_PAYLOAD",
        severity: "temporary",
      });
      expect(ctl.heads.unsafe.hash).toBe(genesis.hash);
      expect(engine.calls.newPayload ?? 0).toBe(0);
      engine.tamper = undefined;
      expect(await ctl.applyDerived(attrs)).toBe("built");
    });
  }

  it("upper-case hex from the EL is the same transaction", async () => {
    const engine = new MixedUpEngine(cfg);
    const ctl = new EngineController({ engine, cfg, logger: silentLogger, refFromPayload: fakeRefFromPayload(cfg) });
    engine.tamper = (p) => ({ ...p, transactions: p.transactions.map((t) => `0x${t.slice(2).toUpperCase()}` as Hex) });
    expect(await ctl.applyDerived(derived(genesisL2Ref(cfg), ["0x02cafe"]))).toBe("built");
  });

  it("a sequenced block may hold pool transactions after the forced ones", async () => {
    const engine = new MixedUpEngine(cfg);
    const ctl = new EngineController({ engine, cfg, logger: silentLogger, refFromPayload: fakeRefFromPayload(cfg) });
    const genesis = genesisL2Ref(cfg);
    engine.tamper = (p) => ({ ...p, transactions: [...p.transactions, "0x02f00d"] });
    const d = derived(genesis);
    const built = await ctl.buildAndInsert(
      { ...d.attributes, fields: { ...d.attributes.fields, noTxPool: false } },
      genesis,
      d,
    );
    expect(built?.envelope.executionPayload.transactions.at(-1)).toBe("0x02f00d");
  });
});

describe("EngineController: a sequenced block is inserted together with the update that makes it head", () => {
  const sequence = async (ctl: EngineController) => {
    const parent = ctl.heads.unsafe;
    const d = derived(parent);
    const built = await ctl.buildAndInsert(
      { ...d.attributes, fields: { ...d.attributes.fields, noTxPool: false } },
      parent,
      d,
    );
    expect(built).toBeDefined();
    await ctl.flushForkchoice(); // what the sequencer does before publishing
    return built!;
  };

  it("three operations per sequenced block; the flush that follows has nothing to send", async () => {
    const engine = new OpsEngine(cfg);
    const { ctl } = rig(engine);
    const b1 = await sequence(ctl);
    await sequence(ctl);
    expect(engine.ops).toEqual([
      "startBuild",
      "getPayload",
      "insertAsHead",
      "startBuild",
      "getPayload",
      "insertAsHead",
    ]);
    expect(engine.canonical).toHaveLength(3);
    expect(engine.canonical[1]).toBe(b1.ref.hash);
    expect(ctl.publishedHeads.unsafe).toEqual(ctl.heads.unsafe);
  });

  it("an INVALID payload is not built on and the heads stay", async () => {
    const engine = new OpsEngine(cfg);
    const { ctl } = rig(engine);
    const genesis = genesisL2Ref(cfg);
    engine.poison.add("0x02bad0");
    const d = derived(genesis, ["0x02bad0"]);
    expect(
      await ctl.buildAndInsert({ ...d.attributes, fields: { ...d.attributes.fields, noTxPool: false } }, genesis, d),
    ).toBeUndefined();
    expect(ctl.heads.unsafe.hash).toBe(genesis.hash);
    expect(engine.canonical).toHaveLength(1);
  });
});
