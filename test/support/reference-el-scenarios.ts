/**
 * The scenarios of test/reference/op-geth-el.test.ts (helpers in reference-el.ts, devnet and processes from the
 * derivation oracle's rig).
 *
 * `runSequencerOnOpGeth`: the supernode sequences on op-geth A (deposits, user transactions, forks Ecotone → Jovian
 * at offsets); a verifier supernode (own process) derives onto op-geth B and op-node (verifier) onto op-geth C.
 * Phase 1 measures both verifiers' CPU per derived block and RSS; then an L1 reorg inside finality; then the
 * sequencer's supernode and op-geth A stop and start again on their data; then all three must agree on every block
 * and output root up to `blocks`.
 *
 * `runElSync`: the supernode sequences with P2P on op-geth A; later a fresh op-geth E, peered with A over devp2p,
 * is driven by a second supernode in execution-layer sync mode that only hears gossip from then on.
 */
import { devnetForkOffsets } from "supernode-devnet/config";
import { loopbackAddr, waitForP2PSelf } from "supernode-devnet/cli/p2p";
import { devAccount } from "supernode-devnet/l1/dev-accounts";
import { procUsage } from "./proc-usage.js";
import {
  connectOpGeth,
  inReferenceRig,
  jsonRpc,
  type OpGeth,
  type SupernodeFrom,
  supernodeFrom,
  until,
} from "./reference.js";
import {
  type CostMark,
  costMark,
  type ElRig,
  type RpcProcess,
  startElRig,
  startSupernodeIn,
  countTxs,
  cpuPerBlock,
  reorgDepthInsideFinality,
  type Status,
  startSupernodeProcess,
  statusOf,
  type Traffic,
  withTraffic,
} from "./reference-el.js";
import { startBatcher, startOpNode } from "./reference-op-node.js";
import { CHAIN, compare } from "./reference-oracle.js";

export interface SequencerRun {
  readonly blocks: number;
  readonly deposits: number;
  readonly userTxs: number;
  /** Supernode vs op-node, and our verifier vs op-node: the first disagreements. */
  readonly mismatches: string[];
  readonly reorg: { depth: number; safeBefore: number; lowestSafeAfter: number; safeAfter: number };
  readonly restart: { before: Status; after: Status; afterEl: { latest: number; safe?: number; finalized?: number } };
  /** How our verifier ran: the built `dist/` or the sources through tsx (which costs memory). */
  readonly supernodeFrom: SupernodeFrom;
  readonly cost: {
    ourCpuMsPerBlock: number;
    opNodeCpuMsPerBlock: number;
    /** The safe-head blocks each verifier derived in the window (ours, op-node's). */
    windowBlocks: [number, number];
    ourRssMb: number;
    opNodeRssMb: number;
    /** Each side's RSS as [anonymous, file-backed] MiB (test/support/proc-usage.ts). */
    rssAnonFileMb: { supernode: [number, number]; op_node: [number, number] };
  };
}

const FORKS = devnetForkOffsets({ ecotone: 4, fjord: 6, granite: 8, holocene: 10, isthmus: 12, jovian: 14 });

/** What the phases of runSequencerOnOpGeth share: the sequencer (replaced by a restart) and the three safe heads. */
interface SeqRun {
  readonly rig: ElRig;
  readonly dir: string;
  seq: Supernode;
  seqEl: OpGeth;
  seqRpc(): string;
  safe(url: string): Promise<number>;
  /** Every rollup node's safe head is at least `n`. */
  allSafe(n: number): () => Promise<boolean>;
  /** Traffic to the sequencer until `done`. */
  traffic(what: string, done: () => Promise<boolean>, ms: number): Promise<void>;
}
type Supernode = Awaited<ReturnType<typeof startSupernodeIn>>;

