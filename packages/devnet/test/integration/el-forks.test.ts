import { describe, expect, it } from "vitest";
import { type Hash, type Hex, toQuantity } from "supernode/core";
import {
  ecotoneUpgradeDeposits,
  encodeDepositTxHex,
  isthmusUpgradeDeposits,
  jovianUpgradeDeposits,
} from "supernode/protocol";
import {
  ALICE,
  BOB,
  FEE_RECIPIENT,
  GENESIS_TIME,
  buildAndSeal,
  call,
  engine,
  l1InfoBedrock,
  l1InfoDeposit,
  l1InfoEcotone,
  newPayloadParams,
  signTransfer,
  startEl,
} from "../support/el-support.js";
import {
  BEACON_ROOTS_ADDRESS,
  BEACON_ROOTS_CODE,
  HISTORY_STORAGE_ADDRESS,
  HISTORY_STORAGE_CODE,
} from "../../src/el/evm/system-contracts.js";

const EMPTY_TRIE = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";

function attrs(
  ts: number,
  txs: Hex[],
  o: { withdrawals?: boolean; pbr?: boolean; eip1559?: Hex; min?: number; pool?: boolean },
) {
  return {
    timestamp: toQuantity(ts),
    prevRandao: `0x${"ab".repeat(32)}`,
    suggestedFeeRecipient: FEE_RECIPIENT,
    ...(o.withdrawals ? { withdrawals: [] } : {}),
    ...(o.pbr ? { parentBeaconBlockRoot: `0x${"cd".repeat(32)}` } : {}),
    transactions: txs,
    ...(o.pool ? {} : { noTxPool: true }),
    gasLimit: toQuantity(30_000_000n),
    ...(o.eip1559 === undefined ? {} : { eip1559Params: o.eip1559 }),
    ...(o.min === undefined ? {} : { minBaseFee: o.min }),
  };
}

