import { type Address, bytesToHex, type Hex } from "supernode/core";
import {
  bytesToBigint,
  keccak,
  keccakHex,
  rlpDecode,
  rlpEncodeBytes,
  type RlpItem,
  txSender,
  uintToBytes,
} from "supernode/protocol";
import type { SimAuthorization, SimTx } from "./types.js";

/**
 * `decodeSigned` without viem's parser for the transactions clients send (legacy, EIP-2930, EIP-1559, EIP-7702),
 * read straight from their RLP. It gives exactly the `SimTx` the viem path gives (checked by a randomised test
 * against it) and returns undefined for anything unusual — non-canonical RLP or integers, a field of the wrong
 * shape, zero chain id or fee cap, a tip above the fee cap, integers viem reads as JS numbers past 2^53, an
 * unsigned transaction, a set-code transaction without `to` — which then takes viem's path, so errors stay the
 * same. The sender is recovered by `protocol/l1/signed-tx.ts` from the signing hash of the very bytes decoded (the
 * unsigned fields are a contiguous run of `raw`); throws only when the signature does not recover.
 */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function bytes(item: RlpItem | undefined): Uint8Array | undefined {
  return item instanceof Uint8Array ? item : undefined;
}

/** A canonical unsigned integer of at most 32 bytes. */
function uint(item: RlpItem | undefined): bigint | undefined {
  if (!(item instanceof Uint8Array) || item.length > 32 || (item.length > 0 && item[0] === 0)) return undefined;
  return item.length === 0 ? 0n : bytesToBigint(item);
}

/** An integer viem reads with `hexToNumber`. */
function safeUint(item: RlpItem | undefined): bigint | undefined {
  const v = uint(item);
  return v !== undefined && v <= MAX_SAFE ? v : undefined;
}

function address(item: RlpItem | undefined): Address | undefined {
  return item instanceof Uint8Array && item.length === 20 ? bytesToHex(item) : undefined;
}

function pad32Hex(b: Uint8Array): Hex {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex").padStart(64, "0")}`;
}

