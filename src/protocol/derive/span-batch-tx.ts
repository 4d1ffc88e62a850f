/**
 * Conversion between full EIP-2718 transactions and their span-batch form.
 *
 * Span-batch tx data (per tx, self-delimiting): legacy `rlp([value, gasPrice, data])`;
 * type 1 `0x01 ‖ rlp([value, gasPrice, data, accessList])`;
 * type 2 `0x02 ‖ rlp([value, maxPriorityFeePerGas, maxFeePerGas, data, accessList])`;
 * type 4 `0x04 ‖ rlp([value, maxPriorityFeePerGas, maxFeePerGas, data, accessList, authorizationList])`.
 * Nonce, gas, to and the signature live in separate span-batch columns.
 *
 * Validation follows go-ethereum's RLP struct decoding (canonical integers, exact field counts, fixed-size
 * addresses and hashes), so that every field accepted here re-encodes to exactly the bytes it came from; the
 * reconstruction therefore copies the validated RLP items verbatim instead of re-encoding them.
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import {
  expectFixed,
  expectString,
  expectUint,
  headerSize,
  type RlpRange,
  readItem,
  readListExact,
  readListItems,
  writeHeader,
} from "./rlp.js";

export const TX_TYPE_LEGACY = 0;
export const TX_TYPE_ACCESS_LIST = 1;
export const TX_TYPE_DYNAMIC_FEE = 2;
export const TX_TYPE_BLOB = 3;
export const TX_TYPE_SET_CODE = 4;
/** PostExec (0x7D, Lagoon's SDM): unsigned, `0x7D ‖ one RLP list`; the span tx data is the transaction itself. */
export const TX_TYPE_POST_EXEC = 0x7d;
export const TX_TYPE_DEPOSIT = 0x7e;

/** No practical limit on big-integer fields of legacy / 2930 / 1559 txs (go-ethereum `*big.Int`). */
const BIG = Number.MAX_SAFE_INTEGER;

function validateAccessList(buf: Uint8Array, item: RlpRange): void {
  if (!item.isList) throw new DecodeError("access list: expected list");
  for (const tuple of readListItems(buf, item.start, item.end)) {
    const [addr, keys] = readListExact(buf, tuple, 2, "access tuple");
    expectFixed(addr!, 20, "access tuple address");
    if (!keys!.isList) throw new DecodeError("access tuple storage keys: expected list");
    for (const k of readListItems(buf, keys!.start, keys!.end)) expectFixed(k, 32, "storage key");
  }
}

function validateAuthList(buf: Uint8Array, item: RlpRange): void {
  if (!item.isList) throw new DecodeError("authorization list: expected list");
  for (const auth of readListItems(buf, item.start, item.end)) {
    const f = readListExact(buf, auth, 6, "authorization");
    expectUint(buf, f[0]!, 32, "authorization chain id");
    expectFixed(f[1]!, 20, "authorization address");
    expectUint(buf, f[2]!, 8, "authorization nonce");
    expectUint(buf, f[3]!, 1, "authorization y parity");
    expectUint(buf, f[4]!, 32, "authorization r");
    expectUint(buf, f[5]!, 32, "authorization s");
  }
}

/**
 * Validates span-batch tx data and returns its transaction type and the RLP items of its fields.
 * Throws `DecodeError` for an unsupported type or malformed fields.
 */
