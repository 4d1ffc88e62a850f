import { bytesToHex } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hash } from "../../core/types/primitives.js";
import { keccak, keccakOfTwo } from "../block/keccak.js";
import {
  asBytes,
  asList,
  asUint,
  type RlpItem,
  rlpDecode,
  rlpEncode,
  rlpEncodedSize,
  rlpListHeader,
  uintToBytes,
} from "../block/rlp.js";
import { decodeDepositTx } from "../l2/deposit-tx.js";
import { recoverPublicKey, SECP256K1_ORDER } from "./secp256k1-recover.js";

/** The parts of a signed L1 transaction that derivation needs. */
export interface SignedTxInfo {
  /** 0 legacy, 1 access list, 2 dynamic fee, 3 blob, 4 set-code, 0x7e deposit. */
  readonly type: number;
  /** Chain ID the signature commits to (undefined for pre-EIP-155 legacy and deposits). */
  readonly chainId?: bigint;
  readonly to: Address | null;
  readonly data: Uint8Array;
  readonly blobVersionedHashes: readonly Hash[];
  /** Deposit `from`, or the signature to recover the sender from (see {@link txSender}). */
  readonly from?: Address;
  readonly signature?: { readonly hash: Uint8Array; readonly recovery: number; readonly r: bigint; readonly s: bigint };
}

/** Sender recovered from the signature (or the deposit `from`); null when the signature is invalid. */
export function txSender(tx: SignedTxInfo): Address | null {
  if (tx.from !== undefined) return tx.from;
  const sig = tx.signature;
  return sig === undefined ? null : recover(sig.hash, sig.recovery, sig.r, sig.s);
}

const N = SECP256K1_ORDER;
const HALF_N = N >> 1n;

function recover(sigHash: Uint8Array, recovery: number, r: bigint, s: bigint): Address | null {
  if (r <= 0n || r >= N || s <= 0n || s > HALF_N || (recovery !== 0 && recovery !== 1)) return null;
  try {
    const pub = recoverPublicKey(sigHash, recovery, r, s);
    return bytesToHex(keccak(pub.subarray(1)).subarray(12));
  } catch {
    return null;
  }
}

function addr(item: RlpItem | undefined, what: string): Address | null {
  const b = asBytes(item, what);
  if (b.length === 0) return null;
  if (b.length !== 20) throw new DecodeError(`tx: ${what} must be 20 bytes`);
  return bytesToHex(b);
}

/**
 * Decodes an EIP-2718 transaction (legacy RLP or typed) and recovers its sender.
 * Throws DecodeError on malformed bytes; an unrecoverable signature gives `sender: null`.
 */
export function decodeSignedTx(raw: Uint8Array): SignedTxInfo {
  if (raw.length === 0) throw new DecodeError("tx: empty");
  const first = raw[0] as number;
  if (first === 0x7e) {
    const d = decodeDepositTx(raw);
    return {
      type: 0x7e,
      to: d.to,
      data: Buffer.from(d.data.slice(2), "hex"),
      blobVersionedHashes: [],
      from: d.from,
    };
  }
  if (first >= 0xc0) {
    const f = asList(rlpDecode(raw), "legacy tx");
    if (f.length !== 9) throw new DecodeError("legacy tx: expected 9 fields");
    const v = asUint(f[6], "v");
    const r = asUint(f[7], "r");
    const s = asUint(f[8], "s");
    let chainId: bigint | undefined;
    let recovery: number;
    let preimage: RlpItem[];
    if (v === 27n || v === 28n) {
      recovery = Number(v - 27n);
      preimage = f.slice(0, 6) as RlpItem[];
    } else if (v >= 35n) {
      chainId = (v - 35n) >> 1n;
      recovery = Number((v - 35n) & 1n);
      preimage = [...(f.slice(0, 6) as RlpItem[]), uintToBytes(chainId), new Uint8Array(0), new Uint8Array(0)];
    } else {
      throw new DecodeError("legacy tx: invalid v");
    }
    const signature = { hash: keccak(rlpEncode(preimage)), recovery, r, s };
    return {
      type: 0,
      ...(chainId === undefined ? {} : { chainId }),
      to: addr(f[3], "to"),
      data: asBytes(f[5], "data"),
      blobVersionedHashes: [],
      signature,
    };
  }
  if (first > 0x7f) throw new DecodeError(`tx: invalid type byte ${first}`);
  const f = asList(rlpDecode(raw.subarray(1)), "typed tx");
  const layout = TYPED_LAYOUT[first];
  if (layout === undefined) throw new DecodeError(`tx: unsupported type ${first}`);
  if (f.length !== layout.fields) throw new DecodeError(`tx type ${first}: expected ${layout.fields} fields`);
  const chainId = asUint(f[0], "chainId");
  const n = f.length;
  const yParity = asUint(f[n - 3], "yParity");
  const r = asUint(f[n - 2], "r");
  const s = asUint(f[n - 1], "s");
  const signature = { hash: typedSigningHash(raw, f), recovery: yParity > 1n ? 2 : Number(yParity), r, s };
  let blobVersionedHashes: Hash[] = [];
  if (first === 3) {
    blobVersionedHashes = asList(f[10], "blobVersionedHashes").map((h) => {
      const b = asBytes(h, "blob hash");
      if (b.length !== 32) throw new DecodeError("tx: blob hash must be 32 bytes");
      return bytesToHex(b);
    });
  }
  const to = addr(f[layout.to], "to");
  if ((first === 3 || first === 4) && to === null) throw new DecodeError(`tx type ${first}: missing to`);
  return { type: first, chainId, to, data: asBytes(f[layout.to + 2], "data"), blobVersionedHashes, signature };
}

/**
 * The signing hash of the typed transaction `raw` (decoded into `f`, its signature the last three fields):
 * keccak256(type ‖ rlp(fields without the signature)). The decoder accepts canonical RLP only, so the unsigned
 * fields' encoding is the very bytes of `raw` between its list header and the signature fields: they are hashed in
 * place behind a new list header, not encoded again into a copy and copied once more behind the type byte (two
 * buffers of the transaction's size per batcher transaction, ~120 kB each with calldata; docs/performance.md).
 */
function typedSigningHash(raw: Uint8Array, f: readonly RlpItem[]): Uint8Array {
  const n = f.length;
  const body = raw.subarray(1);
  const outer = body[0] as number;
  const fieldsStart = outer <= 0xf7 ? 1 : 1 + (outer - 0xf7);
  let sigSize = 0;
  for (let i = n - 3; i < n; i++) sigSize += rlpEncodedSize(f[i] as Uint8Array);
  const fieldsEnd = body.length - sigSize;
  const header = rlpListHeader(fieldsEnd - fieldsStart);
  const prefix = new Uint8Array(1 + header.length);
  prefix[0] = raw[0] as number;
  prefix.set(header, 1);
  return keccakOfTwo(prefix, body.subarray(fieldsStart, fieldsEnd));
}

const TYPED_LAYOUT: Record<number, { fields: number; to: number }> = {
  1: { fields: 11, to: 4 },
  2: { fields: 12, to: 5 },
  3: { fields: 14, to: 5 },
  4: { fields: 13, to: 5 },
};