describe("simulated execution client: fork-dependent behaviour", () => {
  it("Bedrock/Canyon chain: V1/V2 methods, legacy fee model with l1FeeScalar, empty withdrawals root", async () => {
    const forks = { regolith: 0, canyon: GENESIS_TIME + 4 };
    const a = await startEl({ variant: "b", forks, api: ["eth", "txpool"] });
    const b = await startEl({ variant: "a", forks });
    try {
      expect(a.head.header.withdrawalsRoot).toBeUndefined();
      // block 1 (pre-Canyon): fcU V1, getPayload V2 (V1 also accepted), newPayload V2
      await call(a.httpUrl, "eth_sendRawTransaction", [await signTransfer({ nonce: 0, value: 99n })]);
      const t1 = GENESIS_TIME + 2;
      const a1 = attrs(t1, [l1InfoDeposit(l1InfoBedrock({ number: 1, time: t1, seq: 0, baseFee: 10n ** 9n }), 1)], {
        pool: true,
      });
      const p1 = await buildAndSeal(a, a1, { fcu: 1, get: 2, np: 2 });
      expect(p1).not.toHaveProperty("withdrawals");
      expect(p1).not.toHaveProperty("blobGasUsed");
      expect(p1.extraData).toBe("0x");
      const txs = p1.transactions as Hex[];
      expect(txs).toHaveLength(2);
      const rc = await call<Record<string, unknown>>(a.httpUrl, "eth_getTransactionReceipt", [
        (await call<{ transactions: Hash[] }>(a.httpUrl, "eth_getBlockByNumber", ["0x1", false])).transactions[1],
      ]);
      expect(rc).toMatchObject({ l1FeeScalar: "0.684", l1GasPrice: "0x3b9aca00" });
      expect(rc).not.toHaveProperty("l1BaseFeeScalar");
      expect(BigInt(rc.l1Fee as string)).toBeGreaterThan(0n);
      // V3 methods refuse pre-Ecotone payloads and attributes
      const v3 = await engine(a, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: p1.blockHash, safeBlockHash: p1.blockHash, finalizedBlockHash: a.genesisHash },
        { ...attrs(GENESIS_TIME + 4, [], { withdrawals: true }), parentBeaconBlockRoot: `0x${"cd".repeat(32)}` },
      ]).catch((x) => x);
      expect(v3.code).toBe(-38005);
      const e = await engine(a, "engine_newPayloadV3", newPayloadParams(p1, 3)).catch((x) => x);
      expect(e.code).toBe(-38005);
      expect((await engine<{ status: string }>(b, "engine_newPayloadV2", [p1])).status).toBe("VALID");
      // block 2 (Canyon): withdrawals [] and the empty withdrawals root
      const t2 = GENESIS_TIME + 4;
      const a2 = attrs(t2, [l1InfoDeposit(l1InfoBedrock({ number: 1, time: t1, seq: 1 }), 2)], { withdrawals: true });
      const noW = await engine(a, "engine_forkchoiceUpdatedV2", [
        { headBlockHash: p1.blockHash, safeBlockHash: p1.blockHash, finalizedBlockHash: a.genesisHash },
        { ...a2, withdrawals: undefined },
      ]).catch((x) => x);
      expect(noW.code).toBe(-38003);
      const p2 = await buildAndSeal(a, a2, { fcu: 2, get: 2, np: 2 });
      expect(p2.withdrawals).toEqual([]);
      const blk = await call<Record<string, string>>(a.httpUrl, "eth_getBlockByNumber", ["0x2", false]);
      expect(blk.withdrawalsRoot).toBe(EMPTY_TRIE);
      // the deposit receipt has a deposit nonce and (Canyon) receipt version
      const dep = await call<Record<string, unknown>>(a.httpUrl, "eth_getTransactionReceipt", [
        (await call<{ transactions: Hash[] }>(a.httpUrl, "eth_getBlockByNumber", ["0x2", false])).transactions[0],
      ]);
      expect(dep).toMatchObject({ type: "0x7e", depositNonce: "0x1", depositReceiptVersion: "0x1", l1Fee: "0x0" });
      expect((await engine<{ status: string }>(b, "engine_newPayloadV2", [p2])).status).toBe("VALID");
      // imported but not canonical on b until a fork-choice update
      expect(await call(b.httpUrl, "eth_blockNumber")).toBe("0x0");
      await engine(b, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: p2.blockHash, safeBlockHash: p1.blockHash, finalizedBlockHash: b.genesisHash },
        null,
      ]);
      expect(await call(b.httpUrl, "eth_getBalance", [BOB, "latest"])).toBe("0x63");
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("Holocene extraData from eip1559Params (zero → chain constants) and the base fee update", async () => {
    const forks = { regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0, holocene: 0 };
    const a = await startEl({ variant: "a", forks });
    try {
      const t1 = GENESIS_TIME + 2;
      const info = (n: number, t: number) => l1InfoDeposit(l1InfoEcotone({ number: n, time: t, seq: n }), n);
      const p1 = await buildAndSeal(
        a,
        attrs(t1, [info(1, t1)], { withdrawals: true, pbr: true, eip1559: "0x0000000000000000" }),
        {
          fcu: 3,
          get: 3,
          np: 3,
        },
      );
      expect(p1.extraData).toBe("0x00000000fa00000006"); // denominator 250, elasticity 6
      expect(p1.baseFeePerGas).toBe(toQuantity(1_000_000_000n - 1_000_000_000n / 250n)); // empty parent
      const t2 = t1 + 2;
      const p2 = await buildAndSeal(
        a,
        attrs(t2, [info(2, t2)], { withdrawals: true, pbr: true, eip1559: "0x0000000800000002" }),
        {
          fcu: 3,
          get: 3,
          np: 3,
        },
      );
      expect(p2.extraData).toBe("0x000000000800000002");
      // parent (p1) had denominator 250: next base fee falls by (almost) 1/250 again
      const bf1 = BigInt(p1.baseFeePerGas as string);
      const used = BigInt(p1.gasUsed as string);
      const target = 30_000_000n / 6n;
      expect(BigInt(p2.baseFeePerGas as string)).toBe(bf1 - (bf1 * (target - used)) / target / 250n);
      // p2 set denominator 8: the child's base fee uses it
      const t3 = t2 + 2;
      const p3 = await buildAndSeal(
        a,
        attrs(t3, [info(3, t3)], { withdrawals: true, pbr: true, eip1559: "0x0000000800000002" }),
        {
          fcu: 3,
          get: 3,
          np: 3,
        },
      );
      const bf2 = BigInt(p2.baseFeePerGas as string);
      const target2 = 30_000_000n / 2n;
      const used2 = BigInt(p2.gasUsed as string);
      expect(BigInt(p3.baseFeePerGas as string)).toBe(bf2 - (bf2 * (target2 - used2)) / target2 / 8n);
      expect(p3.blobGasUsed).toBe("0x0");
      expect(p3).not.toHaveProperty("withdrawalsRoot");
      // Jovian-only attribute before Jovian is refused
      const bad = await engine(a, "engine_forkchoiceUpdatedV3", [
        { headBlockHash: p3.blockHash, safeBlockHash: p3.blockHash, finalizedBlockHash: a.genesisHash },
        attrs(t3 + 2, [info(4, t3 + 2)], { withdrawals: true, pbr: true, eip1559: "0x0000000000000000", min: 5 }),
      ]).catch((x) => x);
      expect(bad.code).toBe(-38003);
      expect(await call(a.httpUrl, "eth_getBalance", [ALICE, "latest"])).toBe(`0x${(10n ** 20n).toString(16)}`);
    } finally {
      await a.stop();
    }
  });

  it("crosses the Isthmus activation: getPayloadV3 before, V4 with requestsHash after", async () => {
    const forks = {
      regolith: 0,
      canyon: 0,
      delta: 0,
      ecotone: 0,
      fjord: 0,
      granite: 0,
      holocene: 0,
      isthmus: GENESIS_TIME + 4,
    };
    const a = await startEl({ variant: "a", forks });
    const b = await startEl({ variant: "b", forks });
    try {
      const info = (n: number, t: number) => l1InfoDeposit(l1InfoEcotone({ number: n, time: t, seq: n }), n);
      const z = "0x0000000000000000" as Hex;
      const t1 = GENESIS_TIME + 2;
      const p1 = await buildAndSeal(a, attrs(t1, [info(1, t1)], { withdrawals: true, pbr: true, eip1559: z }), {
        fcu: 3,
        get: 3,
        np: 3,
      });
      const t2 = GENESIS_TIME + 4;
      const a2 = attrs(t2, [info(2, t2)], { withdrawals: true, pbr: true, eip1559: z });
      const wrong = await engine(a, "engine_getPayloadV3", [
        (
          await engine<{ payloadId: string }>(a, "engine_forkchoiceUpdatedV3", [
            { headBlockHash: p1.blockHash, safeBlockHash: p1.blockHash, finalizedBlockHash: a.genesisHash },
            a2,
          ])
        ).payloadId,
      ]).catch((x) => x);
      expect(wrong.code).toBe(-38005);
      const p2 = await buildAndSeal(a, a2, { fcu: 3, get: 4, np: 4 });
      expect(p2.withdrawalsRoot).toBe(EMPTY_TRIE);
      const blk = await call<Record<string, string>>(a.httpUrl, "eth_getBlockByNumber", ["latest", false]);
      expect(blk.requestsHash).toBe("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
      expect((await engine<{ status: string }>(b, "engine_newPayloadV3", newPayloadParams(p1, 3))).status).toBe(
        "VALID",
      );
      expect((await engine<{ status: string }>(b, "engine_newPayloadV4", newPayloadParams(p2, 4))).status).toBe(
        "VALID",
      );
      const reqs = await engine(b, "engine_newPayloadV4", [p2, [], `0x${"cd".repeat(32)}`, ["0x01"]]).catch((x) => x);
      expect(reqs.code).toBe(-32602);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("executes the network-upgrade deposits of the Ecotone, Isthmus and Jovian activation blocks", async () => {
    const G = GENESIS_TIME;
    const forks = {
      regolith: 0,
      canyon: 0,
      delta: 0,
      ecotone: G + 2,
      fjord: G + 2,
      granite: G + 2,
      holocene: G + 4,
      isthmus: G + 4,
      jovian: G + 6,
    };
    const a = await startEl({ variant: "a", forks });
    const b = await startEl({ variant: "b", forks });
    try {
      const z = "0x0000000000000000" as Hex;
      const info = (n: number, t: number) => l1InfoDeposit(l1InfoBedrock({ number: n, time: t, seq: 0 }), n);
      const ecoInfo = (n: number, t: number) => l1InfoDeposit(l1InfoEcotone({ number: n, time: t, seq: 0 }), n);
      const up = (txs: ReturnType<typeof ecotoneUpgradeDeposits>) => txs.map(encodeDepositTxHex);
      const p1 = await buildAndSeal(
        a,
        attrs(G + 2, [info(1, G + 2), ...up(ecotoneUpgradeDeposits())], { withdrawals: true, pbr: true }),
        {
          fcu: 3,
          get: 3,
          np: 3,
        },
      );
      const p2 = await buildAndSeal(
        a,
        attrs(G + 4, [ecoInfo(2, G + 4), ...up(isthmusUpgradeDeposits())], {
          withdrawals: true,
          pbr: true,
          eip1559: z,
        }),
        { fcu: 3, get: 4, np: 4 },
      );
      const p3 = await buildAndSeal(
        a,
        attrs(G + 6, [ecoInfo(3, G + 6), ...up(jovianUpgradeDeposits())], {
          withdrawals: true,
          pbr: true,
          eip1559: z,
          min: 0,
        }),
        { fcu: 3, get: 4, np: 4 },
      );
      expect((p1.transactions as Hex[]).length).toBe(7);
      expect((p2.transactions as Hex[]).length).toBe(9);
      expect((p3.transactions as Hex[]).length).toBe(6);
      expect(p3.extraData).toMatch(/^0x01/);
      for (const [p, v] of [
        [p1, 3],
        [p2, 4],
        [p3, 4],
      ] as const)
        expect((await engine<{ status: string }>(b, `engine_newPayloadV${v}`, newPayloadParams(p, v))).status).toBe(
          "VALID",
        );
      // deployments get contract addresses in their receipts
      const blk = await call<{ transactions: Hash[] }>(a.httpUrl, "eth_getBlockByNumber", ["0x1", false]);
      const deploy = await call<Record<string, unknown>>(a.httpUrl, "eth_getTransactionReceipt", [blk.transactions[1]]);
      expect(deploy).toMatchObject({
        status: "0x1",
        to: null,
        contractAddress: "0x07dbe8500fc591d1852b76fee44d5a05e13097ff",
      });
      // the system contracts come from the upgrade deposits (their runtime code as the EIPs give it), and from the
      // block after each deployment the block-start system calls fill them: 4788 from Ecotone, 2935 from Isthmus
      const code = (addr: Hex, n: number) => call<Hex>(a.httpUrl, "eth_getCode", [addr, toQuantity(n)]);
      expect(await code(BEACON_ROOTS_ADDRESS, 0)).toBe("0x");
      expect(await code(BEACON_ROOTS_ADDRESS, 1)).toBe(BEACON_ROOTS_CODE);
      expect(await code(HISTORY_STORAGE_ADDRESS, 1)).toBe("0x");
      expect(await code(HISTORY_STORAGE_ADDRESS, 2)).toBe(HISTORY_STORAGE_CODE);
      const slot = (addr: Hex, k: bigint, n: number) =>
        call<Hex>(a.httpUrl, "eth_getStorageAt", [addr, toQuantity(k), toQuantity(n)]).then(BigInt);
      const ring = 8191n;
      // block 1 deployed 4788 after its system call: nothing stored for G + 2; block 2 stored its root
      expect(await slot(BEACON_ROOTS_ADDRESS, BigInt(G + 2) % ring, 1)).toBe(0n);
      expect(await slot(BEACON_ROOTS_ADDRESS, BigInt(G + 4) % ring, 2)).toBe(BigInt(G + 4));
      expect(await slot(BEACON_ROOTS_ADDRESS, (BigInt(G + 4) % ring) + ring, 2)).toBe(BigInt(`0x${"cd".repeat(32)}`));
      // block 2 deployed 2935: block 3 holds its parent's (block 2's) hash at slot 2
      expect(await slot(HISTORY_STORAGE_ADDRESS, 1n, 2)).toBe(0n);
      expect(await slot(HISTORY_STORAGE_ADDRESS, 2n, 3)).toBe(BigInt(p2.blockHash as Hex));
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