export function parseSpanTxData(data: Uint8Array): { type: number; fields: RlpRange[] } {
  if (data.length === 0) throw new DecodeError("empty span-batch tx data");
  const first = data[0]!;
  if (first > 0x7f) {
    const f = readListExact(data, readItem(data, 0), 3, "span legacy tx");
    expectUint(data, f[0]!, BIG, "value");
    expectUint(data, f[1]!, BIG, "gas price");
    expectString(f[2]!, "data");
    return { type: TX_TYPE_LEGACY, fields: f };
  }
  if (data.length <= 1) throw new DecodeError("typed span-batch tx too short");
  const list = readItem(data, 1);
  if (list.next !== data.length) throw new DecodeError("trailing bytes after span-batch tx data");
  switch (first) {
    case TX_TYPE_ACCESS_LIST: {
      const f = readListExact(data, list, 4, "span access-list tx");
      expectUint(data, f[0]!, BIG, "value");
      expectUint(data, f[1]!, BIG, "gas price");
      expectString(f[2]!, "data");
      validateAccessList(data, f[3]!);
      return { type: first, fields: f };
    }
    case TX_TYPE_DYNAMIC_FEE: {
      const f = readListExact(data, list, 5, "span dynamic-fee tx");
      expectUint(data, f[0]!, BIG, "value");
      expectUint(data, f[1]!, BIG, "max priority fee");
      expectUint(data, f[2]!, BIG, "max fee");
      expectString(f[3]!, "data");
      validateAccessList(data, f[4]!);
      return { type: first, fields: f };
    }
    case TX_TYPE_SET_CODE: {
      const f = readListExact(data, list, 6, "span set-code tx");
      expectUint(data, f[0]!, 32, "value");
      expectUint(data, f[1]!, 32, "max priority fee");
      expectUint(data, f[2]!, 32, "max fee");
      expectString(f[3]!, "data");
      validateAccessList(data, f[4]!);
      validateAuthList(data, f[5]!);
      return { type: first, fields: f };
    }
    default:
      throw new DecodeError("unsupported span-batch tx type", { type: first });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Full tx → span form (batcher side)

/** A full transaction split into span-batch columns. */
export interface SpanTxParts {
  readonly type: number;
  readonly txData: Uint8Array;
  readonly nonce: number | bigint;
  readonly gas: number | bigint;
  readonly to: Uint8Array | undefined;
  readonly yParity: number;
  /** Legacy only: EIP-155 protected. */
  readonly protected: boolean;
  readonly r: Uint8Array;
  readonly s: Uint8Array;
}

function readBig(buf: Uint8Array, item: RlpRange, maxBytes: number, what: string): bigint {
  expectUint(buf, item, maxBytes, what);
  let v = 0n;
  for (let i = item.start; i < item.end; i++) v = (v << 8n) | BigInt(buf[i]!);
  return v;
}

function readU64(buf: Uint8Array, item: RlpRange, what: string): number | bigint {
  const v = readBig(buf, item, 8, what);
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

function word32(buf: Uint8Array, item: RlpRange, what: string): Uint8Array {
  expectUint(buf, item, 32, what);
  const out = new Uint8Array(32);
  out.set(buf.subarray(item.start, item.end), 32 - (item.end - item.start));
  return out;
}

function readTo(item: RlpRange, required: boolean): RlpRange | undefined {
  if (item.isList) throw new DecodeError("tx to: expected string");
  const len = item.end - item.start;
  if (len === 0 && item.next === item.start && !required) return undefined;
  expectFixed(item, 20, "tx to");
  return item;
}

function listOf(items: readonly RlpRange[], buf: Uint8Array, prefix: number | undefined): Uint8Array {
  let len = 0;
  for (const it of items) len += it.next - it.offset;
  const pre = prefix === undefined ? 0 : 1;
  const out = new Uint8Array(pre + headerSize(len) + len);
  let pos = 0;
  if (prefix !== undefined) out[pos++] = prefix;
  pos = writeHeader(out, pos, len, true);
  for (const it of items) {
    out.set(buf.subarray(it.offset, it.next), pos);
    pos += it.next - it.offset;
  }
  return out;
}

/** The span parts of a PostExec transaction: the whole tx as its data, no nonce, gas, recipient or signature. */
function postExecParts(tx: Uint8Array): SpanTxParts {
  const top = readItem(tx, 1);
  if (!top.isList || top.next !== tx.length) throw new DecodeError("PostExec tx must be 0x7D and one RLP list");
  return {
    type: TX_TYPE_POST_EXEC,
    txData: tx,
    nonce: 0n,
    gas: 0n,
    to: undefined,
    yParity: 0,
    protected: false,
    r: new Uint8Array(32),
    s: new Uint8Array(32),
  };
}

/**
 * Splits a full EIP-2718 transaction into its span-batch parts. Throws `DecodeError` for malformed txs, tx types
 * the span format cannot carry (blob, deposit), y-parity values other than 0/1, or a chain ID other than `chainId`.
 */
export function splitFullTx(tx: Uint8Array, chainId: bigint): SpanTxParts {
  if (tx.length === 0) throw new DecodeError("empty transaction");
  const first = tx[0]!;
  if (first > 0x7f) {
    const top = readItem(tx, 0);
    if (top.next !== tx.length) throw new DecodeError("trailing bytes after legacy tx");
    const f = readListExact(tx, top, 9, "legacy tx");
    const nonce = readU64(tx, f[0]!, "nonce");
    expectUint(tx, f[1]!, BIG, "gas price");
    const gas = readU64(tx, f[2]!, "gas");
    const to = readTo(f[3]!, false);
    expectUint(tx, f[4]!, BIG, "value");
    expectString(f[5]!, "data");
    const v = readBig(tx, f[6]!, BIG, "v");
    let yParity: number;
    let isProtected: boolean;
    if (v === 27n || v === 28n) {
      yParity = Number(v - 27n);
      isProtected = false;
    } else {
      if (v < 35n || (v - 35n) >> 1n !== chainId) throw new DecodeError("protected tx has a different chain ID");
      yParity = Number((v - 35n) & 1n);
      isProtected = true;
    }
    return {
      type: TX_TYPE_LEGACY,
      txData: listOf([f[4]!, f[1]!, f[5]!], tx, undefined),
      nonce,
      gas,
      to: to === undefined ? undefined : tx.subarray(to.start, to.end),
      yParity,
      protected: isProtected,
      r: word32(tx, f[7]!, "r"),
      s: word32(tx, f[8]!, "s"),
    };
  }
  if (first === TX_TYPE_POST_EXEC) return postExecParts(tx);
  if (first !== TX_TYPE_ACCESS_LIST && first !== TX_TYPE_DYNAMIC_FEE && first !== TX_TYPE_SET_CODE) {
    throw new DecodeError("invalid tx type for a span batch", { type: first });
  }
  const top = readItem(tx, 1);
  if (top.next !== tx.length) throw new DecodeError("trailing bytes after typed tx");
  const n = first === TX_TYPE_ACCESS_LIST ? 11 : first === TX_TYPE_DYNAMIC_FEE ? 12 : 13;
  const f = readListExact(tx, top, n, "typed tx");
  const intMax = first === TX_TYPE_SET_CODE ? 32 : BIG;
  if (readBig(tx, f[0]!, intMax, "chain id") !== chainId) throw new DecodeError("tx has a different chain ID");
  const nonce = readU64(tx, f[1]!, "nonce");
  let gasIdx: number;
  let spanFields: RlpRange[];
  if (first === TX_TYPE_ACCESS_LIST) {
    // [chainId, nonce, gasPrice, gas, to, value, data, accessList, v, r, s]
    expectUint(tx, f[2]!, BIG, "gas price");
    gasIdx = 3;
    validateAccessList(tx, f[7]!);
    expectString(f[6]!, "data");
    expectUint(tx, f[5]!, BIG, "value");
    spanFields = [f[5]!, f[2]!, f[6]!, f[7]!];
  } else {
    // [chainId, nonce, tip, feeCap, gas, to, value, data, accessList, (authList), v, r, s]
    expectUint(tx, f[2]!, intMax, "max priority fee");
    expectUint(tx, f[3]!, intMax, "max fee");
    gasIdx = 4;
    expectUint(tx, f[6]!, intMax, "value");
    expectString(f[7]!, "data");
    validateAccessList(tx, f[8]!);
    spanFields = [f[6]!, f[2]!, f[3]!, f[7]!, f[8]!];
    if (first === TX_TYPE_SET_CODE) {
      validateAuthList(tx, f[9]!);
      spanFields.push(f[9]!);
    }
  }
  const gas = readU64(tx, f[gasIdx]!, "gas");
  const to = readTo(f[gasIdx + 1]!, first === TX_TYPE_SET_CODE);
  const vIdx = n - 3;
  const v = readBig(tx, f[vIdx]!, intMax, "y parity");
  if (v > 1n) throw new DecodeError("invalid y parity");
  return {
    type: first,
    txData: listOf(spanFields, tx, first),
    nonce,
    gas,
    to: to === undefined ? undefined : tx.subarray(to.start, to.end),
    yParity: Number(v),
    protected: false,
    r: word32(tx, f[vIdx + 1]!, "r"),
    s: word32(tx, f[vIdx + 2]!, "s"),
  };
}
