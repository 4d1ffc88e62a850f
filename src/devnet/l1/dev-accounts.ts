/** Anvil's default funded accounts (mnemonic `test test … junk`), as viem local accounts. */
import { type HDAccount, mnemonicToAccount } from "viem/accounts";
import type { Address, Hex } from "../../core/types/primitives.js";

export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
export const ANVIL_ACCOUNT_COUNT = 10;

export interface DevAccount {
  readonly index: number;
  readonly address: Address;
  readonly privateKey: Hex;
  readonly account: HDAccount;
}

const cache = new Map<number, DevAccount>();

/** Dev account `index` (0..9 are funded by anvil). */
export function devAccount(index: number): DevAccount {
  const hit = cache.get(index);
  if (hit !== undefined) return hit;
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  const pk = account.getHdKey().privateKey;
  if (pk === null) throw new Error("no private key for dev account");
  const out: DevAccount = {
    index,
    address: account.address.toLowerCase() as Address,
    privateKey: `0x${Buffer.from(pk).toString("hex")}`,
    account,
  };
  cache.set(index, out);
  return out;
}

/** Dev account 0: deploys, deposits and owns the SystemConfig stand-in. */
export const DEPLOYER_INDEX = 0;

/** The batcher account of the `i`-th devnet chain (0-based): dev accounts 1, 2, … so nonces never collide. */
export function batcherAccountIndex(chainIndex: number): number {
  const idx = 1 + chainIndex;
  if (idx >= ANVIL_ACCOUNT_COUNT) throw new Error(`at most ${ANVIL_ACCOUNT_COUNT - 1} devnet chains have a batcher`);
  return idx;
}
