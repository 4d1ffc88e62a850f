/**
 * Real-L1 cross-check of the protocol block code: an anvil L1 (Prague) mines blocks holding every
 * transaction type a batcher or user may send; we re-derive hash, transactions root and receipts root from
 * the JSON-RPC responses, select the batcher data, and decode the OP-encoded blob that anvil's beacon
 * endpoint serves back.
 */
import { bytesToHex as vBytesToHex, createWalletClient, defineChain, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { hexToBytes } from "../../../src/core/codec/hex.js";
import { BlockValidationError, validateRpcBlock } from "../../../src/protocol/block/l1-block-validate.js";
import { selectBatcherData } from "../../../src/protocol/l1/batcher-tx.js";
import { decodeBlob, encodeBlob } from "../../../src/protocol/l1/blob.js";
import { blobToVersionedHash } from "../../../src/io/beacon/kzg.js";
import { useAnvil } from "../../support/anvil.js";
import { DEV_KEY, loadKzg } from "../../support/blob-tx.js";

const INBOX = "0xff00000000000000000000000000000000000901" as const;

describe("L1 blocks from a real anvil", () => {
  const l1 = useAnvil({ blockTimeSec: 0 });

  it("validates hash, transactions root and receipts root; selects batcher data; decodes the blob", async () => {
    const anvil = l1();
    await anvil.rpc.call("evm_setAutomine", [false]);
    const chain = defineChain({
      id: anvil.chainId,
      name: "anvil",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    });
    const account = privateKeyToAccount(DEV_KEY);
    const wallet = createWalletClient({ account, chain, transport: http(anvil.rpcUrl, { timeout: 60_000 }) });
    const fees = { maxFeePerGas: 50_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
    const data = "0x00c0ffee" as Hex;
    const auth = await account.signAuthorization({ chainId: anvil.chainId, contractAddress: INBOX, nonce: 4 });
    const send = (tx: Record<string, unknown>): Promise<Hex> => wallet.sendTransaction(tx as never);
    const sent: Hex[] = [
      await send({ nonce: 0, to: INBOX, data, type: "legacy", gasPrice: 50_000_000_000n, gas: 60_000n }),
      await send({
        nonce: 1,
        to: INBOX,
        data,
        type: "eip2930",
        gasPrice: 50_000_000_000n,
        gas: 60_000n,
        accessList: [{ address: INBOX, storageKeys: [`0x${"01".repeat(32)}`] }],
      }),
      await send({ nonce: 2, to: INBOX, data, ...fees, gas: 60_000n }),
      await send({
        nonce: 3,
        to: "0x000000000000000000000000000000000000beef",
        authorizationList: [auth],
        ...fees,
        gas: 100_000n,
      }),
    ];
    await anvil.mine(1);
    const n1 = await anvil.blockNumber();
    const q = (n: number): Hex => `0x${n.toString(16)}`;
    const block = await anvil.rpc.call<Record<string, unknown>>("eth_getBlockByNumber", [q(n1), true]);
    const receipts = await anvil.rpc.call<unknown[]>("eth_getBlockReceipts", [q(n1)]);
    const v = validateRpcBlock(block, receipts);
    expect(v.hash).toBe(block.hash);
    expect(v.txHashes).toEqual(sent);
    expect(v.header.requestsHash).toBeDefined();
    expect(v.receipts).toHaveLength(4);
    const items = selectBatcherData(v.transactions ?? [], {
      batchInbox: INBOX,
      batcherAddr: account.address,
      l1ChainId: BigInt(anvil.chainId),
      blobs: true,
    });
    expect(items.map((i) => [i.kind, i.txIndex])).toEqual([
      ["calldata", 0],
      ["calldata", 1],
      ["calldata", 2],
    ]);

    // A blob transaction carrying an OP-encoded blob.
    const kzg = loadKzg();
    const payload = new Uint8Array(5000).map((_, i) => (i * 31 + 7) & 0xff);
    const blob = encodeBlob(payload);
    const blobHash = await send({
      nonce: 5,
      to: INBOX,
      blobs: [vBytesToHex(blob)],
      kzg: { blobToKzgCommitment: kzg.blobToKzgCommitment, computeBlobKzgProof: kzg.computeBlobKzgProof },
      maxFeePerBlobGas: 10_000_000_000n,
      ...fees,
      gas: 60_000n,
    });
    await anvil.mine(1);
    const n2 = await anvil.blockNumber();
    const block2 = await anvil.rpc.call<Record<string, unknown>>("eth_getBlockByNumber", [q(n2), true]);
    const receipts2 = await anvil.rpc.call<unknown[]>("eth_getBlockReceipts", [q(n2)]);
    let v2: ReturnType<typeof validateRpcBlock>;
    try {
      v2 = validateRpcBlock(block2, receipts2);
    } catch (e) {
      // Anvil ≤ 1.7 roots blob txs over their pooled encoding (foundry #15132); everything else must hold.
      expect(e).toBeInstanceOf(BlockValidationError);
      expect((e as BlockValidationError).reason).toBe("transactions-root");
      v2 = validateRpcBlock(block2, receipts2, { verifyTransactionsRoot: false });
    }
    expect(v2.txHashes).toEqual([blobHash]);
    const blobItems = selectBatcherData(v2.transactions ?? [], {
      batchInbox: INBOX,
      batcherAddr: account.address,
      l1ChainId: BigInt(anvil.chainId),
      blobs: true,
    });
    expect(blobItems).toHaveLength(1);
    const item = blobItems[0];
    if (item?.kind !== "blob") throw new Error("expected a blob item");
    expect(item.versionedHash).toBe(blobToVersionedHash(blob));
    const served = await anvil.beaconBlobs(n2, [item.versionedHash]);
    expect(served).toHaveLength(1);
    expect(Buffer.from(decodeBlob(hexToBytes(served[0] as Hex))).equals(Buffer.from(payload))).toBe(true);
  }, 120_000);
});
