import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { type Address, type Hash, type Hex, hexToBytes } from "supernode/core";
import {
  attributesFromHex,
  type BlockHeader,
  type EngineApiTypes,
  headerHash,
  orderedTrieRoot,
  predictPayloadId,
} from "supernode/protocol";
import { type SimulatedExecutionClient, mintEngineJwt } from "../../src/el/index.js";
import {
  ALICE,
  BOB,
  DEPOSIT_FROM,
  GENESIS_TIME,
  SECRET,
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

const now = () => Math.floor(Date.now() / 1000);

/** The node's attributes type of the JSON attributes el-support writes (Jovian fields). */
function payloadAttributesFromJson(j: Record<string, unknown>): EngineApiTypes.PayloadAttributes {
  return attributesFromHex(
    {
      timestamp: Number(j.timestamp),
      prevRandao: j.prevRandao as Hash,
      suggestedFeeRecipient: j.suggestedFeeRecipient as Address,
      withdrawals: [],
      parentBeaconBlockRoot: j.parentBeaconBlockRoot as Hash,
      noTxPool: j.noTxPool === true,
      gasLimit: BigInt(j.gasLimit as string),
      eip1559Params: j.eip1559Params as Hex,
      minBaseFee: BigInt(j.minBaseFee as number),
    },
    j.transactions as Hex[],
  );
}

function attrsFor(n: number, extra: Hex[] = [], o: { randao?: Hash; noTxPool?: boolean } = {}) {
  const ts = GENESIS_TIME + 2 * n;
  return jovianAttrs(ts, [l1InfoDeposit(l1InfoJovian({ number: 100 + n, time: ts - 1, seq: 0 }), n), ...extra], o);
}

describe("simulated execution client: Engine API", () => {
  let a: SimulatedExecutionClient;
  let b: SimulatedExecutionClient;
  beforeAll(async () => {
    a = await startEl({ variant: "a" });
    b = await startEl({ variant: "b" });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it("rejects Engine API calls without a valid JWT with HTTP 401", async () => {
    expect((await rpc(a.authUrl, "eth_chainId")).status).toBe(401);
    expect((await rpc(a.authUrl, "eth_chainId", [], "not-a-jwt")).status).toBe(401);
    const wrongKey = mintEngineJwt(new Uint8Array(32).fill(9), now());
    expect((await rpc(a.authUrl, "eth_chainId", [], wrongKey)).status).toBe(401);
    expect((await rpc(a.authUrl, "eth_chainId", [], mintEngineJwt(SECRET, now() - 120))).status).toBe(401);
    expect((await rpc(a.authUrl, "eth_chainId", [], mintEngineJwt(SECRET, now() + 120))).status).toBe(401);
    // alg none is refused
    const h = Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url");
    const p = Buffer.from(JSON.stringify({ iat: now() })).toString("base64url");
    expect((await rpc(a.authUrl, "eth_chainId", [], `${h}.${p}.`)).status).toBe(401);
    const ok = await rpc(a.authUrl, "eth_chainId", [], mintEngineJwt(SECRET, now() - 30));
    expect(ok).toMatchObject({ status: 200, result: "0x385" });
    // a token signed by any HS256 library with the same secret works
    const hh = Buffer.from(JSON.stringify({ typ: "JWT", alg: "HS256" })).toString("base64url");
    const sig = createHmac("sha256", SECRET).update(`${hh}.${p}`).digest("base64url");
    expect((await rpc(a.authUrl, "engine_exchangeCapabilities", [[]], `${hh}.${p}.${sig}`)).status).toBe(200);
    // the engine namespace is not served on the public port
    expect((await rpc(a.httpUrl, "engine_forkchoiceUpdatedV3", [])).error?.code).toBe(-32601);
  });

  it("exchanges capabilities", async () => {
    const caps = await engine<string[]>(a, "engine_exchangeCapabilities", [["engine_newPayloadV4"]]);
    for (const m of ["engine_forkchoiceUpdatedV3", "engine_getPayloadV4", "engine_newPayloadV4", "engine_newPayloadV2"])
      expect(caps).toContain(m);
  });

  it("both variants start from the same genesis", () => {
    expect(a.genesisHash).toBe(b.genesisHash);
    expect(a.genesisBlock).toEqual({ number: 0, hash: a.genesisHash, timestamp: GENESIS_TIME });
  });

  it("builds a block from attributes and a second instance imports it", async () => {
    const attrs = attrsFor(1, [userDeposit(BOB, 5n * 10n ** 18n, 10n ** 18n, "dep-1")]);
    const payload = await buildAndSeal(a, attrs);
    expect(payload.blockNumber).toBe("0x1");
    expect((payload.transactions as Hex[]).length).toBe(2);
    expect(payload.extraData).toMatch(/^0x01[0-9a-f]{32}$/); // Jovian: version 1, 17 bytes
    expect(payload.withdrawalsRoot).toMatch(/^0x[0-9a-f]{64}$/);
    const latest = await call<Record<string, string>>(a.httpUrl, "eth_getBlockByNumber", ["latest", false]);
    expect(latest.hash).toBe(payload.blockHash);
    // the header fields served hash to the block hash
    const np = await engine<{ status: string; latestValidHash: Hash }>(
      b,
      "engine_newPayloadV4",
      newPayloadParams(payload, 4, attrs),
    );
    expect(np).toMatchObject({ status: "VALID", latestValidHash: payload.blockHash });
    const fcu = await engine<{ payloadStatus: { status: string } }>(b, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: payload.blockHash, safeBlockHash: payload.blockHash, finalizedBlockHash: b.genesisHash },
      null,
    ]);
    expect(fcu.payloadStatus.status).toBe("VALID");
    expect(await call(b.httpUrl, "eth_getBalance", [BOB, "latest"])).toBe("0xde0b6b3a7640000");
    expect(await call(b.httpUrl, "eth_getBalance", [DEPOSIT_FROM, "latest"])).toBe(
      `0x${(4n * 10n ** 18n).toString(16)}`,
    );
    expect(await call(b.httpUrl, "eth_getBalance", [ALICE, "latest"])).toBe(`0x${(10n ** 20n).toString(16)}`);
    expect(await call(b.httpUrl, "eth_getTransactionCount", [DEPOSIT_FROM, "latest"])).toBe("0x1");
    const safe = await call<Record<string, string>>(b.httpUrl, "eth_getBlockByNumber", ["safe", false]);
    expect(safe.hash).toBe(payload.blockHash);
    const fin = await call<Record<string, string>>(b.httpUrl, "eth_getBlockByNumber", ["finalized", false]);
    expect(fin.hash).toBe(b.genesisHash);
    const blockB = await call<Record<string, string>>(b.httpUrl, "eth_getBlockByNumber", ["0x1", false]);
    expect(blockB.stateRoot).toBe(payload.stateRoot);
  });

  it("served block headers hash to the block hash on both variants", async () => {
    for (const el of [a, b]) {
      const blk = await call<Record<string, string>>(el.httpUrl, "eth_getBlockByNumber", ["latest", false]);
      const h: BlockHeader = {
        parentHash: blk.parentHash as Hash,
        sha3Uncles: blk.sha3Uncles as Hash,
        miner: blk.miner as Hex,
        stateRoot: blk.stateRoot as Hash,
        transactionsRoot: blk.transactionsRoot as Hash,
        receiptsRoot: blk.receiptsRoot as Hash,
        logsBloom: blk.logsBloom as Hex,
        difficulty: BigInt(blk.difficulty!),
        number: Number(blk.number),
        gasLimit: BigInt(blk.gasLimit!),
        gasUsed: BigInt(blk.gasUsed!),
        timestamp: Number(blk.timestamp),
        extraData: blk.extraData as Hex,
        mixHash: blk.mixHash as Hash,
        nonce: blk.nonce as Hex,
        baseFeePerGas: BigInt(blk.baseFeePerGas!),
        withdrawalsRoot: blk.withdrawalsRoot as Hash,
        blobGasUsed: BigInt(blk.blobGasUsed!),
        excessBlobGas: BigInt(blk.excessBlobGas!),
        parentBeaconBlockRoot: blk.parentBeaconBlockRoot as Hash,
        requestsHash: blk.requestsHash as Hash,
      };
      expect(headerHash(h)).toBe(blk.hash);
    }
  });

  it("answers SYNCING for unknown parents and unknown fork-choice heads", async () => {
    const c = await startEl({ variant: "a" });
    try {
      const p2 = await buildAndSeal(a, attrsFor(2));
      const np = await engine<{ status: string; latestValidHash: unknown }>(
        c,
        "engine_newPayloadV4",
        newPayloadParams(p2, 4),
      );
      expect(np).toMatchObject({ status: "SYNCING", latestValidHash: null });
      const fcu = await engine<{ payloadStatus: { status: string }; payloadId: unknown }>(
        c,
        "engine_forkchoiceUpdatedV3",
        [{ headBlockHash: p2.blockHash, safeBlockHash: c.genesisHash, finalizedBlockHash: c.genesisHash }, null],
      );
      expect(fcu).toMatchObject({ payloadStatus: { status: "SYNCING" }, payloadId: null });
    } finally {
      await c.stop();
    }
  });

  it("rejects a bad block hash and a bad state root (INVALID with latestValidHash)", async () => {
    const c = await startEl({ variant: "b" });
    try {
      const attrs = attrsFor(1, [userDeposit(BOB, 5n * 10n ** 18n, 10n ** 18n, "dep-1")]);
      const good = (
        await engine<{ executionPayload: Record<string, unknown> }>(a, "engine_getPayloadV4", [
          (
            await engine<{ payloadId: string }>(a, "engine_forkchoiceUpdatedV3", [
              { headBlockHash: a.genesisHash, safeBlockHash: a.genesisHash, finalizedBlockHash: a.genesisHash },
              attrs,
            ])
          ).payloadId,
        ])
      ).executionPayload;
      // restore a's head to its previous chain afterwards is not needed: fcU without attrs below moves it
      const badHash = { ...good, blockHash: `0x${"00".repeat(31)}01` };
      const r1 = await engine<{ status: string; latestValidHash: unknown; validationError: string }>(
        c,
        "engine_newPayloadV4",
        newPayloadParams(badHash, 4),
      );
      expect(r1.status).toBe("INVALID");
      expect(r1.latestValidHash).toBeNull();
      expect(r1.validationError).toMatch(/blockhash mismatch/);
      // a payload whose header is self-consistent but whose state root is wrong
      const tampered = { ...good, stateRoot: `0x${"77".repeat(32)}` };
      const h = rehash(tampered);
      const r2 = await engine<{ status: string; latestValidHash: unknown; validationError: string }>(
        c,
        "engine_newPayloadV4",
        newPayloadParams({ ...tampered, blockHash: h }, 4),
      );
      expect(r2).toMatchObject({ status: "INVALID", latestValidHash: c.genesisHash });
      expect(r2.validationError).toMatch(/stateRoot/);
      // a child of the invalid block is INVALID too
      const fcu = await engine<{ payloadStatus: { status: string } }>(c, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: h, safeBlockHash: c.genesisHash, finalizedBlockHash: c.genesisHash },
        null,
      ]);
      expect(fcu.payloadStatus.status).toBe("INVALID");
      // a client that holds the block still checks the fields against the hash
      const r4 = await engine<{ status: string; latestValidHash: unknown }>(
        a,
        "engine_newPayloadV4",
        newPayloadParams({ ...good, stateRoot: `0x${"77".repeat(32)}` }, 4),
      );
      expect(r4).toMatchObject({ status: "INVALID", latestValidHash: null });
      expect((await engine<{ status: string }>(a, "engine_newPayloadV4", newPayloadParams(good, 4))).status).toBe(
        "VALID",
      );
      // the untouched payload is VALID
      const r3 = await engine<{ status: string }>(c, "engine_newPayloadV4", newPayloadParams(good, 4));
      expect(r3.status).toBe("VALID");
    } finally {
      await c.stop();
    }
  });

  it("switches the canonical chain on fcU to a sibling branch head (reorg)", async () => {
    const c = await startEl({ variant: "a" });
    try {
      const x = await buildAndSeal(c, attrsFor(1, [userDeposit(BOB, 1n, 1n, "x")], { randao: `0x${"01".repeat(32)}` }));
      const xTx = (await call<Record<string, unknown>>(c.httpUrl, "eth_getBlockByNumber", ["0x1", false]))
        .transactions as Hash[];
      // build a sibling on genesis
      const r = await engine<{ payloadId: string }>(c, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: c.genesisHash, safeBlockHash: c.genesisHash, finalizedBlockHash: c.genesisHash },
        attrsFor(1, [userDeposit(BOB, 2n, 2n, "y")], { randao: `0x${"02".repeat(32)}` }),
      ]);
      // the id is op-geth's for these attributes (protocol/payload-id.ts), as the node predicts it
      const sent = attrsFor(1, [userDeposit(BOB, 2n, 2n, "y")], { randao: `0x${"02".repeat(32)}` });
      expect(r.payloadId).toBe(predictPayloadId(c.genesisHash, payloadAttributesFromJson(sent), 3));
      // fcU to genesis already rewound the chain
      expect(await call(c.httpUrl, "eth_blockNumber")).toBe("0x0");
      const y = (await engine<{ executionPayload: Record<string, unknown> }>(c, "engine_getPayloadV4", [r.payloadId]))
        .executionPayload;
      expect(y.blockHash).not.toBe(x.blockHash);
      await engine(c, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: y.blockHash, safeBlockHash: c.genesisHash, finalizedBlockHash: c.genesisHash },
        null,
      ]);
      const latest = await call<Record<string, string>>(c.httpUrl, "eth_getBlockByNumber", ["latest", false]);
      expect(latest.hash).toBe(y.blockHash);
      expect(await call(c.httpUrl, "eth_getBalance", [BOB, "latest"])).toBe("0x2");
      expect(await call(c.httpUrl, "eth_getTransactionByHash", [xTx[1]])).toBeNull();
      // and back again
      await engine(c, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: x.blockHash, safeBlockHash: c.genesisHash, finalizedBlockHash: c.genesisHash },
        null,
      ]);
      expect(await call(c.httpUrl, "eth_getBalance", [BOB, "latest"])).toBe("0x1");
    } finally {
      await c.stop();
    }
  });

  it("puts the transactions of a block rewound away back in its pool, as geth does", async () => {
    const c = await startEl({ variant: "a", api: ["eth", "txpool"] });
    try {
      const sent: Hash[] = [];
      for (const nonce of [0, 1])
        sent.push(await call<Hash>(c.httpUrl, "eth_sendRawTransaction", [await signTransfer({ nonce })]));
      const x = await buildAndSeal(c, attrsFor(1, [], { noTxPool: false }));
      expect((x.transactions as Hex[]).length).toBe(3); // the L1 info deposit and both transfers
      expect(await call(c.httpUrl, "txpool_status")).toEqual({ pending: "0x0", queued: "0x0" });
      // Rewind to the parent (a forkchoice update to genesis): both transfers are pending again.
      await engine(c, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: c.genesisHash, safeBlockHash: c.genesisHash, finalizedBlockHash: c.genesisHash },
        null,
      ]);
      expect(await call(c.httpUrl, "txpool_status")).toEqual({ pending: "0x2", queued: "0x0" });
      const pending = await call<{ blockHash: unknown }>(c.httpUrl, "eth_getTransactionByHash", [sent[0]]);
      expect(pending.blockHash).toBeNull();
      // A sibling that includes only the first (forced, no pool) leaves the second pending.
      const first = (x.transactions as Hex[])[1] as Hex;
      const y = await buildAndSeal(c, attrsFor(1, [first], { randao: `0x${"02".repeat(32)}` }));
      expect(y.blockHash).not.toBe(x.blockHash);
      expect(await call(c.httpUrl, "txpool_status")).toEqual({ pending: "0x1", queued: "0x0" });
      // Back to the first branch: nothing is lost or doubled (the sibling's transfer is on it too).
      await engine(c, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: x.blockHash, safeBlockHash: c.genesisHash, finalizedBlockHash: c.genesisHash },
        null,
      ]);
      expect(await call(c.httpUrl, "txpool_status")).toEqual({ pending: "0x0", queued: "0x0" });
    } finally {
      await c.stop();
    }
  });

  it("with op-geth's rule, keeps its head on a forkchoice update to a canonical ancestor until a sibling is chosen", async () => {
    const c = await startEl({ variant: "b", ancestorForkchoice: "keep-head" });
    try {
      const x1 = await buildAndSeal(c, attrsFor(1));
      const x2 = await buildAndSeal(c, attrsFor(2));
      const toX1 = { headBlockHash: x1.blockHash, safeBlockHash: x1.blockHash, finalizedBlockHash: c.genesisHash };
      const r = await engine<{ payloadStatus: { status: string } }>(c, "engine_forkchoiceUpdatedV3", [toX1, null]);
      expect(r.payloadStatus.status).toBe("VALID");
      // The head stays (only the safe label moved); block 2 is still canonical.
      expect(await call(c.httpUrl, "eth_blockNumber")).toBe("0x2");
      expect((await call<{ hash: Hash }>(c.httpUrl, "eth_getBlockByNumber", ["safe", false])).hash).toBe(x1.blockHash);
      // A payload asked for on the ancestor is built on it; choosing it reorgs block 2 out.
      const b = await engine<{ payloadId: Hex }>(c, "engine_forkchoiceUpdatedV3", [
        toX1,
        attrsFor(2, [], { randao: `0x${"02".repeat(32)}` }),
      ]);
      const y2 = (await engine<{ executionPayload: Record<string, unknown> }>(c, "engine_getPayloadV4", [b.payloadId]))
        .executionPayload;
      expect(y2.parentHash).toBe(x1.blockHash);
      const np = await engine<{ status: string }>(c, "engine_newPayloadV4", newPayloadParams(y2, 4));
      expect(np.status).toBe("VALID");
      await engine(c, "engine_forkchoiceUpdatedV3", [{ ...toX1, headBlockHash: y2.blockHash }, null]);
      const latest = await call<{ hash: Hash; number: Hex }>(c.httpUrl, "eth_getBlockByNumber", ["latest", false]);
      expect(latest).toMatchObject({ hash: y2.blockHash, number: "0x2" });
      expect(latest.hash).not.toBe(x2.blockHash);
    } finally {
      await c.stop();
    }
  });

  it("answers engine errors: unknown payload, invalid fork-choice state, bad attributes", async () => {
    const e1 = await engine(a, "engine_getPayloadV4", ["0x0300000000000001"]).catch((e) => e);
    expect(e1.code).toBe(-38001);
    // op-geth checks the id's version byte first: getPayloadV3/V4 take only ids of forkchoiceUpdatedV3.
    const e0 = await engine(a, "engine_getPayloadV4", ["0x0000000000000001"]).catch((e) => e);
    expect(e0.code).toBe(-38005);
    const e2 = await engine(a, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: a.head.hash, safeBlockHash: `0x${"99".repeat(32)}`, finalizedBlockHash: a.genesisHash },
      null,
    ]).catch((e) => e);
    expect(e2.code).toBe(-38002);
    const attrs = { ...attrsFor(a.head.header.number + 1), eip1559Params: undefined };
    const e3 = await engine(a, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: a.head.hash, safeBlockHash: a.head.hash, finalizedBlockHash: a.genesisHash },
      attrs,
    ]).catch((e) => e);
    expect(e3.code).toBe(-38003);
  });
});

