/** The EVM's view of a block (block-context opcodes, rules, native predeploys) from the simulator's block data. */
import type { Hash, Hex } from "supernode/core";
import { type EvmBlockEnv, type EvmBlockFields, evmRulesFor } from "./evm-session.js";
import type { GasRules } from "./gas.js";
import { l1Predeploys } from "./l1-predeploys.js";
import { statefulNatives } from "./native-predeploys.js";

/** The fork flags the EVM rules and the predeploys depend on. */
export interface EvmForkFlags {
  readonly canyon: boolean;
  readonly ecotone: boolean;
  readonly fjord: boolean;
  readonly isthmus: boolean;
  readonly jovian: boolean;
  readonly karst: boolean;
  /** Interop: the CrossL2Inbox, the L2ToL2CrossDomainMessenger and the log emitter run. */
  readonly lagoon?: boolean;
}

export type { EvmBlockFields };

export function gasRulesFor(f: EvmForkFlags): GasRules {
  return { shanghai: f.canyon, prague: f.isthmus };
}

export function evmBlockEnv(b: EvmBlockFields, f: EvmForkFlags, l1Info: () => Hex | undefined): EvmBlockEnv {
  return {
    ...b,
    rules: evmRulesFor(f),
    natives: [
      ...l1Predeploys({
        l1Info,
        baseFee: b.baseFee,
        ecotone: f.ecotone,
        fjord: f.fjord,
        isthmus: f.isthmus,
        jovian: f.jovian,
      }),
      ...statefulNatives(f.lagoon === true),
    ],
  };
}

/** BLOCKHASH over a block's ancestors (the 256 before it), found by walking parent hashes. */
export function ancestorHashes(
  byHash: (h: Hash) => { readonly hash: Hash; readonly header: { number: number; parentHash: Hash } } | undefined,
  parent: { readonly hash: Hash; readonly header: { number: number; parentHash: Hash } },
): (n: number) => Hash | undefined {
  return (n) => {
    if (n < parent.header.number - 255 || n > parent.header.number) return undefined;
    let b: typeof parent | undefined = parent;
    while (b !== undefined && b.header.number > n) b = byHash(b.header.parentHash);
    return b?.header.number === n ? b.hash : undefined;
  };
}
