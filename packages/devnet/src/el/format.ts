import { bytesToHex, type Hex, toQuantity } from "supernode/core";
import { parseL1FeeParams } from "./fees.js";
import type { L1FeeFields, SimBlock, SimLog, SimReceipt, SimTx, Variant } from "./types.js";

type Json = Record<string, unknown>;
const q = toQuantity;

/** Variant B (legacy client) marshals objects with keys in alphabetical order. */
function ordered(variant: Variant, o: Json): Json {
  if (variant === "a") return o;
  const out: Json = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

/** A transaction object; `loc` is absent for pool transactions. */
export function txJson(variant: Variant, tx: SimTx, loc?: { block: SimBlock; index: number }): Json {
  const where = {
    blockHash: loc?.block.hash ?? null,
    blockNumber: loc === undefined ? null : q(loc.block.header.number),
    transactionIndex: loc === undefined ? null : q(loc.index),
  };
  if (tx.deposit !== undefined) {
    const receipt = loc?.block.receipts[loc.index];
    const o: Json = {
      type: "0x7e",
      sourceHash: tx.deposit.sourceHash,
      from: tx.from,
      to: tx.to,
      mint: q(tx.deposit.mint),
      value: q(tx.value),
      gas: q(tx.gas),
      input: tx.input,
      hash: tx.hash,
      ...where,
      ...(loc === undefined ? {} : { blockTimestamp: q(loc.block.header.timestamp) }),
      ...(receipt?.depositReceiptVersion === undefined
        ? {}
        : { depositReceiptVersion: q(receipt.depositReceiptVersion) }),
      gasPrice: "0x0",
      nonce: q(receipt?.depositNonce ?? 0n),
      ...(tx.deposit.isSystemTx ? { isSystemTx: true } : {}),
      r: "0x0",
      s: "0x0",
      v: "0x0",
      yParity: "0x0",
    };
    return ordered(variant, o);
  }
  const receipt = loc?.block.receipts[loc.index];
  const gasPrice = receipt?.effectiveGasPrice ?? tx.gasPrice ?? tx.maxFeePerGas ?? 0n;
  const o: Json = {
    type: q(tx.type),
    chainId: tx.chainId === undefined ? undefined : q(tx.chainId),
    nonce: q(tx.nonce ?? 0n),
    gas: q(tx.gas),
    gasPrice: q(gasPrice),
    ...(tx.maxFeePerGas === undefined
      ? {}
      : { maxFeePerGas: q(tx.maxFeePerGas), maxPriorityFeePerGas: q(tx.maxPriorityFeePerGas ?? 0n) }),
    to: tx.to,
    value: q(tx.value),
    input: tx.input,
    ...(tx.accessList === undefined ? {} : { accessList: tx.accessList }),
    ...(tx.authorizationList === undefined
      ? {}
      : {
          authorizationList: tx.authorizationList.map((a) => ({
            chainId: q(a.chainId),
            address: a.address,
            nonce: q(a.nonce),
            yParity: q(a.yParity),
            r: a.r,
            s: a.s,
          })),
        }),
    r: tx.r,
    s: tx.s,
    v: q(tx.v ?? BigInt(tx.yParity ?? 0)),
    ...(tx.yParity === undefined || tx.type === 0 ? {} : { yParity: q(tx.yParity) }),
    hash: tx.hash,
    ...where,
    ...(variant === "a" && loc !== undefined ? { blockTimestamp: q(loc.block.header.timestamp) } : {}),
    from: tx.from,
  };
  if (o.chainId === undefined) delete o.chainId;
  return ordered(variant, o);
}

/** A block object with the variant's field set; `full` selects transaction objects over hashes. */
export function blockJson(variant: Variant, b: SimBlock, full: boolean): Json {
  const h = b.header;
  const o: Json = {
    hash: b.hash,
    parentHash: h.parentHash,
    sha3Uncles: h.sha3Uncles,
    miner: h.miner,
    stateRoot: h.stateRoot,
    transactionsRoot: h.transactionsRoot,
    receiptsRoot: h.receiptsRoot,
    logsBloom: h.logsBloom,
    difficulty: q(h.difficulty),
    number: q(h.number),
    gasLimit: q(h.gasLimit),
    gasUsed: q(h.gasUsed),
    timestamp: q(h.timestamp),
    extraData: h.extraData,
    mixHash: h.mixHash,
    nonce: h.nonce,
    ...(h.baseFeePerGas === undefined ? {} : { baseFeePerGas: q(h.baseFeePerGas) }),
    ...(h.withdrawalsRoot === undefined ? {} : { withdrawalsRoot: h.withdrawalsRoot }),
    ...(h.blobGasUsed === undefined ? {} : { blobGasUsed: q(h.blobGasUsed), excessBlobGas: q(h.excessBlobGas ?? 0n) }),
    ...(h.parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot: h.parentBeaconBlockRoot }),
    ...(h.requestsHash === undefined ? {} : { requestsHash: h.requestsHash }),
    ...(variant === "b" ? { totalDifficulty: "0x0" } : {}),
    size: q(b.size),
    uncles: [],
    transactions: full ? b.txs.map((tx, index) => txJson(variant, tx, { block: b, index })) : b.txs.map((t) => t.hash),
    ...(b.withdrawals === undefined ? {} : { withdrawals: [] }),
  };
  return ordered(variant, o);
}

