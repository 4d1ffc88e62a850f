/**
 * What the op-supernode comparison reads from a verifier (ours or op-supernode, same URLs and names on both) and
 * how it compares them: `superroot_atTimestamp` per timestamp, the invalidation counters, the execution clients'
 * blocks (the replacements among them), and the CPU and RSS of both processes from /proc.
 */
import type { Hash } from "../../src/core/types/primitives.js";
import type { InvalidSent } from "supernode-devnet/interop-traffic";
import { procUsage } from "./proc-usage.js";
import { jsonRpc, until } from "./reference.js";
import { CHAINS, type Verifier } from "./reference-opsupernode.js";

type Block = { hash: Hash; number: string };
export type SuperRootAnswer = { data?: unknown; chain_ids?: unknown; optimistic_at_timestamp?: unknown };

export async function localSafe(v: Verifier, id: bigint): Promise<number> {
  const s = await jsonRpc<{ local_safe_l2: { number: number } }>(`${v.rpcUrl}/${id}/`, "optimism_syncStatus");
  return s.local_safe_l2.number;
}

/**
 * `superroot_atTimestamp` at `ts`, retried for up to a minute: op-supernode stops and restarts a chain's virtual
 * node for every invalidation, and answers "virtual node not running" meanwhile.
 */
export async function superRootAt(v: Verifier, ts: number): Promise<SuperRootAnswer> {
  const call = () => jsonRpc<SuperRootAnswer>(v.rpcUrl, "superroot_atTimestamp", [`0x${ts.toString(16)}`]);
  try {
    return await call();
  } catch {
    return until(`${v.name}'s superroot_atTimestamp at ${ts}`, call, 60_000);
  }
}

/** `name{…chain_id="<id>"…} value` per chain of a Prometheus text page. */
export async function metricByChain(v: Verifier, name: string): Promise<Record<string, number>> {
  const text = await (await fetch(v.metricsUrl, { signal: AbortSignal.timeout(10_000) })).text();
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const m = /chain_id="(\d+)".*\}\s+(\S+)$/.exec(line);
    if (m !== null) out[m[1]!] = Number(m[2]);
  }
  return out;
}

/** JSON with hex in lower case and object keys sorted: the value, not the encoder's field order. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === "string") return x.toLowerCase();
    if (x === null || typeof x !== "object" || Array.isArray(x)) return x;
    return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });

/** Both verifiers' answers at every timestamp in [from, to]: the ones with data on both, and each disagreement. */
export async function compareSuperRoots(ours: Verifier, theirs: Verifier, from: number, to: number) {
  let compared = 0;
  let verifiedBoth = 0;
  let mismatches = 0;
  const first: string[] = [];
  for (let ts = from; ts <= to; ts++) {
    const [a, b] = await Promise.all([superRootAt(ours, ts), superRootAt(theirs, ts)]);
    compared++;
    if (a.data !== undefined && b.data !== undefined) verifiedBoth++;
    // what a timestamp's answer is once both derived it (current_l1 and the head timestamps move with the run)
    const fixed = (x: SuperRootAnswer) => canonical([x.data ?? null, x.chain_ids, x.optimistic_at_timestamp]);
    const same = fixed(a) === fixed(b);
    if (!same) {
      mismatches++;
      if (first.length < 3) first.push(`superroot at ${ts}: supernode ${canonical(a)}, op-supernode ${canonical(b)}`);
    }
  }
  return { compared, verifiedBoth, mismatches, first };
}

async function blockAt(v: Verifier, id: bigint, n: number): Promise<Block | null> {
  return jsonRpc<Block | null>(v.els.get(id)!.httpUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false]);
}

/** Blocks 0…upTo of every chain on both verifiers' execution clients: the heights where the hashes differ. */
export async function compareBlocks(ours: Verifier, theirs: Verifier, upTo: number) {
  let compared = 0;
  let mismatches = 0;
  const first: string[] = [];
  for (const id of CHAINS) {
    for (let n = 0; n <= upTo; n++) {
      const [a, b] = await Promise.all([blockAt(ours, id, n), blockAt(theirs, id, n)]);
      compared++;
      if (a?.hash !== b?.hash) {
        mismatches++;
        if (first.length < 3) first.push(`chain ${id} block ${n}: supernode ${a?.hash}, op-supernode ${b?.hash}`);
      }
    }
  }
  return { compared, mismatches, first };
}

/**
 * Each invalid message's block on both verifiers: invalidated (not the block that carried it) and replaced by the
 * same block on both. Returns the disagreements.
 */
export async function compareReplacements(ours: Verifier, theirs: Verifier, sent: readonly InvalidSent[]) {
  const problems: string[] = [];
  for (const s of sent) {
    const [a, b] = await Promise.all([
      blockAt(ours, s.chainId, s.blockNumber),
      blockAt(theirs, s.chainId, s.blockNumber),
    ]);
    const at = `chain ${s.chainId} block ${s.blockNumber} (${s.kind})`;
    if (a?.hash === s.blockHash) problems.push(`${at}: the supernode kept the invalid block ${s.blockHash}`);
    if (b?.hash === s.blockHash) problems.push(`${at}: op-supernode kept the invalid block ${s.blockHash}`);
    if (a?.hash !== b?.hash) problems.push(`${at}: replacement supernode ${a?.hash}, op-supernode ${b?.hash}`);
  }
  return problems;
}

/** CPU seconds and RSS of both verifiers, and the blocks each had derived (local-safe, summed over the chains). */
export async function usageSample(ours: Verifier, theirs: Verifier) {
  const one = async (v: Verifier) => {
    const pid = await v.binPid();
    const u = procUsage(pid);
    if (u === undefined) throw new Error(`${v.name} (pid ${pid}) is gone`);
    let blocks = 0;
    for (const id of CHAINS) blocks += await localSafe(v, id);
    return { ...u, blocks };
  };
  return { ours: await one(ours), theirs: await one(theirs) };
}
