/**
 * The two system contracts of the L1 forks OP chains follow, as op-geth and op-reth keep them:
 * - EIP-4788 beacon block roots (OP: from Ecotone): at the start of every block the client calls it from the system
 *   address with the block's parent beacon block root; it stores `timestamp` at slot `timestamp % 8191` and the root
 *   at slot `timestamp % 8191 + 8191`. A call with a timestamp returns that root (reverts for an unknown one).
 * - EIP-2935 block hash history (OP: from Isthmus): at the start of every block the client calls it with the parent
 *   hash; it stores it at slot `(number − 1) % 8191`. A call with a block number returns its hash (the last 8191).
 * On a live chain the contracts come from the fork's upgrade deposits (Ecotone's and Isthmus's deployments by their
 * keyless senders, at the addresses below); for a fork active at genesis they are in the genesis state, as the OP
 * genesis preinstalls them. Reads run the contracts' bytecode in the EVM. The block-start system call writes what
 * that bytecode writes for the system caller, directly (its only effect; an EVM per block just for it would cost a
 * block of transfers ~2 ms, docs/adr/0111); test/unit/el/system-contracts.test.ts checks both against the bytecode.
 * A contract not (yet) deployed is not called, as a call to an empty account does nothing.
 */
import { type Address, type Hash, type Hex, hexToBytes } from "supernode/core";
import type { LedgerWriter } from "../ledger.js";

export const SYSTEM_ADDRESS: Address = "0xfffffffffffffffffffffffffffffffffffffffe";
export const BEACON_ROOTS_ADDRESS: Address = "0x000f3df6d732807ef1319fb7b8bb8522d0beac02";
export const HISTORY_STORAGE_ADDRESS: Address = "0x0000f90827f1c53a10cb7a02335b175320002935";
/** Runtime code of the beacon roots contract, as EIP-4788 gives it. */
export const BEACON_ROOTS_CODE: Hex =
  "0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500";
/** Runtime code of the history storage contract, as EIP-2935 gives it. */
export const HISTORY_STORAGE_CODE: Hex =
  "0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500";
/** Both contracts' ring buffer length (HISTORY_BUFFER_LENGTH, HISTORY_SERVE_WINDOW). */
const RING = 8191n;

function slot(n: bigint): Hash {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

/** What the genesis holds for forks active at genesis: each contract with nonce 1, as a created contract has. */
export function addSystemContracts(w: LedgerWriter, f: { ecotone: boolean; isthmus: boolean }): void {
  const put = (addr: Address, code: Hex) => {
    w.setAccount(addr, { nonce: 1n, balance: 0n });
    w.setCode(addr, hexToBytes(code));
  };
  if (f.ecotone) put(BEACON_ROOTS_ADDRESS, BEACON_ROOTS_CODE);
  if (f.isthmus) put(HISTORY_STORAGE_ADDRESS, HISTORY_STORAGE_CODE);
}

/** The block-start system calls of a block at `timestamp` / `number` (before its first transaction). */
export function applySystemCalls(
  w: LedgerWriter,
  b: { timestamp: number; number: number; parentHash: Hash; parentBeaconBlockRoot: Hash | undefined },
  f: { ecotone: boolean; isthmus: boolean },
): void {
  if (f.ecotone && b.parentBeaconBlockRoot !== undefined && w.code(BEACON_ROOTS_ADDRESS) !== undefined) {
    const t = BigInt(b.timestamp);
    w.setStorage(BEACON_ROOTS_ADDRESS, slot(t % RING), t);
    w.setStorage(BEACON_ROOTS_ADDRESS, slot((t % RING) + RING), BigInt(b.parentBeaconBlockRoot));
  }
  if (f.isthmus && b.number > 0 && w.code(HISTORY_STORAGE_ADDRESS) !== undefined)
    w.setStorage(HISTORY_STORAGE_ADDRESS, slot(BigInt(b.number - 1) % RING), BigInt(b.parentHash));
}
