/**
 * EIP-7702 set-code transactions (type 4, Prague rules: Isthmus). Before the message runs, each signed authorization
 * of the list is applied as a real client applies it, in order, after the sender's nonce is bumped: one whose chain
 * id is neither 0 nor this chain's, whose nonce would overflow, whose signature is malleable or does not recover,
 * whose authority holds code other than a delegation, or whose nonce is not the authority's is skipped (the
 * transaction goes on). A valid one writes the delegation designator `0xef0100 ‖ address` as the authority's code
 * (the zero address clears it), bumps the authority's nonce and, when the authority already existed, refunds
 * 25000 − 12500 gas (PER_EMPTY_ACCOUNT_COST − PER_AUTH_BASE_COST) through the refund counter. Every authority that
 * recovers is warm for the message.
 */
import { type Address, type Hex, hexToBytes, ZERO_ADDRESS } from "supernode/core";
import { keccak, recoverSigner, rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "supernode/protocol";
import type { LedgerWriter } from "../ledger.js";
import type { SimAuthorization } from "../types.js";

/** The delegation designator's prefix: code `0xef0100 ‖ address` makes calls to the account run `address`'s code. */
export const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
const MAGIC = 0x05;
const EXISTING_AUTHORITY_REFUND = 25_000n - 12_500n;
const NONCE_LIMIT = (1n << 64n) - 1n;
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export interface AppliedAuthorizations {
  /** Gas for the refund counter (capped with the rest of the transaction's refund). */
  readonly refund: bigint;
  /** Every authority that recovered (warm for the message, valid or not). */
  readonly warm: readonly Address[];
}

/** Whether `code` is a delegation designator (23 bytes: `0xef0100 ‖ address`). */
export function isDelegation(code: Uint8Array | undefined): boolean {
  return code !== undefined && code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/** The delegation designator of `address`. */
export function delegationCode(address: Address): Uint8Array {
  const out = new Uint8Array(23);
  out.set(DELEGATION_PREFIX, 0);
  out.set(hexToBytes(address), 3);
  return out;
}

/** The address that signed an authorization: ecrecover over keccak256(0x05 ‖ rlp([chainId, address, nonce])). */
export function authorityOf(a: SimAuthorization): Address | null {
  const s = BigInt(a.s);
  const r = BigInt(a.r);
  if (a.yParity > 1 || s > HALF_N || s === 0n || r === 0n) return null;
  const list = rlpEncodeListRaw([
    rlpEncodeBytes(uintToBytes(a.chainId)),
    rlpEncodeBytes(hexToBytes(a.address)),
    rlpEncodeBytes(uintToBytes(a.nonce)),
  ]);
  const preimage = new Uint8Array(list.length + 1);
  preimage[0] = MAGIC;
  preimage.set(list, 1);
  const sig = new Uint8Array(65);
  sig.set(hexToBytes(`0x${r.toString(16).padStart(64, "0")}` as Hex), 0);
  sig.set(hexToBytes(`0x${s.toString(16).padStart(64, "0")}` as Hex), 32);
  sig[64] = a.yParity;
  const signer = recoverSigner(keccak(preimage), sig);
  return signer === null ? null : (signer.toLowerCase() as Address);
}

/** Applies an authorization list to the block's working state (the sender's nonce already bumped). */
export function applyAuthorizations(
  w: LedgerWriter,
  list: readonly SimAuthorization[],
  chainId: bigint,
): AppliedAuthorizations {
  let refund = 0n;
  const warm: Address[] = [];
  for (const a of list) {
    if (a.chainId !== 0n && a.chainId !== chainId) continue;
    if (a.nonce >= NONCE_LIMIT) continue;
    const authority = authorityOf(a);
    if (authority === null) continue;
    warm.push(authority);
    const code = w.code(authority)?.bytes;
    if (code !== undefined && code.length > 0 && !isDelegation(code)) continue;
    const acc = w.account(authority);
    if (acc.nonce !== a.nonce) continue;
    if (acc.nonce !== 0n || acc.balance !== 0n || code !== undefined) refund += EXISTING_AUTHORITY_REFUND;
    w.bumpNonce(authority);
    w.setCode(authority, a.address === ZERO_ADDRESS ? new Uint8Array(0) : delegationCode(a.address));
  }
  return { refund, warm };
}
