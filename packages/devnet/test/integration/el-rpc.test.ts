import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, parseAbi } from "viem";
import { bytesToHex, type Hash, type Hex } from "supernode/core";
import { encodeRpcTransaction } from "supernode/protocol";
import type { SimulatedExecutionClient } from "../../src/el/index.js";
import {
  ALICE,
  BOB,
  DEPOSIT_FROM,
  GENESIS_TIME,
  buildAndSeal,
  call,
  engine,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  newPayloadParams,
  rpc,
  signTransfer,
  startEl,
  userDeposit,
} from "../support/el-support.js";

const MESSAGE_PASSER = "0x4200000000000000000000000000000000000016";
const MESSAGE_PASSED = "0x02a52367d10742d8032712c1bb8e0144ff1ec5ffda1ed7d70bb05a2744955054";

describe("simulated execution client: JSON-RPC of both variants", () => {
  let a: SimulatedExecutionClient;
  let b: SimulatedExecutionClient;
  let payload: Record<string, unknown>;
  let transferHash: Hash;
  let withdrawalHash: Hash;
  let depositHash: Hash;

  beforeAll(async () => {
    a = await startEl({ variant: "a", api: ["eth", "net", "web3", "txpool", "debug", "trace"] });
    b = await startEl({ variant: "b", api: ["eth", "net", "web3", "debug", "trace"] });
    // two user transactions through A's pool; the block is built on A and imported by B
    const t1 = await signTransfer({ nonce: 0, value: 12345n });
    const data = encodeFunctionData({
      abi: parseAbi(["function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data)"]),
      args: [BOB, 100_000n, "0x1234"],
    });
    const t2 = await signTransfer({ nonce: 1, to: MESSAGE_PASSER, value: 777n, data, gas: 100_000n });
    transferHash = await call<Hash>(a.httpUrl, "eth_sendRawTransaction", [t1]);
    withdrawalHash = await call<Hash>(a.httpUrl, "eth_sendRawTransaction", [t2]);
    expect(await call(a.httpUrl, "txpool_status")).toEqual({ pending: "0x2", queued: "0x0" });
    const ts = GENESIS_TIME + 2;
    const dep = userDeposit(BOB, 10n ** 18n, 5n, "rpc-dep");
    const attrs = jovianAttrs(
      ts,
      [l1InfoDeposit(l1InfoJovian({ number: 50, time: ts - 1, seq: 0, baseFee: 10n ** 9n }), 1), dep],
      {
        noTxPool: false,
      },
    );
    payload = await buildAndSeal(a, attrs);
    expect((payload.transactions as Hex[]).length).toBe(4);
    const np = await engine<{ status: string }>(b, "engine_newPayloadV4", newPayloadParams(payload, 4));
    expect(np.status).toBe("VALID");
    await engine(b, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: payload.blockHash, safeBlockHash: payload.blockHash, finalizedBlockHash: payload.blockHash },
      null,
    ]);
    depositHash = (await call<{ transactions: Hash[] }>(b.httpUrl, "eth_getBlockByNumber", ["0x1", false]))
      .transactions[1]!;
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it("eth_syncing: a sync object with stages on A, false on B", async () => {
    const sa = await call<Record<string, unknown>>(a.httpUrl, "eth_syncing");
    expect(sa).toMatchObject({ startingBlock: "0x0", currentBlock: "0x1", highestBlock: "0x1" });
    const names = (sa.stages as { name: string; block: string }[]).map((s) => s.name);
    for (const n of ["Headers", "Bodies", "Execution", "MerkleExecute", "Finish"]) expect(names).toContain(n);
    expect(await call(b.httpUrl, "eth_syncing")).toBe(false);
  });

  it("rpc_modules: -32601 Method not found on A, the namespace map on B (without trace, which B does not serve)", async () => {
    const ra = await rpc(a.httpUrl, "rpc_modules");
    expect(ra.error).toEqual({ code: -32601, message: "Method not found" });
    const mb = await call<Record<string, string>>(b.httpUrl, "rpc_modules");
    expect(Object.keys(mb).sort()).toEqual(["debug", "eth", "net", "rpc", "web3"]);
  });

  it("web3_clientVersion names the variant", async () => {
    expect(await call<string>(a.httpUrl, "web3_clientVersion")).toMatch(/^sim-variant-a\//);
    expect(await call<string>(b.httpUrl, "web3_clientVersion")).toMatch(/^sim-variant-b\//);
  });

  it("block objects carry each variant's field set", async () => {
    const ba = await call<Record<string, unknown>>(a.httpUrl, "eth_getBlockByNumber", ["latest", false]);
    const bb = await call<Record<string, unknown>>(b.httpUrl, "eth_getBlockByNumber", ["latest", false]);
    expect(ba.hash).toBe(bb.hash);
    for (const f of [
      "hash",
      "parentHash",
      "miner",
      "number",
      "gasLimit",
      "gasUsed",
      "timestamp",
      "baseFeePerGas",
      "withdrawalsRoot",
      "blobGasUsed",
      "excessBlobGas",
      "parentBeaconBlockRoot",
      "requestsHash",
      "transactions",
      "withdrawals",
    ])
      expect(ba).toHaveProperty(f);
    expect(ba).not.toHaveProperty("totalDifficulty");
    for (const f of [
      "difficulty",
      "extraData",
      "gasLimit",
      "gasUsed",
      "hash",
      "logsBloom",
      "miner",
      "mixHash",
      "nonce",
      "number",
      "parentHash",
      "receiptsRoot",
      "sha3Uncles",
      "size",
      "stateRoot",
      "timestamp",
      "totalDifficulty",
      "transactions",
      "transactionsRoot",
      "uncles",
    ])
      expect(bb).toHaveProperty(f);
    expect(Object.keys(bb)).toEqual([...Object.keys(bb)].sort());
    expect(ba.transactions).toEqual(bb.transactions);
    expect((ba.transactions as unknown[]).every((t) => typeof t === "string")).toBe(true);
    const full = await call<{ transactions: Record<string, unknown>[] }>(a.httpUrl, "eth_getBlockByNumber", [
      "0x1",
      true,
    ]);
    expect(full.transactions[2]).toMatchObject({
      hash: transferHash,
      from: ALICE,
      to: BOB,
      value: "0x3039",
      type: "0x2",
    });
  });

  it("transaction objects of both variants re-encode to the block's exact transaction bytes", async () => {
    for (const el of [a, b]) {
      const full = await call<{ transactions: unknown[] }>(el.httpUrl, "eth_getBlockByNumber", ["0x1", true]);
      expect(full.transactions.map((t) => bytesToHex(encodeRpcTransaction(t)))).toEqual(payload.transactions);
    }
  });

  it("deposit transactions carry their extra fields and zero signature values", async () => {
    for (const el of [a, b]) {
      const tx = await call<Record<string, unknown>>(el.httpUrl, "eth_getTransactionByHash", [depositHash]);
      expect(tx).toMatchObject({
        type: "0x7e",
        from: DEPOSIT_FROM,
        to: BOB,
        mint: "0xde0b6b3a7640000",
        value: "0x5",
        gas: "0x186a0",
        depositReceiptVersion: "0x1",
        gasPrice: "0x0",
        r: "0x0",
        s: "0x0",
        v: "0x0",
        yParity: "0x0",
        blockNumber: "0x1",
        transactionIndex: "0x1",
      });
      expect(tx.sourceHash).toMatch(/^0x[0-9a-f]{64}$/);
      const rc = await call<Record<string, unknown>>(el.httpUrl, "eth_getTransactionReceipt", [depositHash]);
      expect(rc).toMatchObject({
        type: "0x7e",
        status: "0x1",
        depositNonce: "0x0",
        depositReceiptVersion: "0x1",
        l1Fee: "0x0",
      });
    }
  });

  it("receipts carry the V2 L1 fee fields (no l1FeeScalar) and variant A adds blobGasUsed", async () => {
    const ra = await call<Record<string, unknown>>(a.httpUrl, "eth_getTransactionReceipt", [transferHash]);
    const rb = await call<Record<string, unknown>>(b.httpUrl, "eth_getTransactionReceipt", [transferHash]);
    for (const r of [ra, rb]) {
      expect(r).toMatchObject({ status: "0x1", gasUsed: "0x5208", from: ALICE, to: BOB, l1GasPrice: "0x3b9aca00" });
      expect(BigInt(r.l1Fee as string)).toBeGreaterThan(0n);
      expect(BigInt(r.l1GasUsed as string)).toBeGreaterThan(0n);
      expect(r).toMatchObject({
        l1BaseFeeScalar: "0x558",
        l1BlobBaseFeeScalar: "0xc5fc5",
        l1BlobBaseFee: "0x1",
        daFootprintGasScalar: "0x190",
      });
      expect(r).not.toHaveProperty("l1FeeScalar");
    }
    expect(ra).toHaveProperty("blobGasUsed");
    expect(rb).not.toHaveProperty("blobGasUsed");
    // Jovian: the block's blobGasUsed is its DA footprint
    const blk = await call<Record<string, string>>(a.httpUrl, "eth_getBlockByNumber", ["0x1", false]);
    expect(BigInt(blk.blobGasUsed!)).toBeGreaterThan(0n);
    // balances: value and gas moved
    expect(await call(b.httpUrl, "eth_getBalance", [BOB, "latest"])).toBe(`0x${(5n + 12345n).toString(16)}`);
    expect(await call(b.httpUrl, "eth_getTransactionCount", [ALICE, "latest"])).toBe("0x2");
  });

  it("eth_sendRawTransaction answers -32602 to undecodable payloads", async () => {
    for (const el of [a, b]) {
      for (const bad of ["0x1234", "0x", "zz", `0x02${"ff".repeat(40)}`]) {
        const r = await rpc(el.httpUrl, "eth_sendRawTransaction", [bad]);
        expect(r.error).toEqual({ code: -32602, message: "failed to decode signed transaction" });
      }
    }
    const stale = await rpc(a.httpUrl, "eth_sendRawTransaction", [await signTransfer({ nonce: 0 })]);
    // reth's wording and code on A (geth's on B: el-developer.test.ts)
    expect(stale.error).toEqual({ code: -32003, message: "nonce too low: next nonce 2, tx nonce 0" });
  });

  it("eth_getLogs finds MessagePassed of the withdrawal; empty array when nothing matches", async () => {
    const logs = await call<Record<string, unknown>[]>(b.httpUrl, "eth_getLogs", [
      { fromBlock: "0x0", toBlock: "latest", address: MESSAGE_PASSER },
    ]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      address: MESSAGE_PASSER,
      transactionHash: withdrawalHash,
      blockNumber: "0x1",
      logIndex: "0x0",
      removed: false,
    });
    expect((logs[0]!.topics as string[])[0]).toBe(MESSAGE_PASSED);
    expect(await call(b.httpUrl, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: BOB }])).toEqual([]);
  });

  it("eth_getProof returns the message passer's storage root, which is the Isthmus withdrawalsRoot", async () => {
    const blk = await call<Record<string, string>>(b.httpUrl, "eth_getBlockByNumber", ["latest", false]);
    const proof = await call<Record<string, string>>(b.httpUrl, "eth_getProof", [MESSAGE_PASSER, [], "latest"]);
    expect(proof.storageHash).toBe(blk.withdrawalsRoot);
    expect((proof.accountProof as unknown as string[]).length).toBeGreaterThan(0);
    const withSlot = await call<{ storageProof: { key: string; value: string; proof: string[] }[] }>(
      b.httpUrl,
      "eth_getProof",
      [MESSAGE_PASSER, ["0x1"], { blockHash: blk.hash }],
    );
    expect(withSlot.storageProof[0]).toMatchObject({ key: "0x1", value: "0x1" });
    expect(withSlot.storageProof[0]!.proof.length).toBeGreaterThan(0);
    expect(proof.storageHash).not.toBe("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
    const genesisProof = await call<Record<string, string>>(b.httpUrl, "eth_getProof", [MESSAGE_PASSER, [], "0x0"]);
    expect(genesisProof.storageHash).toBe("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
    // the message counter (slot 1) is 1
    expect(await call(b.httpUrl, "eth_getStorageAt", [MESSAGE_PASSER, "0x1", "latest"])).toBe(
      `0x${"1".padStart(64, "0")}`,
    );
  });

  it("eth_feeHistory, eth_gasPrice, eth_estimateGas, eth_call, eth_getCode", async () => {
    const fh = await call<Record<string, unknown[]>>(a.httpUrl, "eth_feeHistory", ["0x2", "latest", [50]]);
    expect(fh.oldestBlock).toBe("0x0");
    expect(fh.baseFeePerGas).toHaveLength(3);
    expect(fh.gasUsedRatio).toHaveLength(2);
    expect(fh.baseFeePerBlobGas).toHaveLength(3);
    expect(fh.blobGasUsedRatio).toHaveLength(2);
    expect(fh.reward).toEqual([["0x0"], ["0xf4240"]]);
    expect(BigInt(await call<string>(a.httpUrl, "eth_gasPrice"))).toBeGreaterThan(0n);
    expect(await call(a.httpUrl, "eth_maxPriorityFeePerGas")).toBe("0xf4240");
    expect(await call(a.httpUrl, "eth_estimateGas", [{ from: ALICE, to: BOB, value: "0x1" }])).toBe("0x5208");
    expect(await call(a.httpUrl, "eth_call", [{ to: BOB, data: "0x" }, "latest"])).toBe("0x");
    expect(await call(a.httpUrl, "eth_getCode", [BOB, "latest"])).toBe("0x");
    expect(await call(a.httpUrl, "eth_chainId")).toBe("0x385");
  });

  it("txpool_status only with txpool in --http.api; trace_* only on A with trace", async () => {
    expect(await call(a.httpUrl, "txpool_status")).toEqual({ pending: "0x0", queued: "0x0" });
    expect((await rpc(b.httpUrl, "txpool_status")).error?.code).toBe(-32601);
    const tr = await call<Record<string, unknown>[]>(a.httpUrl, "trace_transaction", [transferHash]);
    expect(tr[0]).toMatchObject({
      type: "call",
      action: { from: ALICE, to: BOB, value: "0x3039" },
      transactionHash: transferHash,
    });
    expect((await rpc(b.httpUrl, "trace_transaction", [transferHash])).error?.code).toBe(-32601);
    const plain = await startEl({ variant: "a" });
    try {
      for (const m of ["txpool_status", "debug_traceTransaction", "trace_block"])
        expect((await rpc(plain.httpUrl, m, [])).error?.code).toBe(-32601);
    } finally {
      await plain.stop();
    }
  });

  it("debug_traceTransaction and debug_traceCall with callTracer", async () => {
    for (const el of [a, b]) {
      const t = await call<Record<string, unknown>>(el.httpUrl, "debug_traceTransaction", [
        transferHash,
        { tracer: "callTracer" },
      ]);
      expect(t).toMatchObject({
        type: "CALL",
        from: ALICE,
        to: BOB,
        value: "0x3039",
        gas: "0x5208",
        gasUsed: "0x5208",
        input: "0x",
        output: "0x",
      });
      const c = await call<Record<string, unknown>>(el.httpUrl, "debug_traceCall", [
        { from: ALICE, to: BOB, value: "0x1" },
        "latest",
        { tracer: "callTracer" },
      ]);
      expect(c).toMatchObject({ type: "CALL", from: ALICE, to: BOB, value: "0x1", gasUsed: "0x5208" });
    }
  });

  it("JSON-RPC 2.0 errors: parse, invalid request, method not found, batches", async () => {
    const post = async (body: string) =>
      (await fetch(a.httpUrl, { method: "POST", headers: { "content-type": "application/json" }, body })).json();
    expect(await post("{not json")).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect(await post(JSON.stringify({ id: 3, method: "eth_chainId" }))).toMatchObject({
      id: 3,
      error: { code: -32600 },
    });
    expect(await post(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "eth_nope", params: [] }))).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32601, message: "Method not found" },
    });
    const batch = (await post(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] },
        { jsonrpc: "2.0", id: 2, method: "eth_blockNumber", params: [] },
      ]),
    )) as { id: number; result: string }[];
    expect(batch.map((r) => r.result)).toEqual(["0x385", "0x1"]);
    expect(
      await post(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "eth_getBalance", params: ["0x12", "latest"] })),
    ).toMatchObject({
      error: { code: -32602 },
    });
  });

  it("forwards eth_sendRawTransaction to --rollup.sequencer-http", async () => {
    const fwd = await startEl({ variant: "b", sequencerHttp: a.httpUrl });
    try {
      const raw = await signTransfer({ nonce: 2, value: 1n });
      const hash = await call<Hash>(fwd.httpUrl, "eth_sendRawTransaction", [raw]);
      const seen = await call<Record<string, unknown>>(a.httpUrl, "eth_getTransactionByHash", [hash]);
      expect(seen).toMatchObject({ hash, blockHash: null });
      expect(await call(a.httpUrl, "txpool_status")).toEqual({ pending: "0x1", queued: "0x0" });
    } finally {
      await fwd.stop();
    }
  });
});
