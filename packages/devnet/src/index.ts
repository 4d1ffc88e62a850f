/**
 * `supernode-devnet`: the devnet (anvil L1, one simulated execution client and one batcher per chain) and the
 * devnet with a supernode sequencing every chain, as `npm start` runs it. Its parts have subpaths of their own
 * (`supernode-devnet/el`, `supernode-devnet/l1/anvil`, …) for the repository's tests and benches.
 */
export { devnetBin } from "./bin-path.js";
export { processGuardPath } from "./process-guard.js";
export * from "./cli/supernode.js";
export * from "./devnet.js";
