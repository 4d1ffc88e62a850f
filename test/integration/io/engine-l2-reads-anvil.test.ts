/**
 * L2 block reading (eth namespace of the engine endpoint) against anvil in OP mode, which produces real type-0x7E
 * deposit transactions: block refs from the L1-info deposit, payload reconstruction (deposit bytes re-encoded from
 * the JSON fields), and eth_getProof. anvil ignores the JWT header.
 */
import { keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import { HttpRpcClient } from "../../../src/io/json-rpc/http-client.js";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { useAnvil } from "../../support/anvil.js";

const ZERO: Hash = `0x${"00".repeat(32)}`;
const L1_BLOCK_HASH: Hash = `0x${"ab".repeat(32)}`;

/** Ecotone-format L1-info calldata (164 bytes): scalars, seq, time, number, basefee, blob basefee, hash, batcher. */
function ecotoneL1Info(seq: number, l1Number: number, l1Hash: Hash): Hex {
  const u = (v: number | bigint, bytes: number) =>
    BigInt(v)
      .toString(16)
      .padStart(bytes * 2, "0");
  return `0x440a5e20${u(1, 4)}${u(2, 4)}${u(seq, 8)}${u(1700000000, 8)}${u(l1Number, 8)}${u(7, 32)}${u(1, 32)}${l1Hash.slice(2)}${"00".repeat(32)}`;
}

describe("EngineRpcClient L2 reads against anvil --optimism", () => {
  const anvil = useAnvil({ blockTimeSec: 0, hardfork: "isthmus", extraArgs: ["--optimism"] });

  it("derives L2 block refs from the L1-info deposit and rebuilds deposit transaction bytes", async () => {
    const a = anvil();
    const genesis = await a.getBlock(0);
    const cfg = {
      genesis: { l1: { hash: ZERO, number: 0 }, l2: { hash: genesis.hash, number: 0 }, l2_time: 0 },
      block_time: 2,
      canyon_time: 0,
      ecotone_time: 0,
    } as unknown as RollupConfig;
    const engine = EngineRpcClient.create(
      { url: a.rpcUrl, jwtSecret: new Uint8Array(32).fill(1), kind: "variant_a", rollupConfig: cfg },
      { clock: systemClock, logger: silentLogger },
    );
    const from = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
    await a.rpc.call("anvil_impersonateAccount", [from]);
    await a.setBalance(from, 10n ** 18n);
    const sourceHash = `0x${"5c".repeat(32)}`;
    const txHash = (await a.rpc.call("eth_sendTransaction", [
      {
        from,
        to: "0x4200000000000000000000000000000000000015",
        gas: "0xf4240",
        value: "0x0",
        data: ecotoneL1Info(3, 4242, L1_BLOCK_HASH),
        sourceHash,
        mint: "0x0",
        isSystemTx: false,
      },
    ])) as Hash;
    // anvil mines the transaction asynchronously under load: poll for its receipt (bounded).
    let receipt: { blockNumber: Hex; type: Hex } | null = null;
    for (const until = Date.now() + 20_000; receipt === null && Date.now() < until; ) {
      receipt = (await a.rpc.call("eth_getTransactionReceipt", [txHash])) as { blockNumber: Hex; type: Hex } | null;
      if (receipt === null) await new Promise((r) => setTimeout(r, 100));
    }
    if (receipt === null) throw new Error("deposit transaction was not mined within 20 s");
    expect(Number(receipt.type)).toBe(0x7e);
    const n = Number(receipt.blockNumber);

    const ref = await engine.l2BlockRefByNumber(n);
    expect(ref?.l1origin).toEqual({ number: 4242, hash: L1_BLOCK_HASH });
    expect(ref?.sequenceNumber).toBe(3);
    expect(await engine.l2BlockRefByHash(ref?.hash as Hash)).toEqual(ref);
    expect((await engine.l2BlockRefByLabel("latest"))?.number).toBe(n);
    const genesisRef = await engine.l2BlockRefByNumber(0);
    expect(genesisRef?.l1origin).toEqual({ hash: ZERO, number: 0 });

    const env = await engine.payloadByNumber(n);
    const raw = env?.executionPayload.transactions[0] as Hex;
    expect(raw.startsWith("0x7e")).toBe(true);
    // (anvil's eth_sendTransaction returns another hash for deposits than the one its blocks report; compare with
    // the block's own transaction object, which also carries sourceHash and mint)
    const hc = new HttpRpcClient({ url: a.rpcUrl });
    const block = (await hc.call("eth_getBlockByNumber", [receipt.blockNumber, true])) as {
      transactions: { hash: Hash; sourceHash: Hash }[];
    };
    expect(block.transactions[0]?.sourceHash).toBe(sourceHash);
    expect(keccak256(raw)).toBe(block.transactions[0]?.hash);
    expect(env?.executionPayload.blockHash).toBe(ref?.hash);
    expect(env?.executionPayload.withdrawals).toEqual([]);

    // The same block read without its transactions: the payload fields consolidation compares, the block's hash and
    // number, and the hashes the EL lists. (anvil lists its deposit under the eth_sendTransaction hash here, not
    // keccak256 of the bytes as in the full block: the node's consolidation treats a hash mismatch as "read the whole
    // block and compare bytes".)
    const [header] = await engine.headersByNumber([n]);
    if (header === undefined || header instanceof Error) throw new Error("headersByNumber: no header");
    const p = env!.executionPayload;
    const transactions = p.transactions;
    const { transactionHashes, parentBeaconBlockRoot, ...headerFields } = header;
    expect(headerFields).toEqual({
      parentHash: p.parentHash,
      feeRecipient: p.feeRecipient,
      prevRandao: p.prevRandao,
      blockNumber: p.blockNumber,
      gasLimit: p.gasLimit,
      timestamp: p.timestamp,
      extraData: p.extraData,
      blockHash: p.blockHash,
      withdrawals: p.withdrawals,
      withdrawalsRoot: p.withdrawalsRoot,
    });
    expect(parentBeaconBlockRoot).toBe(env?.parentBeaconBlockRoot);
    const listed = (await hc.call("eth_getBlockByNumber", [receipt.blockNumber, false])) as { transactions: Hash[] };
    expect(transactionHashes).toEqual(listed.transactions);
    expect(transactionHashes.length).toBe(transactions.length);
    expect(await engine.headersByNumber([n + 1000])).toEqual([undefined]);

    const proof = await engine.getProof("0x4200000000000000000000000000000000000016", [], ref?.hash as Hash);
    expect(proof.storageHash).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
