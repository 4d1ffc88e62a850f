import { type Devnet, startDevnet } from "supernode-devnet";

/**
 * The devnet the app-level tests share: chains 901 (variant A) and 902 (variant B), 1-s L1 and L2 blocks and a
 * batcher polling every 500 ms, so that both chains become safe within a few seconds.
 */
export function startTwoChainDevnet(dir: string): Promise<Devnet> {
  return startDevnet({
    dir,
    chains: [
      { chainId: 901n, variant: "a" },
      { chainId: 902n, variant: "b" },
    ],
    l1BlockTimeSec: 1,
    l2BlockTimeSec: 1,
    batcherPollIntervalMs: 500,
  });
}