/** viem's access list, or null when it would differ from what this decodes (`[]`: none). */
function accessList(item: RlpItem | undefined): { address: Address; storageKeys: Hex[] }[] | null {
  if (!Array.isArray(item)) return null;
  const out: { address: Address; storageKeys: Hex[] }[] = [];
  for (const entry of item as readonly RlpItem[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return null;
    const addr = address(entry[0]);
    const keys = entry[1];
    if (addr === undefined || !Array.isArray(keys)) return null;
    const storageKeys: Hex[] = [];
    for (const k of keys as readonly RlpItem[]) {
      if (!(k instanceof Uint8Array) || k.length !== 32) return null;
      storageKeys.push(bytesToHex(k));
    }
    out.push({ address: addr, storageKeys });
  }
  return out;
}

function authorizations(item: RlpItem | undefined): SimAuthorization[] | null {
  if (!Array.isArray(item)) return null;
  const out: SimAuthorization[] = [];
  for (const a of item as readonly RlpItem[]) {
    if (!Array.isArray(a) || a.length !== 6) return null;
    const chainId = safeUint(a[0]);
    const addr = address(a[1]);
    const nonce = safeUint(a[2]);
    const yParity = uint(a[3]);
    const r = bytes(a[4]);
    const s = bytes(a[5]);
    if (chainId === undefined || addr === undefined || nonce === undefined || yParity === undefined) return null;
    if (yParity >= 256n || r === undefined || s === undefined || r.length > 32 || s.length > 32) return null;
    out.push({ chainId, address: addr, nonce, yParity: Number(yParity), r: pad32Hex(r), s: pad32Hex(s) });
  }
  return out;
}

/** Where the RLP encoding of byte string `item` (a subarray of `base`, as `rlpDecode` returns it) starts in `base`. */
function encodingStart(item: Uint8Array, base: Uint8Array): number {
  const at = item.byteOffset - base.byteOffset;
  if (item.length === 1 && (item[0] as number) < 0x80) return at;
  if (item.length < 56) return at - 1;
  let lenOfLen = 0;
  for (let l = item.length; l > 0; l = Math.floor(l / 256)) lenOfLen++;
  return at - 1 - lenOfLen;
}

function listHeader(len: number): Uint8Array {
  if (len < 56) return Uint8Array.of(0xc0 + len);
  const out: number[] = [];
  for (let l = len; l > 0; l = Math.floor(l / 256)) out.unshift(l & 0xff);
  return Uint8Array.of(0xf7 + out.length, ...out);
}

/**
 * keccak of the signing preimage: `type ‖ rlp(fields before the signature)` for typed transactions; for legacy ones
 * `rlp(first six fields)`, plus `chainId, 0, 0` under EIP-155. `first` and `sig` are the first field and the first
 * signature field (v / yParity) of the decoded list `body`.
 */
function signingHash(body: Uint8Array, type: number, first: Uint8Array, sig: Uint8Array, chainId?: bigint): Uint8Array {
  const from = encodingStart(first, body);
  const to = encodingStart(sig, body);
  const tail =
    type === 0 && chainId !== undefined ? [rlpEncodeBytes(uintToBytes(chainId)), Uint8Array.of(0x80, 0x80)] : [];
  let len = to - from;
  for (const t of tail) len += t.length;
  const header = listHeader(len);
  const pre = new Uint8Array((type === 0 ? 0 : 1) + header.length + len);
  let pos = 0;
  if (type !== 0) pre[pos++] = type;
  pre.set(header, pos);
  pos += header.length;
  pre.set(body.subarray(from, to), pos);
  pos += to - from;
  for (const t of tail) {
    pre.set(t, pos);
    pos += t.length;
  }
  return keccak(pre);
}

/** Field positions per type: [fields, chainId, nonce, gasPrice|tip, feeCap, gas, to, value, data, accessList, auth]. */
const LAYOUT: Record<number, readonly number[]> = {
  0: [9, -1, 0, 1, -1, 2, 3, 4, 5, -1, -1],
  1: [11, 0, 1, 2, -1, 3, 4, 5, 6, 7, -1],
  2: [12, 0, 1, 2, 3, 4, 5, 6, 7, 8, -1],
  4: [13, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
};

export function decodeSignedFast(raw: Uint8Array): SimTx | undefined {
  const first = raw[0];
  if (first === undefined) return undefined;
  const type = first >= 0xc0 ? 0 : first;
  const layout = LAYOUT[type];
  if (layout === undefined) return undefined;
  const body = type === 0 ? raw : raw.subarray(1);
  let f: RlpItem;
  try {
    f = rlpDecode(body);
  } catch {
    return undefined;
  }
  const [n, iChain, iNonce, iPrice, iFeeCap, iGas, iTo, iValue, iData, iAccess, iAuth] = layout as number[];
  if (!Array.isArray(f) || f.length !== n) return undefined;
  const fields = f as readonly RlpItem[];
  const nonce = safeUint(fields[iNonce!]);
  const price = uint(fields[iPrice!]); // gas price (0, 1) or tip (2, 4)
  const feeCap = iFeeCap === -1 ? undefined : uint(fields[iFeeCap!]);
  const gas = uint(fields[iGas!]);
  const toB = bytes(fields[iTo!]);
  const value = uint(fields[iValue!]);
  const data = bytes(fields[iData!]);
  const yParityB = fields[n! - 3];
  const rB = bytes(fields[n! - 2]);
  const sB = bytes(fields[n! - 1]);
  if (nonce === undefined || price === undefined || gas === undefined || value === undefined) return undefined;
  if (toB === undefined || (toB.length !== 0 && toB.length !== 20) || data === undefined) return undefined;
  if (type === 4 && toB.length === 0) return undefined;
  const r = uint(rB);
  const s = uint(sB);
  if (rB === undefined || sB === undefined || r === undefined || s === undefined || r === 0n || s === 0n)
    return undefined;
  let chainId: bigint | undefined;
  let v: bigint;
  let yParity: number;
  if (type === 0) {
    const vv = uint(yParityB);
    if (vv === undefined) return undefined;
    if (vv === 27n || vv === 28n) chainId = undefined;
    else if (vv >= 37n && (vv - 35n) / 2n <= MAX_SAFE) chainId = (vv - 35n) / 2n;
    else return undefined;
    v = vv;
    yParity = vv % 2n === 0n ? 1 : 0;
  } else {
    chainId = safeUint(fields[iChain!]);
    const y = uint(yParityB);
    if (chainId === undefined || chainId === 0n || y === undefined || y > 1n) return undefined;
    v = y === 0n ? 27n : 28n;
    yParity = Number(y);
  }
  if (feeCap !== undefined && (feeCap === 0n || price > feeCap)) return undefined;
  const access = iAccess === -1 ? [] : accessList(fields[iAccess!]);
  const auth = iAuth === -1 ? [] : authorizations(fields[iAuth!]);
  if (access === null || auth === null) return undefined;
  const firstField = fields[0] as Uint8Array; // nonce (legacy) or chain id: checked to be a byte string above
  const hash = signingHash(body, type, firstField, yParityB as Uint8Array, chainId);
  const recovery = type === 0 ? (v === 27n || v === 28n ? Number(v - 27n) : Number((v - 35n) & 1n)) : yParity;
  const sender = txSender({ type, to: null, data, blobVersionedHashes: [], signature: { hash, recovery, r, s } });
  if (sender === null) throw new Error("invalid transaction signature");
  // Zero-valued optional fields are left out, as viem's parser leaves them out.
  return {
    raw,
    hash: keccakHex(raw),
    type,
    from: sender.toLowerCase() as Address,
    to: toB.length === 0 ? null : bytesToHex(toB),
    value,
    gas,
    input: bytesToHex(data),
    nonce,
    ...(chainId === undefined ? {} : { chainId }),
    ...(feeCap === undefined && price !== 0n ? { gasPrice: price } : {}),
    ...(feeCap === undefined ? {} : { maxFeePerGas: feeCap }),
    ...(feeCap !== undefined && price !== 0n ? { maxPriorityFeePerGas: price } : {}),
    v,
    r: type === 0 ? bytesToHex(rB) : pad32Hex(rB),
    s: type === 0 ? bytesToHex(sB) : pad32Hex(sB),
    yParity,
    ...(access.length === 0 ? {} : { accessList: access }),
    ...(auth.length === 0 ? {} : { authorizationList: auth }),
  };
}
