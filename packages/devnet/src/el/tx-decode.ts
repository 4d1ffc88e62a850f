import { type TransactionSerialized, parseTransaction } from "viem";
import { type Address, bytesToHex, type Hex } from "supernode/core";
import { decodeDepositTx, decodeSignedTx, DEPOSIT_TX_TYPE, keccakHex, txSender } from "supernode/protocol";
import { decodeSignedFast } from "./tx-decode-fast.js";
import type { SimTx } from "./types.js";

const TYPE_BYTE: Record<string, number> = { legacy: 0, eip2930: 1, eip1559: 2, eip4844: 3, eip7702: 4 };

/** Decodes a deposit (0x7E) transaction. Throws DecodeError when malformed. */
export function decodeDeposit(raw: Uint8Array): SimTx {
  const d = decodeDepositTx(raw);
  return {
    raw,
    hash: keccakHex(raw),
    type: DEPOSIT_TX_TYPE,
    from: d.from,
    to: d.to,
    value: d.value,
    gas: d.gas,
    input: d.data,
    deposit: { sourceHash: d.sourceHash, mint: d.mint, isSystemTx: d.isSystemTx },
  };
}

/**
 * Decodes and recovers a signed user transaction (legacy, 2930, 1559, 7702; blob transactions are refused as
 * OP chains do). Throws on anything that is not a valid signed transaction.
 */
export async function decodeSigned(raw: Uint8Array): Promise<SimTx> {
  return decodeSignedFast(raw) ?? decodeSignedWithViem(raw);
}

/** {@link decodeSigned} through viem's parser, for every type and shape (the reference of `decodeSignedFast`). */
export function decodeSignedWithViem(raw: Uint8Array): SimTx {
  const hex = bytesToHex(raw) as TransactionSerialized;
  const tx = parseTransaction(hex);
  if (tx.r === undefined || tx.s === undefined) throw new Error("transaction is not signed");
  const type = TYPE_BYTE[tx.type ?? "legacy"];
  if (type === undefined || type === 3) throw new Error(`unsupported transaction type ${tx.type}`);
  // Sender through the node's recovery (libsecp256k1 where it loads): ~20× faster than viem's pure-JS recovery,
  // which dominated the simulated client's CPU per block with user transactions (bench `derivation`).
  const sender = txSender(decodeSignedTx(raw));
  if (sender === null) throw new Error("invalid transaction signature");
  const from = sender.toLowerCase() as Address;
  const t = tx as unknown as {
    gasPrice?: bigint;
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    accessList?: readonly unknown[];
    authorizationList?: readonly {
      chainId: number;
      address: string;
      nonce: number;
      yParity?: number;
      r: Hex;
      s: Hex;
    }[];
  };
  return {
    raw,
    hash: keccakHex(raw),
    type,
    from,
    to: tx.to ? (tx.to.toLowerCase() as Address) : null,
    value: tx.value ?? 0n,
    gas: tx.gas ?? 0n,
    input: (tx.data ?? "0x") as Hex,
    nonce: BigInt(tx.nonce ?? 0),
    ...(tx.chainId === undefined ? {} : { chainId: BigInt(tx.chainId) }),
    ...(t.gasPrice === undefined ? {} : { gasPrice: t.gasPrice }),
    ...(t.maxFeePerGas === undefined ? {} : { maxFeePerGas: t.maxFeePerGas }),
    ...(t.maxPriorityFeePerGas === undefined ? {} : { maxPriorityFeePerGas: t.maxPriorityFeePerGas }),
    ...(tx.v === undefined ? {} : { v: tx.v }),
    r: tx.r,
    s: tx.s,
    ...(tx.yParity === undefined ? {} : { yParity: tx.yParity }),
    ...(t.accessList === undefined ? {} : { accessList: t.accessList }),
    ...(t.authorizationList === undefined
      ? {}
      : {
          authorizationList: t.authorizationList.map((a) => ({
            chainId: BigInt(a.chainId),
            address: a.address.toLowerCase() as Address,
            nonce: BigInt(a.nonce),
            yParity: a.yParity ?? 0,
            r: a.r,
            s: a.s,
          })),
        }),
  };
}

/** Decodes any transaction of a payload (deposit or signed). */
export async function decodeAnyTx(raw: Uint8Array): Promise<SimTx> {
  return raw[0] === DEPOSIT_TX_TYPE ? decodeDeposit(raw) : decodeSigned(raw);
}

/** Intrinsic gas of a transaction: 21000, calldata (4 per zero byte, 16 per non-zero), 32000 for creation. */
export function intrinsicGas(input: Hex, isCreate: boolean): bigint {
  // Counted in a number (a bigint sum allocates at every byte), converted once.
  let gas = 21000 + (isCreate ? 32000 : 0);
  for (let i = 2; i < input.length; i += 2) {
    gas += input.charCodeAt(i) === 48 && input.charCodeAt(i + 1) === 48 ? 4 : 16;
  }
  return BigInt(gas);
}
