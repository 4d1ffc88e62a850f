/**
 * Dev accounts derived from anvil's mnemonic (`test test … junk`) as viem local accounts. Anvil funds the first
 * ten; the devnet funds the ones it uses beyond that.
 */
import { type HDAccount, mnemonicToAccount } from "viem/accounts";
import type { Address, Hex } from "supernode/core";

export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
export const ANVIL_ACCOUNT_COUNT = 10;

export interface DevAccount {
  readonly index: number;
  readonly address: Address;
  readonly privateKey: Hex;
  readonly account: HDAccount;
}

const cache = new Map<number, DevAccount>();

/** Dev account `index` (0..9 are funded by anvil; any index derives from the mnemonic). */
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

/** The most chains a devnet holds (batcher accounts 1…256; those past anvil's ten are funded by the devnet). */
export const MAX_DEVNET_CHAINS = 256;

/** Balance the devnet gives derived dev accounts (index ≥ `ANVIL_ACCOUNT_COUNT`) on L1: 10_000 ETH like anvil's. */
export const DERIVED_ACCOUNT_BALANCE_WEI = 10n ** 22n;

/** Whether anvil itself funds dev account `index` (otherwise it needs `anvil_setBalance`). */
export function fundedByAnvil(index: number): boolean {
  return index < ANVIL_ACCOUNT_COUNT;
}

/**
 * The batcher account of the `i`-th devnet chain (0-based): dev accounts 1, 2, … so nonces never collide. Indices
 * from `ANVIL_ACCOUNT_COUNT` on are derived from the same mnemonic and must be funded with `anvil_setBalance`.
 */
export function batcherAccountIndex(chainIndex: number): number {
  if (!Number.isInteger(chainIndex) || chainIndex < 0 || chainIndex >= MAX_DEVNET_CHAINS) {
    throw new Error(`a devnet holds at most ${MAX_DEVNET_CHAINS} chains (chain index ${chainIndex})`);
  }
  return 1 + chainIndex;
}

/** The dev accounts as the devnet presents them to developers (banner, `devnet.json`). */
export interface DevAccountsSummary {
  readonly mnemonic: string;
  /** Each account's balance on every L2 at genesis (anvil gives them 10 000 ETH on L1). */
  readonly l2BalanceWei: string;
  readonly accounts: ReadonlyArray<{ readonly index: number; readonly address: Address; readonly privateKey: Hex }>;
  /** Which accounts the devnet itself sends from (a developer's transactions from them race its nonces). */
  readonly usedByTheDevnet: string;
}

export function devAccountsSummary(l2BalanceWei: bigint): DevAccountsSummary {
  return {
    mnemonic: ANVIL_MNEMONIC,
    l2BalanceWei: l2BalanceWei.toString(),
    accounts: Array.from({ length: ANVIL_ACCOUNT_COUNT }, (_, i) => {
      const a = devAccount(i);
      return { index: i, address: a.address, privateKey: a.privateKey };
    }),
    usedByTheDevnet:
      "L1: #0 deploys the rollup contracts and sends the demo deposits, #1… post each chain's batches; " +
      "L2: #9 sends the --interop messages",
  };
}