/** The header object sent to `newHeads` subscribers. */
export function headerJson(variant: Variant, b: SimBlock): Json {
  const o = blockJson(variant, b, false);
  delete o.transactions;
  delete o.uncles;
  delete o.withdrawals;
  delete o.size;
  delete o.totalDifficulty;
  return o;
}

/** Index of the block's first log for each transaction. */
function firstLogIndex(b: SimBlock, index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) n += b.receipts[i]!.logs.length;
  return n;
}

export function logJson(b: SimBlock, txIndex: number, logIndex: number, log: SimLog, removed = false): Json {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: q(b.header.number),
    transactionHash: b.txs[txIndex]!.hash,
    transactionIndex: q(txIndex),
    blockHash: b.hash,
    logIndex: q(logIndex),
    removed,
  };
}

/** All logs of a block with their positions. */
export function blockLogs(b: SimBlock, removed = false): Json[] {
  const out: Json[] = [];
  let li = 0;
  b.receipts.forEach((r, ti) => {
    for (const l of r.logs) out.push(logJson(b, ti, li++, l, removed));
  });
  return out;
}

function l1Json(l1: L1FeeFields): Json {
  const o: Json = { l1GasPrice: q(l1.l1GasPrice), l1GasUsed: q(l1.l1GasUsed), l1Fee: q(l1.l1Fee) };
  if (l1.model === "legacy") o.l1FeeScalar = l1.l1FeeScalar;
  else {
    o.l1BaseFeeScalar = q(l1.l1BaseFeeScalar ?? 0n);
    o.l1BlobBaseFee = q(l1.l1BlobBaseFee ?? 0n);
    o.l1BlobBaseFeeScalar = q(l1.l1BlobBaseFeeScalar ?? 0n);
    if (l1.daFootprintGasScalar !== undefined) o.daFootprintGasScalar = q(l1.daFootprintGasScalar);
    if (l1.operatorFeeScalar !== undefined) {
      o.operatorFeeScalar = q(l1.operatorFeeScalar);
      o.operatorFeeConstant = q(l1.operatorFeeConstant ?? 0n);
    }
  }
  return o;
}

/** L1 fee fields of a deposit receipt: the block's L1 prices, zero gas and fee. */
function depositL1(b: SimBlock, isJovian: boolean, isthmus: boolean): L1FeeFields | null {
  const first = b.txs[0];
  const p = first === undefined ? undefined : parseL1FeeParams(first.input);
  if (p === undefined) return null;
  if (p.format === "bedrock")
    return { model: "legacy", l1GasUsed: 0n, l1GasPrice: p.l1BaseFee, l1Fee: 0n, l1FeeScalar: decimal(p.scalar) };
  return {
    model: "v2",
    l1GasUsed: 0n,
    l1GasPrice: p.l1BaseFee,
    l1Fee: 0n,
    l1BaseFeeScalar: p.baseFeeScalar,
    l1BlobBaseFee: p.blobBaseFee,
    l1BlobBaseFeeScalar: p.blobBaseFeeScalar,
    ...(isJovian ? { daFootprintGasScalar: p.daFootprintGasScalar === 0n ? 400n : p.daFootprintGasScalar } : {}),
    ...(isthmus ? { operatorFeeScalar: p.operatorFeeScalar, operatorFeeConstant: p.operatorFeeConstant } : {}),
  };
}

function decimal(scalar: bigint): string {
  const frac = (scalar % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return frac === "" ? (scalar / 1_000_000n).toString() : `${scalar / 1_000_000n}.${frac}`;
}

/** A receipt object with the L1 fee fields of the block's fee model. */
export function receiptJson(
  variant: Variant,
  b: SimBlock,
  index: number,
  forks: { jovian: boolean; isthmus: boolean },
): Json {
  const tx = b.txs[index]!;
  const r: SimReceipt = b.receipts[index]!;
  let li = firstLogIndex(b, index);
  const l1 = tx.deposit !== undefined ? depositL1(b, forks.jovian, forks.isthmus) : r.l1;
  const o: Json = {
    type: q(tx.type),
    status: q(r.status),
    cumulativeGasUsed: q(r.cumulativeGasUsed),
    logs: r.logs.map((l) => logJson(b, index, li++, l)),
    logsBloom: bytesToHex(r.logsBloom) as Hex,
    transactionHash: tx.hash,
    transactionIndex: q(index),
    blockHash: b.hash,
    blockNumber: q(b.header.number),
    gasUsed: q(r.gasUsed),
    effectiveGasPrice: q(r.effectiveGasPrice),
    ...(variant === "a" ? { blobGasUsed: "0x0" } : {}),
    from: tx.from,
    to: tx.to,
    contractAddress: r.contractAddress,
    ...(r.depositNonce === undefined ? {} : { depositNonce: q(r.depositNonce) }),
    ...(r.depositReceiptVersion === undefined ? {} : { depositReceiptVersion: q(r.depositReceiptVersion) }),
    ...(l1 === null ? {} : l1Json(l1)),
  };
  return ordered(variant, o);
}
