import { afterEach, describe, expect, it } from "vitest";
import { startToyNode, toyNodeConfig } from "../node/toy-node.js";
import { toQuantity } from "../../../src/core/codec/quantity.js";
import type { ChainNode } from "../../../src/node/chain-node.js";
import type { ExecutionPayload } from "../../../src/node/ports.js";
import { computePayloadBlockHash } from "../../../src/protocol/block/payload-hash.js";
import { toRpcError } from "../../../src/rpc/errors.js";
import type { MethodTable } from "../../../src/rpc/method-table.js";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import { FakeEngine, FakeL1, fakeL1InfoTx, h, testRollupConfig, waitFor } from "../node/fakes.js";

const cfg = testRollupConfig();
let node: ChainNode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

async function setup(sequencer: boolean, rollup = cfg) {
  const l1 = new FakeL1(5);
  const engine = new FakeEngine(rollup);
  node = await startToyNode({
    l1,
    engine,
    config: toyNodeConfig(rollup, { sequencer: { enabled: sequencer, stopped: true } }),
  });
  const n = node;
  await waitFor(() => n.syncStatus().safe_l2.number === 5);
  return { table: createChainRpcMethods(n, { version: "v0.1.0-test" }), engine, l1, n };
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

/** A payload on top of `parent` with a correct block hash, and its JSON (op-node's envelope encoding). */
function postedPayload(
  parent: { hash: `0x${string}`; number: number; timestamp: number },
  l1Origin: { hash: `0x${string}`; number: number },
) {
  const p: Omit<ExecutionPayload, "blockHash"> = {
    parentHash: parent.hash,
    feeRecipient: "0x4200000000000000000000000000000000000011",
    stateRoot: h("posted-state"),
    receiptsRoot: h("posted-receipts"),
    logsBloom: `0x${"00".repeat(256)}`,
    prevRandao: h("posted-randao"),
    blockNumber: parent.number + 1,
    gasLimit: 30_000_000n,
    gasUsed: 50_000n,
    timestamp: parent.timestamp + 2,
    extraData: "0x",
    baseFeePerGas: 7n,
    transactions: [fakeL1InfoTx(l1Origin, 0)],
    withdrawals: [],
  };
  const blockHash = computePayloadBlockHash({ ...p, blockHash: h("unused"), withdrawals: [] } as never);
  const json = {
    executionPayload: {
      parentHash: p.parentHash,
      feeRecipient: p.feeRecipient,
      stateRoot: p.stateRoot,
      receiptsRoot: p.receiptsRoot,
      logsBloom: p.logsBloom,
      prevRandao: p.prevRandao,
      blockNumber: toQuantity(p.blockNumber),
      gasLimit: toQuantity(p.gasLimit),
      gasUsed: toQuantity(p.gasUsed!),
      timestamp: toQuantity(p.timestamp),
      extraData: p.extraData,
      baseFeePerGas: toQuantity(p.baseFeePerGas!),
      blockHash,
      transactions: p.transactions,
      withdrawals: [],
    },
  };
  return { blockHash, json };
}

describe("admin_postUnsafePayload", () => {
  it("checks the block hash and queues the payload like a gossiped block; the node inserts it", async () => {
    const { table, engine, n } = await setup(false);
    expect(table.get("admin_postUnsafePayload")?.admin).toBe(true);
    const head = n.syncStatus().unsafe_l2;
    const { blockHash, json } = postedPayload(head, head.l1origin);
    expect(await call(table, "admin_postUnsafePayload", [json])).toBeNull();
    await waitFor(() => n.syncStatus().unsafe_l2.hash === blockHash);
    expect(n.syncStatus().unsafe_l2.number).toBe(6);
    expect(engine.canonical[6]).toBe(blockHash);
    // Posting it again is harmless (a duplicate of the head is dropped).
    expect(await call(table, "admin_postUnsafePayload", [json])).toBeNull();
  });

  it("a wrong block hash is op-node's -32000 error; malformed envelopes are -32602 naming the field", async () => {
    const { table, n } = await setup(false);
    const head = n.syncStatus().unsafe_l2;
    const { blockHash, json } = postedPayload(head, head.l1origin);
    const claimed = h("claimed");
    const wrong = { executionPayload: { ...json.executionPayload, blockHash: claimed } };
    expect(await callErr(table, "admin_postUnsafePayload", [wrong])).toEqual({
      code: -32000,
      message: `payload has bad block hash: ${claimed}, actual block hash is: ${blockHash}`,
    });
    const { receiptsRoot: _r, ...noReceipts } = json.executionPayload;
    const cases: [unknown[], string][] = [
      [[], "expected 1 argument"],
      [[json, json], "expected 1 argument"],
      [["0x12"], "the payload envelope must be an object"],
      [[{}], "executionPayload must be an object"],
      [[{ executionPayload: noReceipts }], "missing executionPayload.receiptsRoot"],
      [
        [{ executionPayload: { ...json.executionPayload, blockNumber: 6 } }],
        "executionPayload.blockNumber must be a hex quantity",
      ],
      [
        [{ executionPayload: { ...json.executionPayload, parentHash: "0x12" } }],
        "executionPayload.parentHash must be 32 bytes",
      ],
      [[{ executionPayload: { ...json.executionPayload, transactions: ["zz"] } }], "executionPayload.transactions[0]"],
      [[{ ...json, parentBeaconBlockRoot: "0x1" }], "parentBeaconBlockRoot must be a 32-byte hash"],
    ];
    for (const [params, msg] of cases) {
      const err = await callErr(table, "admin_postUnsafePayload", params);
      expect(err.code).toBe(-32602);
      expect(err.message).toContain(msg);
    }
    expect(n.syncStatus().unsafe_l2.number).toBe(5);
  });
});

describe("admin_setRecoverMode", () => {
  it("sets the sequencer's recover mode; -32602 for anything but one boolean", async () => {
    const { table, n } = await setup(true);
    expect(table.get("admin_setRecoverMode")?.admin).toBe(true);
    expect(await call(table, "admin_setRecoverMode", [true])).toBeNull();
    expect(n.sequencerRecoverMode).toBe(true);
    expect(await call(table, "admin_setRecoverMode", [false])).toBeNull();
    expect(n.sequencerRecoverMode).toBe(false);
    for (const params of [[], ["true"], [1], [true, false]]) {
      expect((await callErr(table, "admin_setRecoverMode", params)).code).toBe(-32602);
    }
  });

  it("is a no-op without the sequencer (as op-node)", async () => {
    const { table, n } = await setup(false);
    expect(await call(table, "admin_setRecoverMode", [true])).toBeNull();
    expect(n.sequencerRecoverMode).toBe(false);
  });
});

describe("admin_setSdmPostExecOptIn and admin_sdmStatus (Sequencer-Defined Metering, Lagoon)", () => {
  it("the opt-in, whether SDM is active at the next block, both, and Lagoon's time", async () => {
    // Lagoon two blocks after the block after the safe/unsafe head (block 5): not yet active for block 6.
    const lagoon = cfg.genesis.l2_time + 8 * cfg.block_time;
    const { table, n } = await setup(true, testRollupConfig({ lagoon_time: lagoon }));
    expect(n.syncStatus().unsafe_l2.number).toBe(5);
    expect(table.get("admin_sdmStatus")?.admin).toBe(true);
    expect(table.get("admin_setSdmPostExecOptIn")?.admin).toBe(true);
    expect(await call(table, "admin_sdmStatus")).toEqual({
      postExecOptIn: false,
      protocolActive: false,
      effective: false,
      activationTime: lagoon,
    });
    expect(await call(table, "admin_setSdmPostExecOptIn", [true])).toBeNull();
    expect(await call(table, "admin_sdmStatus")).toMatchObject({ postExecOptIn: true, effective: false });
    for (const params of [[], ["true"], [true, 1]]) {
      expect((await callErr(table, "admin_setSdmPostExecOptIn", params)).code).toBe(-32602);
    }
    expect((await callErr(table, "admin_sdmStatus", [1])).code).toBe(-32602);
  });

  it("active from the block at Lagoon's time on; no activationTime when unscheduled", async () => {
    const { table } = await setup(true, testRollupConfig({ lagoon_time: cfg.genesis.l2_time }));
    await call(table, "admin_setSdmPostExecOptIn", [true]);
    expect(await call(table, "admin_sdmStatus")).toEqual({
      postExecOptIn: true,
      protocolActive: true,
      effective: true,
      activationTime: cfg.genesis.l2_time,
    });
    await node?.stop();
    const plain = await setup(true);
    expect(await call(plain.table, "admin_sdmStatus")).toEqual({
      postExecOptIn: false,
      protocolActive: false,
      effective: false,
    });
  });

  it("without the sequencer: `sequencer is not enabled`", async () => {
    const { table } = await setup(false);
    for (const [m, p] of [
      ["admin_sdmStatus", []],
      ["admin_setSdmPostExecOptIn", [true]],
    ] as const) {
      expect(await callErr(table, m, [...p])).toEqual({ code: -32000, message: "sequencer is not enabled" });
    }
  });
});

describe("admin sequencer state machine errors over RPC", () => {
  it("a wrong expected hash, start while running and stop while stopped are clear -32000 errors", async () => {
    const { table, n } = await setup(true);
    const head = n.syncStatus().unsafe_l2;
    const wrong = `0x${"11".repeat(32)}`;
    expect(await callErr(table, "admin_startSequencer", [wrong])).toEqual({
      code: -32000,
      message: `block hash does not match: head ${head.hash}:${head.number}, received ${wrong}`,
    });
    expect(await callErr(table, "admin_stopSequencer")).toEqual({ code: -32000, message: "sequencer not running" });
    expect(await call(table, "admin_startSequencer", [head.hash])).toBeNull();
    expect(await callErr(table, "admin_startSequencer", [head.hash])).toEqual({
      code: -32000,
      message: "sequencer already running",
    });
    expect(await call(table, "admin_stopSequencer")).toBeNull();
    expect(await callErr(table, "admin_stopSequencer")).toEqual({ code: -32000, message: "sequencer not running" });
  });

  it("a node without the sequencer answers `sequencer is not enabled`", async () => {
    const { table } = await setup(false);
    for (const m of ["admin_startSequencer", "admin_stopSequencer"]) {
      expect(await callErr(table, m)).toEqual({ code: -32000, message: "sequencer is not enabled" });
    }
    expect(await call(table, "admin_sequencerActive")).toBe(false);
  });
});
