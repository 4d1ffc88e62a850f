/**
 * The simulated EL's block building as the sim-el bench drives it: this tree's, or another checkout's (the code
 * before the EVM, for a before/after figure in one run: `SIM_EL_PRE_EVM_DIR`, see bench/sim-el/evm-comparison.ts).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as builder from "supernode-devnet/el/block-builder";
import * as decode from "supernode-devnet/el/tx-decode";
import type { SimBlock, SimTx } from "supernode-devnet/el/types";

type Params = Parameters<typeof builder.buildBlock>[0];
type Attributes = Parameters<typeof builder.buildBlock>[2];

export interface SimElImpl {
  readonly name: string;
  /** Synchronous before the EVM, asynchronous after. */
  readonly buildBlock: (
    p: Params,
    parent: SimBlock,
    a: Attributes,
    pool: readonly SimTx[],
  ) => SimBlock | Promise<SimBlock>;
  readonly makeGenesis: typeof builder.makeGenesis;
  readonly decodeAnyTx: typeof decode.decodeAnyTx;
}

export const CURRENT: SimElImpl = {
  name: "this tree",
  buildBlock: builder.buildBlock,
  makeGenesis: builder.makeGenesis,
  decodeAnyTx: decode.decodeAnyTx,
};

/** The block builder and decoder of the checkout at `dir` (its packages/devnet/src, on this tree's node_modules). */
export async function loadImpl(dir: string): Promise<SimElImpl> {
  const el = join(dir, "packages/devnet/src/el");
  const b = (await import(pathToFileURL(join(el, "block-builder.ts")).href)) as typeof builder;
  const d = (await import(pathToFileURL(join(el, "tx-decode.ts")).href)) as typeof decode;
  return { name: dir, buildBlock: b.buildBlock, makeGenesis: b.makeGenesis, decodeAnyTx: d.decodeAnyTx };
}
