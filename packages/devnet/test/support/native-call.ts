/** Runs one call into the simulated client's EVM, natives included, on a fresh Interop-enabled state (tests). */
import type { Address, Hash, Hex } from "supernode/core";
import { evmBlockEnv } from "../../src/el/evm/block-env.js";
import { type EvmOutcome, EvmSession } from "../../src/el/evm/evm-session.js";
import { placeNativeStandIns } from "../../src/el/evm/native-predeploys.js";
import { LedgerState, LedgerWriter } from "../../src/el/ledger.js";

export const CALLER: Address = "0x00000000000000000000000000000000000c0de1";

/** A session on one block of chain `chainId` with every fork through Interop active. */
export function interopSession(chainId = 902n, alloc: Record<Address, bigint> = { [CALLER]: 10n ** 20n }) {
  const w = new LedgerWriter(LedgerState.empty());
  for (const [a, v] of Object.entries(alloc)) w.credit(a as Address, v);
  placeNativeStandIns(w, { lagoon: 0 });
  const env = evmBlockEnv(
    {
      chainId,
      number: 10,
      timestamp: 1_700_000_020,
      coinbase: "0x4200000000000000000000000000000000000011",
      gasLimit: 30_000_000n,
      baseFee: 1n,
      prevRandao: `0x${"00".repeat(32)}`,
      blockHash: () => undefined,
    },
    { canyon: true, ecotone: true, fjord: true, isthmus: true, jovian: true, karst: false, lagoon: true },
    () => undefined,
  );
  return { session: new EvmSession(w, env), writer: w };
}

/** One call, its changes kept in the session (`keep`) or dropped. */
export function runCall(
  session: EvmSession,
  to: Address | null,
  input: Hex,
  o: {
    from?: Address;
    value?: bigint;
    gas?: bigint;
    keep?: boolean;
    accessList?: { address: Address; storageKeys: Hash[] }[];
  } = {},
): Promise<EvmOutcome> {
  return session.run(
    {
      from: o.from ?? CALLER,
      to,
      value: o.value ?? 0n,
      input,
      gas: o.gas ?? 1_000_000n,
      gasPrice: 1n,
      ...(o.accessList === undefined ? {} : { accessList: o.accessList }),
    },
    { keep: o.keep ?? true },
  );
}
