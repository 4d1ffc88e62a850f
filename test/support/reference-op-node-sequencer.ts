/**
 * op-node sequencing, op-batcher batching, the supernode verifying (test/reference/op-node-sequencer.test.ts): one
 * devnet L1 (anvil), op-node as the chain's sequencer on its own op-geth (P2P off), op-batcher posting op-node's
 * blocks with the devnet chain's batcher key, and the supernode (`bin/supernode.js`, a process of its own) as a
 * verifier deriving the chain from L1 alone (no P2P) onto a second op-geth. Traffic (deposits on L1, user
 * transactions) goes to op-node's op-geth.
 *
 * Both rollup nodes' sync statuses are sampled over the run (every 200 ms): each safe and finalized head of ours
 * must be op-node's block at that number, and our `current_l1` (`stack_syncStatus`) is set against op-node's
 * (`optimism_syncStatus`). At the end our `current_l1` must reach where op-node's was, and every block and output
 * root up to the compared height must agree. The samples (time, op-node's and our current_l1 and safe_l2 numbers) go to
 * `<dir>/sync-status-samples.log`.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { Hash } from "../../src/core/types/primitives.js";
import type { Fork } from "../../src/protocol/rollup-config.js";
import { inReferenceRig, jsonRpc, type RefProcess, until } from "./reference.js";
import { countBatches, type OpBatcherDataMode, startOpBatcherProcess } from "./reference-op-batcher.js";
import { startSupernodeProcess } from "./reference-el.js";
import { OP_NODE_SEQUENCER_ARGS, startOpNode, startOpNodeDevnet } from "./reference-op-node.js";
import { CHAIN, compare, sendTraffic } from "./reference-oracle.js";

export interface SequencerCase {
  readonly name: string;
  readonly dataMode: OpBatcherDataMode;
  /** Fork offsets after L2 genesis (devnetForkOffsets); default every fork through Jovian at genesis. */
  readonly forkOffsets?: Partial<Record<Fork, number | undefined>>;
  /** Sequencing window in L1 blocks (default the devnet's 3600). */
  readonly seqWindowSize?: number;
  /**
   * op-batcher stops once op-node's safe head is at `atSafe` and starts again `l1Blocks` L1 blocks later: with a
   * window shorter than that, the epochs without batches end in deposit-only blocks that replace op-node's own.
   */
  readonly batcherGap?: { readonly atSafe: number; readonly l1Blocks: number };
}

type BlockId = { hash: Hash; number: number };
type Status = { current_l1: BlockId; head_l1: BlockId; safe_l2: BlockId; finalized_l2: BlockId };

/** op-node's current_l1 number minus ours, one per sample (once op-node's pipeline has an origin). */
export interface CurrentL1Figures {
  readonly samples: number;
  readonly medianLag: number;
  readonly maxLag: number;
  /** The most our current_l1 was ahead of op-node's (a negative lag), 0 if never. */
  readonly maxLead: number;
  readonly lastLag: number;
  /** At the end: op-node's current_l1 then, and how long ours took to reach it. */
  readonly target: number;
  readonly catchUpMs: number;
}

export interface SequencerResult {
  readonly blocksCompared: number;
  readonly blockMismatches: number;
  readonly outputsCompared: number;
  readonly batchesPosted: number;
  readonly userTxs: number;
  readonly deposits: number;
  /** Distinct safe and finalized heads of ours in the samples (past genesis), each checked against op-node's block. */
  readonly headsChecked: { readonly safe: number; readonly finalized: number };
  readonly currentL1: CurrentL1Figures;
  /** Blocks 1…blocks on op-node's op-geth without a user transaction (the window's deposit-only blocks among them). */
  readonly depositOnlyBlocks: number;
  /** With `batcherGap`: the L1 blocks op-batcher was stopped between. */
  readonly gap?: { readonly fromL1: number; readonly toL1: number };
  /** The first disagreements, each naming both sides' values. */
  readonly mismatches: string[];
}

