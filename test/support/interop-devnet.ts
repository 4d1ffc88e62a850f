import type { startDevnetSupernode } from "supernode-devnet";

type DevnetSupernodeOptions = Parameters<typeof startDevnetSupernode>[0];

/**
 * The options the interop devnet tests share: chains 901 (variant A) and 902 (variant B) in one dependency set,
 * 1-s L1 and L2 blocks, ports chosen by the OS, a valid message each way every two blocks and a 250 ms L1 poll;
 * `more` adds to or overrides them (e.g. P2P, invalid messages, the L1 finality distance). Both execution clients
 * keep their head on a forkchoice update to a canonical ancestor, as op-geth (and op-reth by default) do, so the
 * invalidation and L1-reorg rewinds are tested against that rule (ADR 0060).
 */
export function interopDevnetOptions(dir: string, more: Partial<DevnetSupernodeOptions> = {}): DevnetSupernodeOptions {
  return {
    dir,
    chains: [
      { chainId: 901n, variant: "a", ancestorForkchoice: "keep-head" },
      { chainId: 902n, variant: "b", ancestorForkchoice: "keep-head" },
    ],
    rpcPort: 0,
    metricsPort: 0,
    l1BlockTimeSec: 1,
    l2BlockTimeSec: 1,
    interop: { everyBlocks: 2 },
    extraArgs: ["--l1.http-poll-interval", "250ms"],
    ...more,
  };
}