export function runSequencerOnOpGeth(blocks: number): Promise<SequencerRun> {
  return inReferenceRig("el-sequencer", async (dir, stops) => {
    const rig = await startElRig(FORKS, dir, stops);
    const { devnet, pair } = rig;
    const { ours: seqEl, theirs: opEl } = pair;
    const seq = await startSupernodeIn(rig, dir, seqEl, { name: "supernode-seq" });
    startBatcher(devnet, seqEl, pair.cfg, { mode: "calldata", batchType: "span" }, stops);
    const verEl = await pair.el("geth-ver");
    const ver = await startSupernodeProcess(rig, dir, verEl, { name: "supernode-ver", sequencer: false }, stops);
    // op-node doing our verifier's work (every L1 answer checked, L1 labels every poll): the CPU comparison's
    // fairness. Checking L1, it reads the unsafe-block signer with a storage proof, which anvil's proof of the
    // stand-in SystemConfig's empty storage fails: set one first (nobody signs: P2P is off).
    await devnet.chain(CHAIN).contracts.setUnsafeBlockSigner(devAccount(0).address);
    const opNode = await startOpNode(devnet, dir, opEl, { ...pair, logLevel: "info", asSupernode: true }, [
      "--p2p.disable",
    ]);
    stops.push(() => opNode.stop());
    const t: Traffic = { userTxs: 0, deposits: 0, lastMs: 0 };
    const safe = async (url: string) => (await statusOf(url)).safe_l2.number;
    const r: SeqRun = {
      rig,
      dir,
      seq,
      seqEl,
      seqRpc: () => `${r.seq.rpc.url}/${CHAIN}/`,
      safe,
      allSafe: (n) => async () =>
        (await safe(r.seqRpc())) >= n && (await safe(ver.url)) >= n && (await safe(opNode.url)) >= n,
      traffic: (what, done, ms) => withTraffic(what, devnet, () => r.seqEl.httpUrl, t, done, ms),
    };
    stops.push(() => r.seq.stop());

    const cost = await verifierCost(r, blocks, ver, opNode);
    const reorg = await l1Reorg(r);
    const restart = await restartSequencer(r);
    // On to `blocks` (at least past the restart); every block and output root compared with op-node's.
    const end = Math.max(blocks, restart.before.unsafe_l2.number + 2);
    await r.traffic(`every safe head at ${end}`, r.allSafe(end), (end - reorg.safeAfter) * 4_000 + 120_000);
    const mismatches = [
      ...(await compare(r.seqEl.httpUrl, opEl.httpUrl, r.seqRpc(), opNode.url, end)).mismatches,
      ...(await compare(verEl.httpUrl, opEl.httpUrl, ver.url, opNode.url, end)).mismatches,
    ];
    const txs = await countTxs(opEl.httpUrl, end);
    return { blocks: end, ...txs, mismatches, reorg, restart, cost, supernodeFrom: supernodeFrom(ver.logPath) };
  });
}

/**
 * Both verifiers' CPU per derived block over the same blocks: each one's window runs from its own safe head at 16
 * (past Jovian at block 14 and the start-up) to its safe head at half of `blocks` (at least 32); a window in time
 * would give the verifier that started first fewer blocks for the same seconds. Then both RSS.
 */
async function verifierCost(r: SeqRun, blocks: number, ver: RpcProcess, opNode: RpcProcess) {
  const [ourPid, theirPid] = [await ver.binPid(), await opNode.binPid()];
  const [from, to] = [16, Math.max(32, Math.ceil(blocks / 2))];
  const sides = [
    { pid: ourPid, url: ver.url },
    { pid: theirPid, url: opNode.url },
  ].map((s) => ({ ...s, first: undefined as CostMark | undefined, last: undefined as CostMark | undefined }));
  const windows = async () => {
    for (const s of sides.filter((x) => x.last === undefined)) {
      const m = await costMark(s.pid, s.url);
      if (s.first === undefined) s.first = m.safe >= from ? m : undefined;
      else if (m.safe >= to) s.last = m;
    }
    return sides.every((s) => s.last !== undefined);
  };
  await r.traffic(`both verifiers' safe heads from ${from} to ${to}`, windows, to * 4_000 + 120_000);
  const marks = (i: number): [CostMark, CostMark] => [sides[i]?.first as CostMark, sides[i]?.last as CostMark];
  const [[our0, our1], [their0, their1]] = [marks(0), marks(1)];
  const [ours, theirs] = [procUsage(ourPid), procUsage(theirPid)];
  const parts = (u: typeof ours): [number, number] => [u?.rssAnonMb ?? Number.NaN, u?.rssFileMb ?? Number.NaN];
  return {
    ourCpuMsPerBlock: cpuPerBlock(our0, our1),
    opNodeCpuMsPerBlock: cpuPerBlock(their0, their1),
    windowBlocks: [our1.safe - our0.safe, their1.safe - their0.safe] as [number, number],
    ourRssMb: ours?.rssMb ?? Number.NaN,
    opNodeRssMb: theirs?.rssMb ?? Number.NaN,
    rssAnonFileMb: { supernode: parts(ours), op_node: parts(theirs) },
  };
}

/** An L1 reorg inside finality just after a batch landed (the sequencer's safe head moved); all move past it. */
async function l1Reorg(r: SeqRun): Promise<SequencerRun["reorg"]> {
  const s0 = await r.safe(r.seqRpc());
  await r.traffic("a batch to land", async () => (await r.safe(r.seqRpc())) > s0, 60_000);
  const depth = await reorgDepthInsideFinality(r.rig.devnet.l1.rpcUrl, 3);
  const safeBefore = await r.safe(r.seqRpc());
  await r.rig.devnet.l1Node.anvil.reorg(depth);
  let lowest = safeBefore;
  const past = async () => {
    lowest = Math.min(lowest, await r.safe(r.seqRpc()));
    return r.allSafe(safeBefore + 2)();
  };
  await r.traffic("every safe head past the reorg", past, 120_000);
  return { depth, safeBefore, lowestSafeAfter: lowest, safeAfter: await r.safe(r.seqRpc()) };
}