/** Runs one case until op-node's and the supernode's safe heads reach `blocks`, sampling both meanwhile. */
export function runOpNodeSequencer(c: SequencerCase, blocks: number): Promise<SequencerResult> {
  return inReferenceRig(`op-node-sequencer-${c.name}`, async (dir, stops) => {
    // op-batcher posts every batch: the devnet's own batcher is not started.
    const { devnet, pair } = await startOpNodeDevnet(dir, stops, { chainId: CHAIN, ...c });
    const { ours, theirs, cfg, rollupPath, jwtPath } = pair;
    const opNode = await startOpNode(devnet, dir, theirs, { jwtPath, rollupPath, logLevel: "info" }, [
      ...OP_NODE_SEQUENCER_ARGS,
      "--p2p.disable",
    ]);
    stops.push(() => opNode.stop());
    const startBatcher = () => startOpBatcherProcess(devnet, dir, c.dataMode, [theirs.httpUrl], [opNode.url]);
    let batcher: RefProcess | undefined = await startBatcher();
    stops.push(() => batcher?.stop() ?? Promise.resolve());
    const gap: { fromL1?: number; toL1?: number } = {};
    // A process of its own, as op-node is: the test's own work (e.g. the devnet's beacon API) never holds it up.
    const role = { name: "supernode", sequencer: false };
    const ourRpc = (await startSupernodeProcess({ devnet, pair }, dir, ours, role, stops)).url;

    const traffic = { userTxs: 0, deposits: 0, lastMs: 0 };
    const sampler = new StatusSampler(theirs.httpUrl, join(dir, "sync-status-samples.log"));
    await until(
      `both safe heads at ${blocks} (op-node sequencing, op-batcher posting)`,
      async () => {
        if (batcher !== undefined && batcher.child.exitCode !== null)
          throw new Error(`op-batcher exited with ${batcher.child.exitCode}`);
        await sendTraffic(devnet, theirs.httpUrl, traffic).catch(() => {});
        const [t, u] = await Promise.all([
          jsonRpc<Status>(opNode.url, "optimism_syncStatus"),
          jsonRpc<Status>(ourRpc, "stack_syncStatus"),
        ]);
        await sampler.sample(t, u);
        if (c.batcherGap !== undefined && gap.fromL1 === undefined && t.safe_l2.number >= c.batcherGap.atSafe) {
          await batcher?.stop();
          batcher = undefined;
          gap.fromL1 = t.head_l1.number;
        } else if (c.batcherGap !== undefined && batcher === undefined) {
          if (t.head_l1.number >= (gap.fromL1 ?? 0) + c.batcherGap.l1Blocks) {
            batcher = await startBatcher();
            gap.toL1 = t.head_l1.number;
          }
        }
        return t.safe_l2.number >= blocks && u.safe_l2.number >= blocks ? true : undefined;
      },
      blocks * 4_000 + 120_000,
    );
    const currentL1 = await sampler.catchUp(opNode.url, ourRpc);
    await sampler.flush((await jsonRpc<Status>(opNode.url, "optimism_syncStatus")).safe_l2.number);
    const compared = await compare(ours.httpUrl, theirs.httpUrl, ourRpc, opNode.url, blocks);
    const batchesPosted = await countBatches(
      devnet.l1.rpcUrl,
      devnet.chain(CHAIN).batcherAddress,
      cfg.batch_inbox_address,
    );
    return {
      ...compared,
      mismatches: [...sampler.mismatches, ...compared.mismatches],
      batchesPosted,
      userTxs: traffic.userTxs,
      deposits: traffic.deposits,
      headsChecked: sampler.checked,
      currentL1,
      depositOnlyBlocks: await depositOnlyBlocks(theirs.httpUrl, opNode.url, blocks, join(dir, "blocks.log")),
      ...(gap.fromL1 !== undefined && gap.toL1 !== undefined ? { gap: { fromL1: gap.fromL1, toL1: gap.toL1 } } : {}),
    };
  });
}

/**
 * The live comparison of op-node's and our sync statuses: our safe and finalized heads against op-node's blocks,
 * current_l1 against op-node's.
 */
class StatusSampler {
  readonly mismatches: string[] = [];
  /** Distinct safe and finalized heads of ours checked. */
  readonly checked = { safe: 0, finalized: 0 };
  private readonly last = { safe: 0, finalized: 0 };
  private readonly lags: number[] = [];
  private pending: Array<{ kind: "safe" | "finalized"; head: BlockId }> = [];