function rehash(p: Record<string, unknown>): Hash {
  return headerHash({
    parentHash: p.parentHash as Hash,
    sha3Uncles: "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
    miner: p.feeRecipient as Hex,
    stateRoot: p.stateRoot as Hash,
    transactionsRoot: transactionsRootOf(p.transactions as Hex[]),
    receiptsRoot: p.receiptsRoot as Hash,
    logsBloom: p.logsBloom as Hex,
    difficulty: 0n,
    number: Number(p.blockNumber),
    gasLimit: BigInt(p.gasLimit as string),
    gasUsed: BigInt(p.gasUsed as string),
    timestamp: Number(p.timestamp),
    extraData: p.extraData as Hex,
    mixHash: p.prevRandao as Hash,
    nonce: "0x0000000000000000",
    baseFeePerGas: BigInt(p.baseFeePerGas as string),
    withdrawalsRoot: p.withdrawalsRoot as Hash,
    blobGasUsed: BigInt(p.blobGasUsed as string),
    excessBlobGas: BigInt(p.excessBlobGas as string),
    parentBeaconBlockRoot: `0x${"cd".repeat(32)}`,
    requestsHash: "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  });
}

function transactionsRootOf(txs: Hex[]): Hash {
  return orderedTrieRoot(txs.map(hexToBytes));
}
