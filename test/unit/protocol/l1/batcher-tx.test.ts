import { keccak256, parseTransaction, type TransactionSerializable } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { hexToBytes } from "../../../../src/core/codec/hex.js";
import type { Address, Hex } from "../../../../src/core/types/primitives.js";
import { asList, rlpDecode, rlpEncode } from "../../../../src/protocol/block/rlp.js";
import { encodeRpcTransaction } from "../../../../src/protocol/block/rpc-transaction.js";
import { selectBatcherData } from "../../../../src/protocol/l1/batcher-tx.js";
import { decodeSignedTx, txSender } from "../../../../src/protocol/l1/signed-tx.js";

const batcher = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const stranger = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const INBOX: Address = "0xff00000000000000000000000000000000000901";
const CHAIN = 900;
const HASH1: Hex = "0x01a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8";
const HASH2: Hex = "0x0100000000000000000000000000000000000000000000000000000000000002";

const base = { chainId: CHAIN, nonce: 3, gas: 100_000n, to: INBOX, value: 0n, data: "0x00aabbcc" as Hex };
const legacy: TransactionSerializable = { ...base, type: "legacy", gasPrice: 1_000_000_000n };
const eip2930: TransactionSerializable = {
  ...base,
  type: "eip2930",
  gasPrice: 2n,
  accessList: [{ address: INBOX, storageKeys: [`0x${"11".repeat(32)}`] }],
};
const eip1559: TransactionSerializable = { ...base, type: "eip1559", maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
const blob: TransactionSerializable = {
  ...base,
  type: "eip4844",
  maxFeePerGas: 10n,
  maxPriorityFeePerGas: 1n,
  maxFeePerBlobGas: 5n,
  blobVersionedHashes: [HASH1, HASH2],
};

async function sign(tx: TransactionSerializable, who = batcher): Promise<Uint8Array> {
  return hexToBytes(await who.signTransaction(tx as never));
}

/** The JSON an RPC would return for a signed tx (rebuilt from viem's parse). */
function rpcJson(raw: Hex): Record<string, unknown> {
  const t = parseTransaction(raw) as Record<string, unknown>;
  const q = (v: unknown): string | undefined => (v === undefined ? undefined : `0x${BigInt(v as bigint).toString(16)}`);
  const typeNum = { legacy: 0, eip2930: 1, eip1559: 2, eip4844: 3, eip7702: 4 }[t.type as string] as number;
  return {
    type: q(typeNum),
    chainId: q(t.chainId),
    nonce: q(t.nonce ?? 0),
    gas: q(t.gas),
    gasPrice: q(t.gasPrice),
    maxFeePerGas: q(t.maxFeePerGas),
    maxPriorityFeePerGas: q(t.maxPriorityFeePerGas),
    maxFeePerBlobGas: q(t.maxFeePerBlobGas),
    to: t.to ?? null,
    value: q(t.value ?? 0n),
    input: t.data ?? "0x",
    accessList: t.accessList,
    blobVersionedHashes: t.blobVersionedHashes,
    authorizationList: (t.authorizationList as Record<string, unknown>[] | undefined)?.map((a) => ({
      chainId: q(a.chainId),
      address: a.address,
      nonce: q(a.nonce),
      yParity: q(a.yParity),
      r: a.r,
      s: a.s,
    })),
    v: q(t.v ?? t.yParity),
    yParity: t.yParity === undefined ? undefined : q(t.yParity),
    r: t.r,
    s: t.s,
  };
}

describe("signed L1 transactions", () => {
  it("recovers the sender of every type and re-encodes RPC JSON byte for byte", async () => {
    const auth = await batcher.signAuthorization({ chainId: CHAIN, contractAddress: INBOX, nonce: 4 });
    const setCode: TransactionSerializable = {
      ...base,
      type: "eip7702",
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      authorizationList: [auth],
    };
    for (const tx of [legacy, eip2930, eip1559, blob, setCode]) {
      const raw = await sign(tx);
      const info = decodeSignedTx(raw);
      expect(txSender(info)?.toLowerCase()).toBe(batcher.address.toLowerCase());
      expect(info.to?.toLowerCase()).toBe(INBOX);
      const hex = `0x${Buffer.from(raw).toString("hex")}` as Hex;
      expect(Buffer.from(encodeRpcTransaction(rpcJson(hex))).toString("hex")).toBe(hex.slice(2));
      expect(keccak256(encodeRpcTransaction(rpcJson(hex)))).toBe(keccak256(hex));
    }
  });

  it("hashes a typed transaction's unsigned fields in place: the signing hash of every size of list and field", async () => {
    // Calldata across every RLP header size of the data and of the whole list (short, 1-, 2- and 3-byte lengths),
    // signed by viem: the sender recovers, and the hash is keccak(type ‖ rlp(fields without the signature)).
    const sizes = [0, 1, 20, 54, 55, 56, 200, 255, 256, 300, 65_535, 65_536, 130_000];
    for (const size of sizes) {
      const data = `0x${"ab".repeat(size)}` as Hex;
      for (const tx of [eip2930, eip1559, blob]) {
        const raw = await sign({ ...tx, data, nonce: size % 7 } as TransactionSerializable);
        const info = decodeSignedTx(raw);
        expect(txSender(info)?.toLowerCase(), `type ${raw[0]} data ${size}`).toBe(batcher.address.toLowerCase());
        const fields = asList(rlpDecode(raw.subarray(1)), "tx");
        const unsigned = rlpEncode(fields.slice(0, fields.length - 3));
        expect(Buffer.from(info.signature!.hash).toString("hex")).toBe(
          keccak256(Buffer.concat([raw.subarray(0, 1), unsigned])).slice(2),
        );
      }
    }
  });

  it("selects calldata and blob items from authorised batcher txs only", async () => {
    const txs = [
      await sign(legacy),
      await sign(eip1559, stranger),
      await sign({ ...eip1559, to: "0x000000000000000000000000000000000000dead" }),
      await sign(blob),
      await sign({ ...eip1559, chainId: CHAIN + 1 }),
      await sign(eip2930),
      Uint8Array.of(0x02, 0xc0),
    ];
    const calldataMode = selectBatcherData(txs, {
      batchInbox: INBOX,
      batcherAddr: batcher.address,
      l1ChainId: BigInt(CHAIN),
      blobs: false,
    });
    expect(calldataMode.map((i) => [i.kind, i.txIndex])).toEqual([
      ["calldata", 0],
      ["calldata", 3],
      ["calldata", 5],
    ]);
    const blobMode = selectBatcherData(txs, {
      batchInbox: INBOX,
      batcherAddr: batcher.address,
      l1ChainId: BigInt(CHAIN),
      blobs: true,
    });
    expect(blobMode).toEqual([
      { kind: "calldata", txIndex: 0, data: hexToBytes(base.data) },
      { kind: "blob", txIndex: 3, blobIndex: 0, versionedHash: HASH1 },
      { kind: "blob", txIndex: 3, blobIndex: 1, versionedHash: HASH2 },
      { kind: "calldata", txIndex: 5, data: hexToBytes(base.data) },
    ]);
  });
});
