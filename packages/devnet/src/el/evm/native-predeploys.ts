/**
 * Which stateful native predeploys a block runs, and the code they show. The message passer is on every chain; the
 * CrossL2Inbox, the L2ToL2CrossDomainMessenger and the devnet's log emitter from the Interop (Lagoon) activation.
 *
 * Each holds a five-byte stand-in code from genesis (`PUSH1 0 PUSH1 0 REVERT`): the EVM runs the native instead
 * (a precompile at that address), but EXTCODESIZE and `eth_getCode` see a contract, so Solidity's check before a
 * call without return data (`initiateWithdrawal`, `validateMessage`) passes as it does against the real proxies, and
 * a transaction to one runs in the EVM. Before the activation (a later `lagoon=` offset) the stand-in reverts.
 */
import { type Address, hexToBytes } from "supernode/core";
import { CROSS_L2_INBOX, L2_TO_L2_CROSS_DOMAIN_MESSENGER, LOG_EMITTER_ADDRESS } from "../interop-predeploys.js";
import type { LedgerWriter } from "../ledger.js";
import type { ElForks } from "../types.js";
import { crossL2Inbox, logEmitter } from "./interop-natives.js";
import { l2ToL2CrossDomainMessenger } from "./l2-to-l2-messenger.js";
import { MESSAGE_PASSER_ADDRESS, messagePasser } from "./message-passer.js";
import type { StatefulNative } from "./native-frame.js";

export const NATIVE_STAND_IN_CODE = hexToBytes("0x60006000fd");

const INTEROP: readonly StatefulNative[] = [crossL2Inbox, l2ToL2CrossDomainMessenger, logEmitter];
const INTEROP_ADDRESSES: readonly Address[] = [CROSS_L2_INBOX, L2_TO_L2_CROSS_DOMAIN_MESSENGER, LOG_EMITTER_ADDRESS];

/** The stateful natives of a block (`interop`: Lagoon active at its timestamp). */
export function statefulNatives(interop: boolean): StatefulNative[] {
  return interop ? [messagePasser, ...INTEROP] : [messagePasser];
}

/** Writes the stand-in code of every native the chain will run (the interop ones when Lagoon is scheduled). */
export function placeNativeStandIns(w: LedgerWriter, forks: ElForks): void {
  const addresses =
    forks.lagoon === undefined ? [MESSAGE_PASSER_ADDRESS] : [MESSAGE_PASSER_ADDRESS, ...INTEROP_ADDRESSES];
  for (const a of addresses) w.setCode(a, NATIVE_STAND_IN_CODE);
}
