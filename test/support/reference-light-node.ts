/**
 * An op-node light node following the supernode: op-node with `--l2.follow.source` on the supernode's chain route
 * (it reads `optimism_syncStatus` there and derives nothing), its op-geth EL-syncing the blocks from the supernode's
 * op-geth over devp2p. The supernode sequences, the devnet's batcher posts its blocks, the supernode derives them.
 * Measured: how far the light node's safe head trails the supernode's, and whether its safe and finalized blocks
 * are the supernode's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hash } from "../../src/core/types/primitives.js";
import { startDevnet } from "supernode-devnet";
import { Batcher } from "supernode-devnet/batcher/batcher";
import { batcherAccountIndex } from "supernode-devnet/l1/dev-accounts";
import { connectOpGeth, jsonRpc, until } from "./reference.js";
import { startOpGethPair, startOpNode, startSupernodeOn } from "./reference-op-node.js";
import { sendTraffic } from "./reference-oracle.js";

export interface LightNodeResult {
  /** The supernode's safe number minus the light node's, sampled each poll once the light node had a safe head. */
  readonly medianSafeLag: number;
  readonly maxSafeLag: number;
  /** The same at the end of the run. */
  readonly lastSafeLag: number;
  readonly safe: number;
  readonly finalized: number;
  /** Heads the light node reported that are not the supernode's block at that number. */
  readonly mismatches: string[];
}

type Head = { hash: Hash; number: number };
type Status = { safe_l2: Head; finalized_l2: Head; unsafe_l2: Head };
const CHAIN = 901n;

/** Runs until the light node's safe head reaches `blocks` and its finalized head moved. */
export async function runLightNode(blocks: number): Promise<LightNodeResult> {
  const dir = mkdtempSync(join(tmpdir(), "sn-ref-light-node-"));
  const stops: Array<() => Promise<void>> = [];
  try {
    return await rig(blocks, dir, stops);
  } catch (err) {
    throw new Error(`${(err as Error).message} (light node; logs in ${dir})`);
  } finally {
    for (const s of stops.reverse()) await s().catch(() => {});
    if (process.env.REFERENCE_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
  }
}

async function rig(blocks: number, dir: string, stops: Array<() => Promise<void>>): Promise<LightNodeResult> {
  const devnet = await startDevnet({
    dir,
    chains: [{ chainId: CHAIN, variant: "b" }],
    l1BlockTimeSec: 1,
    l2BlockTimeSec: 1,
    dataMode: "calldata",
  });
  stops.push(() => devnet.stop());
  const { ours, theirs, cfg, rollupPath, jwtPath } = await startOpGethPair(devnet, CHAIN, dir, stops, 2);
  const o = { jwtPath, rollupPath, logLevel: "info" as const };
  const supernode = await startSupernodeOn(devnet, dir, CHAIN, ours, o, [
    "--disable-p2p",
    "--vn.all.sequencer.enabled",
  ]);
  stops.push(() => supernode.stop());
  const batcher = new Batcher({
    rollupConfig: cfg,
    l2RpcUrl: ours.httpUrl,
    l1: devnet.l1Node.client,
    accountIndex: batcherAccountIndex(0),
    mode: "calldata",
    batchType: "span",
    pollIntervalMs: 1000,
  });
  batcher.start();
  stops.push(() => batcher.stop());
  await connectOpGeth(theirs, ours);
  const ourRpc = `${supernode.rpc.url}/${CHAIN}/`;
  const light = await startOpNode(devnet, dir, theirs, o, ["--p2p.disable", "--l2.follow.source", ourRpc]);
  stops.push(() => light.stop());

  const traffic = { userTxs: 0, deposits: 0, lastMs: 0 };
  const lags: number[] = [];
  const last = await until(
    `the light node's safe head at ${blocks} and a finalized head`,
    async () => {
      await sendTraffic(devnet, ours.httpUrl, traffic).catch(() => {});
      const theirsNow = await jsonRpc<Status>(light.url, "optimism_syncStatus");
      const oursNow = await jsonRpc<Status>(ourRpc, "optimism_syncStatus");
      if (theirsNow.safe_l2.number > 0) lags.push(oursNow.safe_l2.number - theirsNow.safe_l2.number);
      return theirsNow.safe_l2.number >= blocks && theirsNow.finalized_l2.number > 0 ? theirsNow : undefined;
    },
    blocks * 4_000 + 120_000,
  );
  // By number on both op-geth: the light node's forkchoice update to its op-geth may trail its own status a moment.
  const mismatches: string[] = [];
  for (const [label, head] of [
    ["safe", last.safe_l2],
    ["finalized", last.finalized_l2],
  ] as const) {
    const q = [`0x${head.number.toString(16)}`, false];
    const mine = await jsonRpc<Head>(ours.httpUrl, "eth_getBlockByNumber", q);
    const onTheirEl = await until(
      `block ${head.number} on the light node's op-geth`,
      async () => {
        return (await jsonRpc<Head | null>(theirs.httpUrl, "eth_getBlockByNumber", q)) ?? undefined;
      },
      30_000,
    );
    if (mine.hash !== head.hash) mismatches.push(`${label} ${head.number}: supernode ${mine.hash}, light ${head.hash}`);
    if (onTheirEl.hash !== head.hash)
      mismatches.push(
        `${label} ${head.number} on the light node's op-geth: ${onTheirEl.hash}, its op-node ${head.hash}`,
      );
  }
  return {
    medianSafeLag: [...lags].sort((a, b) => a - b)[Math.floor(lags.length / 2)] ?? 0,
    maxSafeLag: Math.max(0, ...lags),
    lastSafeLag: lags.at(-1) ?? 0,
    safe: last.safe_l2.number,
    finalized: last.finalized_l2.number,
    mismatches,
  };
}
