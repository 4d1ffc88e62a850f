import { afterEach, describe, expect, it } from "vitest";
import { startToyNode, toyNodeConfig } from "./toy-node.js";
import type { ChainNode } from "../../../src/node/chain-node.js";
import { concat, keccak256 } from "viem";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import { toRpcError } from "../../../src/rpc/errors.js";
import type { MethodTable } from "../../../src/rpc/method-table.js";
import { FakeEngine, FakeL1, testRollupConfig, waitFor } from "./fakes.js";

const cfg = testRollupConfig();
let node: ChainNode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

async function setup(sequencer = false): Promise<{ table: MethodTable; engine: FakeEngine; n: ChainNode }> {
  const l1 = new FakeL1(5);
  const engine = new FakeEngine(cfg);
  node = await startToyNode({
    l1,
    engine,
    config: toyNodeConfig(cfg, { engineKind: "variant_a", sequencer: { enabled: sequencer, stopped: true } }),
    singlePipeline: true,
  });
  await waitFor(() => node!.syncStatus().safe_l2.number === 5);
  return { table: createChainRpcMethods(node, { version: "v0.1.0-test" }), engine, n: node };
}

async function call(table: MethodTable, method: string, params: unknown[] = []): Promise<unknown> {
  const spec = table.get(method);
  if (spec === undefined) throw new Error(`no method ${method}`);
  return spec.handler(params, {});
}

async function callErr(table: MethodTable, method: string, params: unknown[] = []) {
  try {
    await call(table, method, params);
  } catch (err) {
    return toRpcError(err);
  }
  throw new Error("expected an error");
}

describe("per-chain RPC handlers", () => {
  it("stack_outputAtBlock returns [version, outputRoot] matching an independent computation (viem keccak)", async () => {
    const { table, engine } = await setup();
    const res = (await call(table, "stack_outputAtBlock", ["0x3"])) as string[];
    expect(res).toHaveLength(2);
    expect(res[0]).toBe(`0x${"00".repeat(32)}`);
    const p = (await engine.payloadByNumber(3))!.executionPayload;
    const storage = (await engine.getProof("0x4200000000000000000000000000000000000016", [], p.blockHash)).storageHash;
    // Not the node's own hashing: keccak256(version ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash) with viem.
    expect(res[1]).toBe(keccak256(concat([`0x${"00".repeat(32)}`, p.stateRoot, storage, p.blockHash])));
    expect(res[1]).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("rejects non-quantity block numbers with -32602 and unknown blocks with an error", async () => {
    const { table } = await setup();
    expect((await callErr(table, "stack_outputAtBlock", [3])).code).toBe(-32602);
    expect((await callErr(table, "stack_outputAtBlock", ["0x03"])).code).toBe(-32602);
    expect((await callErr(table, "stack_outputAtBlock", [])).code).toBe(-32602);
    const e = await callErr(table, "stack_outputAtBlock", ["0x64"]);
    expect(e.message).toContain("not found");
  });

  it("stack_syncStatus has every field of the specification plus the modern extras", async () => {
    const { table } = await setup();
    const s = (await call(table, "stack_syncStatus")) as Record<string, Record<string, unknown>>;
    expect(Object.keys(s)).toEqual([
      "current_l1",
      "current_l1_finalized",
      "head_l1",
      "safe_l1",
      "finalized_l1",
      "unsafe_l2",
      "safe_l2",
      "finalized_l2",
      "pending_safe_l2",
      "queued_unsafe_l2",
      "engine_sync_target",
      "cross_unsafe_l2",
      "local_safe_l2",
    ]);
    expect(Object.keys(s.safe_l2!)).toEqual([
      "hash",
      "number",
      "parentHash",
      "timestamp",
      "l1origin",
      "sequenceNumber",
    ]);
    expect(Object.keys(s.head_l1!)).toEqual(["hash", "number", "parentHash", "timestamp"]);
    expect(s.safe_l2!.number).toBe(5);
  });

  it("stack_rollupConfig, stack_version and stack_safeHeadAtL1Block", async () => {
    const { table } = await setup();
    const rc = (await call(table, "stack_rollupConfig")) as Record<string, unknown>;
    expect(rc.block_time).toBe(2);
    expect(Object.keys(rc)[0]).toBe("genesis");
    expect(await call(table, "stack_version")).toBe("v0.1.0-test");
    const sh = (await call(table, "stack_safeHeadAtL1Block", ["0x4"])) as {
      l1Block: { number: number };
      safeHead: { number: number };
    };
    expect(sh.l1Block.number).toBe(4);
    expect(sh.safeHead.number).toBe(4);
    expect((await callErr(table, "stack_version", [1])).code).toBe(-32602);
  });

  it("admin methods are flagged admin and give the specification's sequencer errors", async () => {
    const { table } = await setup(true);
    for (const m of [
      "admin_startSequencer",
      "admin_stopSequencer",
      "admin_sequencerActive",
      "admin_resetDerivationPipeline",
    ]) {
      expect(table.get(m)?.admin).toBe(true);
    }
    expect(table.get("stack_syncStatus")?.admin).not.toBe(true);
    expect(await call(table, "admin_sequencerActive")).toBe(false);
    const stopErr = await callErr(table, "admin_stopSequencer");
    expect(stopErr).toEqual({ code: -32000, message: "sequencer not running" });
    expect((await callErr(table, "admin_startSequencer", ["0x12"])).code).toBe(-32602);
    expect(await call(table, "admin_startSequencer")).toBeNull();
    expect(await call(table, "admin_sequencerActive")).toBe(true);
    expect(await callErr(table, "admin_startSequencer")).toEqual({
      code: -32000,
      message: "sequencer already running",
    });
    expect(await call(table, "admin_stopSequencer")).toBeNull();
    expect(await call(table, "admin_resetDerivationPipeline")).toBeNull();
  });
});