  /** `opNodeEl`: op-node's op-geth; every sample is appended to `logPath` (kept with REFERENCE_KEEP=1). */
  constructor(
    private readonly opNodeEl: string,
    private readonly logPath: string,
  ) {}

  async sample(theirs: Status, ours: Status): Promise<void> {
    // Before its derivation pipeline's first step op-node answers the zero block (its sequencer already builds).
    if (theirs.current_l1.number > 0) this.lags.push(theirs.current_l1.number - ours.current_l1.number);
    const [t, u] = [theirs.current_l1, ours.current_l1];
    const line = `${new Date().toISOString()} current_l1 ${t.number} ${u.number} safe_l2 ${theirs.safe_l2.number} ${ours.safe_l2.number}`;
    appendFileSync(this.logPath, `${line}\n`);
    if (t.number === u.number && t.hash !== u.hash)
      this.note(`current_l1 ${u.number}: supernode ${u.hash}, op-node ${t.hash}`);
    this.queue("safe", ours.safe_l2);
    this.queue("finalized", ours.finalized_l2);
    await this.flush(theirs.safe_l2.number);
  }

  /** Our `kind` head, when it moved on since the last sample, waits for op-node's safe head to pass it. */
  private queue(kind: "safe" | "finalized", head: BlockId): void {
    if (head.number <= this.last[kind]) return;
    this.last[kind] = head.number;
    this.checked[kind]++;
    this.pending.push({ kind, head });
  }

  /**
   * Checks the queued heads at or below op-node's safe head against op-node's block at their number (a block above
   * it may still be one op-node's derivation replaces).
   */
  async flush(opNodeSafe: number): Promise<void> {
    const due = this.pending.filter((p) => p.head.number <= opNodeSafe);
    this.pending = this.pending.filter((p) => p.head.number > opNodeSafe);
    for (const { kind, head } of due) {
      const q = `0x${head.number.toString(16)}`;
      const block = await jsonRpc<BlockId | null>(this.opNodeEl, "eth_getBlockByNumber", [q, false]);
      if (block?.hash !== head.hash)
        this.note(`${kind} head ${head.number}: supernode ${head.hash}, op-node ${block?.hash ?? "no block"}`);
    }
  }

  /** Waits until our current_l1 reaches op-node's current one (60 s at most); the lag figures. */
  async catchUp(opNodeUrl: string, ourRpc: string): Promise<CurrentL1Figures> {
    const target = (await jsonRpc<Status>(opNodeUrl, "optimism_syncStatus")).current_l1.number;
    const t0 = Date.now();
    await until(
      `the supernode's current_l1 at op-node's ${target}`,
      async () =>
        (await jsonRpc<Status>(ourRpc, "optimism_syncStatus")).current_l1.number >= target ? true : undefined,
      60_000,
    );
    const sorted = [...this.lags].sort((a, b) => a - b);
    return {
      samples: sorted.length,
      medianLag: sorted[Math.floor(sorted.length / 2)] ?? 0,
      maxLag: Math.max(0, ...sorted),
      maxLead: Math.max(0, ...sorted.map((l) => -l)),
      lastLag: this.lags.at(-1) ?? 0,
      target,
      catchUpMs: Date.now() - t0,
    };
  }

  private note(m: string): void {
    if (this.mismatches.length < 3) this.mismatches.push(m);
  }
}

/**
 * Blocks 1…n of `elUrl` with deposits only (no user transaction); each block's number, L1 origin (from op-node's
 * `optimism_outputAtBlock`) and transaction count go to `logPath`.
 */
async function depositOnlyBlocks(elUrl: string, opNode: string, n: number, logPath: string): Promise<number> {
  let count = 0;
  for (let i = 1; i <= n; i++) {
    const q = `0x${i.toString(16)}`;
    const b = await jsonRpc<{ transactions: Array<{ type: string }> }>(elUrl, "eth_getBlockByNumber", [q, true]);
    const out = await jsonRpc<{ blockRef: { l1origin: BlockId } }>(opNode, "optimism_outputAtBlock", [q]);
    appendFileSync(logPath, `${i} l1origin ${out.blockRef.l1origin.number} txs ${b.transactions.length}\n`);
    if (b.transactions.every((t) => t.type === "0x7e")) count++;
  }
  return count;
}
