/**
 * The build start with getPayload in the same request (docs/performance.md), against a fake EL whose batch fails in the
 * ways an EL's can: refused as a whole, failed in transport, or the build start itself rejected. The batched
 * getPayload's error is never taken for the build's, and a refused batch falls back to calls on their own.
 */
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import { EngineController } from "../../../src/node/engine/engine-controller.js";
import type { BuildStartRequest, BuildStartResult, PayloadAttributes } from "../../../src/node/ports.js";
import { derivedChild, genesisOrigin } from "./derived-fixture.js";
import { FakeEngine, fakeRefFromPayload, testRollupConfig } from "./fakes.js";

const cfg = testRollupConfig();
const origin = genesisOrigin(cfg);

type Mode = "in-order" | "refused" | "transport" | "attributes-invalid";

const rpcError = (message: string, rpcCode: number) =>
  Object.assign(new Error(message), { code: "RPC_ERROR", rpcCode });

/** A fake EL taking `[newPayload], forkchoiceUpdated, getPayload` as one request; ids are its counter's. */
class PredictingEngine extends FakeEngine {
  requests: string[] = [];
  batchesEngineCalls = true;
  stopReasons: string[] = [];
  predictionStops: string[] = [];
  private builds = 0;

  constructor(readonly mode: Mode) {
    super(cfg);
  }

  override async forkchoiceUpdated(state: Parameters<FakeEngine["forkchoiceUpdated"]>[0], attrs?: PayloadAttributes) {
    this.requests.push(attrs === undefined ? "fcu" : "fcu+attrs");
    if (attrs !== undefined) this.builds++;
    return super.forkchoiceUpdated(state, attrs);
  }
  override async newPayload(env: Parameters<FakeEngine["newPayload"]>[0]) {
    this.requests.push("newPayload");
    return super.newPayload(env);
  }
  override async getPayload(id: Hex) {
    this.requests.push("getPayload");
    return super.getPayload(id);
  }

  predictPayloadId(_parent: Hash, _attrs: PayloadAttributes): Hex | undefined {
    if (!this.batchesEngineCalls || this.predictionStops.length > 0) return undefined;
    return `0x${(this.builds + 1).toString(16).padStart(16, "0")}`;
  }
  stopPredictingPayloadIds(reason: string) {
    this.predictionStops.push(reason);
  }
  stopBatchingEngineCalls(reason: string) {
    this.batchesEngineCalls = false;
    this.stopReasons.push(reason);
  }

  async newPayloadAndForkchoice(env: Parameters<FakeEngine["newPayload"]>[0], state: BuildStartRequest["state"]) {
    this.requests.push("batch(newPayload,fcu)");
    return [await super.newPayload(env), await super.forkchoiceUpdated(state)] as const;
  }

  async buildStartWithPayload(req: BuildStartRequest): Promise<BuildStartResult> {
    this.requests.push(`batch(${req.held === undefined ? "" : "newPayload,"}fcu+attrs,getPayload)`);
    if (this.mode === "refused") {
      const err = rpcError("batch requests are not supported", -32600);
      return { newPayload: err, forkchoice: err, payload: err };
    }
    if (this.mode === "transport") throw Object.assign(new Error("socket hang up"), { code: "RPC_NETWORK" });
    const newPayload = req.held === undefined ? undefined : await super.newPayload(req.held);
    if (this.mode === "attributes-invalid") {
      return {
        ...(newPayload === undefined ? {} : { newPayload }),
        forkchoice: rpcError("Invalid payload attributes", -38003),
        payload: rpcError("Unknown payload", -38001),
      };
    }
    this.builds++;
    const forkchoice = await super.forkchoiceUpdated(req.state, req.attrs);
    const payload = await super.getPayload(req.payloadId).catch((e: Error) => e);
    return { ...(newPayload === undefined ? {} : { newPayload }), forkchoice, payload };
  }
}

function rig(mode: Mode) {
  const engine = new PredictingEngine(mode);
  const ctl = new EngineController({ engine, cfg, logger: silentLogger, refFromPayload: fakeRefFromPayload(cfg) });
  const derive = (parent: L2BlockRef) => ctl.applyDerived(derivedChild(cfg, origin, parent));
  return { engine, ctl, derive };
}

describe("EngineController: getPayload in the build-start batch (fake EL)", () => {
  it("in order: one request per derived block", async () => {
    const { engine, ctl, derive } = rig("in-order");
    for (let i = 0; i < 3; i++) expect(await derive(ctl.heads.pendingSafe)).toBe("built");
    await ctl.flushForkchoice();
    expect(engine.requests).toEqual([
      "batch(fcu+attrs,getPayload)",
      "batch(newPayload,fcu+attrs,getPayload)",
      "batch(newPayload,fcu+attrs,getPayload)",
      "batch(newPayload,fcu)",
    ]);
    expect(engine.canonical).toHaveLength(4);
    expect(engine.predictionStops).toEqual([]);
  });

  it("a refused batch: batching stops, the build start and getPayload go on their own", async () => {
    const { engine, ctl, derive } = rig("refused");
    for (let i = 0; i < 2; i++) expect(await derive(ctl.heads.pendingSafe)).toBe("built");
    await ctl.flushForkchoice();
    expect(engine.stopReasons).toHaveLength(1);
    expect(engine.requests).toEqual([
      "batch(fcu+attrs,getPayload)",
      "fcu+attrs",
      "getPayload",
      "newPayload",
      "fcu+attrs",
      "getPayload",
      "newPayload",
      "fcu",
    ]);
    expect(engine.canonical).toHaveLength(3);
  });

  it("a transport failure is the build start's failure (temporary), not a reason to stop batching", async () => {
    const { engine, ctl, derive } = rig("transport");
    await expect(derive(ctl.heads.pendingSafe)).rejects.toMatchObject({ severity: "temporary" });
    expect(engine.stopReasons).toEqual([]);
    expect(engine.predictionStops).toEqual([]);
  });

  it("attributes rejected by the build start: invalid, whatever the batched getPayload said", async () => {
    const { engine, ctl, derive } = rig("attributes-invalid");
    expect(await derive(ctl.heads.pendingSafe)).toBe("invalid");
    expect(engine.predictionStops).toEqual([]);
    expect(engine.stopReasons).toEqual([]);
    expect(engine.requests).toEqual(["batch(fcu+attrs,getPayload)"]);
  });
});
