/**
 * op-batcher (the Go reference) posting batches for the supernode's sequencer: one devnet L1 (anvil), the supernode
 * sequencing on an op-geth, op-batcher reading the blocks from that op-geth (`--l2-eth-rpc`) and the sync status
 * and rollup config from the supernode's chain route (`--rollup-rpc <rpc>/<chainID>/`, the `optimism_*` names), its
 * key the devnet's batcher account for the chain (funded on L1, the rollup config's batcher address). op-node
 * (verifier) derives the batches onto a second op-geth; the supernode derives them too (its safe head).
 */
import type { Address, Hash } from "../../src/core/types/primitives.js";
import type { Devnet } from "supernode-devnet";
import { batcherAccountIndex, devAccount } from "supernode-devnet/l1/dev-accounts";
import { freePort, inReferenceRig, jsonRpc, type RefProcess, startReferenceBinary, until } from "./reference.js";
import { startOpNode, startOpNodeDevnet, startSupernodeOn } from "./reference-op-node.js";
import { compare, sendTraffic } from "./reference-oracle.js";

export type OpBatcherDataMode = "calldata" | "blobs";

export interface OpBatcherResult {
  readonly blocksCompared: number;
  readonly blockMismatches: number;
  readonly outputsCompared: number;
  /** L1 transactions from the batcher account to the batch inbox (all of them op-batcher's). */
  readonly batchesPosted: number;
  readonly userTxs: number;
  readonly mismatches: string[];
}

const CHAIN = 901n;

/** Runs until op-node's and the supernode's safe heads reach `blocks`, then compares blocks 1…blocks. */
export async function runOpBatcher(mode: OpBatcherDataMode, blocks: number): Promise<OpBatcherResult> {
  return inReferenceRig(`op-batcher-${mode}`, (dir, stops) => rig(mode, blocks, dir, stops));
}

async function rig(mode: OpBatcherDataMode, blocks: number, dir: string, stops: Array<() => Promise<void>>) {
  // The devnet's own batcher is never started (startBatchers): every batch on L1 is op-batcher's.
  const { devnet, pair } = await startOpNodeDevnet(dir, stops, { chainId: CHAIN, dataMode: mode });
  const { ours, theirs, cfg, rollupPath, jwtPath } = pair;
  const o = { jwtPath, rollupPath, logLevel: "info" as const };
  const supernode = await startSupernodeOn(devnet, dir, CHAIN, ours, o, [
    "--disable-p2p",
    "--rpc.enable-admin",
    "--vn.all.sequencer.enabled",
  ]);
  stops.push(() => supernode.stop());
  const ourRpc = `${supernode.rpc.url}/${CHAIN}/`;
  const opNode = await startOpNode(devnet, dir, theirs, o, ["--p2p.disable", "--rpc.enable-admin"]);
  stops.push(() => opNode.stop());
  // Two rollup nodes: op-batcher asks each `admin_sequencerActive` and batches from the one that says true.
  const batcher = await startOpBatcherProcess(devnet, dir, mode, [theirs.httpUrl, ours.httpUrl], [opNode.url, ourRpc]);
  stops.push(() => batcher.stop());

  const traffic = { userTxs: 0, deposits: 0, lastMs: 0 };
  const safeOf = async (url: string) =>
    (await jsonRpc<{ safe_l2: { number: number } }>(url, "optimism_syncStatus")).safe_l2.number;
  await until(
    `both safe heads at ${blocks} (op-batcher posting)`,
    async () => {
      if (batcher.child.exitCode !== null) throw new Error(`op-batcher exited with ${batcher.child.exitCode}`);
      await sendTraffic(devnet, ours.httpUrl, traffic).catch(() => {});
      return (await safeOf(opNode.url)) >= blocks && (await safeOf(ourRpc)) >= blocks ? true : undefined;
    },
    blocks * 4_000 + 120_000,
  );
  const compared = await compare(ours.httpUrl, theirs.httpUrl, ourRpc, opNode.url, blocks);
  const batchesPosted = await countBatches(
    devnet.l1.rpcUrl,
    devnet.chain(CHAIN).batcherAddress,
    cfg.batch_inbox_address,
  );
  return { ...compared, batchesPosted, userTxs: traffic.userTxs };
}

/**
 * op-batcher with the devnet chain's batcher key, posting every L1 block (channel duration 1), no DA throttling;
 * with several rollup nodes (and as many L2 execution clients) it batches from the active sequencer's.
 */
export async function startOpBatcherProcess(
  devnet: Devnet,
  dir: string,
  mode: OpBatcherDataMode,
  l2EthRpcs: readonly string[],
  rollupRpcs: readonly string[],
): Promise<RefProcess> {
  const key = devAccount(batcherAccountIndex(0)).privateKey.slice(2);
  const args = [
    ...["--l1-eth-rpc", devnet.l1.rpcUrl, "--l2-eth-rpc", l2EthRpcs.join(","), "--rollup-rpc", rollupRpcs.join(",")],
    ...["--private-key", key, "--data-availability-type", mode, "--batch-type", "1"],
    ...["--active-sequencer-check-duration", "2s"],
    ...["--poll-interval", "1s", "--max-channel-duration", "1", "--num-confirmations", "1"],
    ...["--sub-safety-margin", "4", "--resubmission-timeout", "10s", "--txmgr.receipt-query-interval", "1s"],
    ...["--throttle.unsafe-da-bytes-lower-threshold", "0", "--rpc.addr", "127.0.0.1"],
    ...["--rpc.port", String(await freePort()), "--metrics.enabled=false", "--log.level", "info"],
  ];
  return startReferenceBinary("op-batcher", args, dir);
}

/** The transactions from `batcher` to `inbox` in every L1 block so far. */
export async function countBatches(l1: string, batcher: Address, inbox: Address): Promise<number> {
  type Tx = { from: Address; to: Address | null };
  const head = Number(await jsonRpc<Hash>(l1, "eth_blockNumber"));
  let n = 0;
  for (let b = 1; b <= head; b++) {
    const block = await jsonRpc<{ transactions: Tx[] }>(l1, "eth_getBlockByNumber", [`0x${b.toString(16)}`, true]);
    n += block.transactions.filter(
      (t) => t.from.toLowerCase() === batcher.toLowerCase() && t.to?.toLowerCase() === inbox.toLowerCase(),
    ).length;
  }
  return n;
}