/** The sequencer's supernode and op-geth stop and start again on their data and ports. */
async function restartSequencer(r: SeqRun): Promise<SequencerRun["restart"]> {
  const { rig, dir } = r;
  const before = await statusOf(r.seqRpc());
  await r.seq.stop();
  await r.seqEl.stop();
  r.seqEl = await rig.pair.el("geth-ours", { ports: portsOf(r.seqEl) });
  const afterEl = await elHeads(r.seqEl);
  r.seq = await startSupernodeIn(rig, dir, r.seqEl, { name: "supernode-seq" });
  // Its RPC answers before the start-up reset read the heads (all zero until then, as op-node's does).
  const heads = async () => {
    const st = await statusOf(r.seqRpc());
    return st.unsafe_l2.number > 0 ? st : undefined;
  };
  const after = await until("the restarted supernode's heads", heads, 60_000);
  return { before, after, afterEl };
}

function portsOf(el: OpGeth): { http: number; auth: number } {
  return { http: Number(new URL(el.httpUrl).port), auth: Number(new URL(el.authUrl).port) };
}

/** op-geth's own latest, safe and finalized block numbers (safe / finalized absent when it has none). */
async function elHeads(el: OpGeth): Promise<{ latest: number; safe?: number; finalized?: number }> {
  const num = async (tag: string) =>
    Number((await jsonRpc<{ number: string }>(el.httpUrl, "eth_getBlockByNumber", [tag, false])).number);
  const opt = async (tag: string) => num(tag).catch(() => undefined);
  const [latest, safe, finalized] = [await num("latest"), await opt("safe"), await opt("finalized")];
  return { latest, ...(safe === undefined ? {} : { safe }), ...(finalized === undefined ? {} : { finalized }) };
}

export interface ElSyncRun {
  /** The sequencer's unsafe head when the EL-sync supernode started (all of it only reachable over devp2p). */
  readonly gap: number;
  readonly elSyncMs: number;
  readonly mismatches: string[];
  readonly final: Status;
}

export function runElSync(blocks: number): Promise<ElSyncRun> {
  return inReferenceRig("el-sync", async (dir, stops) => {
    const rig = await startElRig(undefined, dir, stops, 2);
    const { devnet, pair } = rig;
    const seqEl = pair.ours;
    const seq = await startSupernodeIn(rig, dir, seqEl, { name: "supernode-seq", p2p: true });
    stops.push(() => seq.stop());
    const seqRpc = `${seq.rpc.url}/${CHAIN}/`;
    startBatcher(devnet, seqEl, pair.cfg, { mode: "calldata", batchType: "span" }, stops);
    const t: Traffic = { userTxs: 0, deposits: 0, lastMs: 0 };
    const gap = Math.max(8, Math.ceil(blocks / 2));
    const unsafe = async (url: string) => (await statusOf(url)).unsafe_l2.number;
    await withTraffic(
      `unsafe head at ${gap}`,
      devnet,
      () => seqEl.httpUrl,
      t,
      async () => (await unsafe(seqRpc)) >= gap,
      gap * 4_000 + 60_000,
    );

    const fresh = await pair.el("geth-el-sync");
    await connectOpGeth(fresh, seqEl);
    const seqAddr = loopbackAddr(await waitForP2PSelf(seq.rpc.url, CHAIN, AbortSignal.timeout(60_000)));
    const startedAt = Date.now();
    const from = await unsafe(seqRpc);
    const follower = await startSupernodeProcess(
      rig,
      dir,
      fresh,
      {
        name: "supernode-el-sync",
        sequencer: false,
        p2p: true,
        extra: [`--vn.${CHAIN}.syncmode`, "execution-layer", `--vn.${CHAIN}.p2p.static`, seqAddr],
      },
      stops,
    );
    // EL sync done: the follower's unsafe head is past where the sequencer was when it started, on the same chain.
    await withTraffic(
      "the EL-sync supernode's unsafe head past the gap",
      devnet,
      () => seqEl.httpUrl,
      t,
      async () => (await unsafe(follower.url)) > from,
      120_000,
    );
    const elSyncMs = Date.now() - startedAt;
    const end = (await statusOf(follower.url)).unsafe_l2.number;
    // Then it derives on the synced op-geth: its safe head moves past the synced tip.
    await withTraffic(
      "the EL-sync supernode deriving past the synced tip",
      devnet,
      () => seqEl.httpUrl,
      t,
      async () => (await statusOf(follower.url)).safe_l2.number > end,
      120_000,
    );
    const mismatches: string[] = [];
    for (let n = 1; n <= end; n++) {
      const q = `0x${n.toString(16)}`;
      const a = await jsonRpc<{ hash: string }>(seqEl.httpUrl, "eth_getBlockByNumber", [q, false]);
      const b = await jsonRpc<{ hash: string } | null>(fresh.httpUrl, "eth_getBlockByNumber", [q, false]);
      if (a.hash !== b?.hash && mismatches.length < 3)
        mismatches.push(`block ${n}: sequencer ${a.hash}, EL-synced ${b?.hash}`);
    }
    return { gap: from, elSyncMs, mismatches, final: await statusOf(follower.url) };
  });
}
