import type { ChainId, Hash } from "../../core/types/primitives.js";
import { type ExecutingMessage, expectedLogHash } from "./messages.js";

/** Why an executing message is invalid (stable strings: logs, metrics, tests). */
export type MessageRejection =
  | "malformed"
  | "unknown-chain"
  | "initiating-too-early"
  | "executing-too-early"
  | "initiating-in-future"
  | "expired"
  | "initiating-not-found"
  | "timestamp-mismatch"
  | "hash-mismatch"
  | "cycle";

/** What is known about an initiating log: its log hash and its block's timestamp. */
export interface InitiatingLog {
  readonly logHash: Hash;
  readonly blockTimestamp: number;
}

export interface MessageRuleParams {
  /** Chains of the dependency set (decimal strings). */
  readonly dependencySet: ReadonlySet<string>;
  readonly activationTimestamp: number;
  /** Seconds. */
  readonly expiryWindow: number;
  /** Block time of a chain in the set (seconds). */
  blockTime(chainId: ChainId): number;
}

/**
 * The first block of a chain that may carry or initiate interop messages: activation + block time (the
 * activation block itself only deploys the predeploys).
 */
export function firstInteropTimestamp(p: MessageRuleParams, chainId: ChainId): number {
  return p.activationTimestamp + p.blockTime(chainId);
}

/**
 * Checks one executing message of a block of `executingChain` at `executingTimestamp`, in rule order: source
 * chain in the dependency set; executing block not too early; initiating block not too early; initiating
 * timestamp ≤ executing; not expired (exactly at the window is valid); the initiating log exists at the
 * identifier's (block, index) in a block with the identifier's timestamp, with the expected log hash.
 * `lookup` answers from the same-timestamp frontier or the source chain's sealed logs; undefined = not found.
 */
export function checkExecutingMessage(
  p: MessageRuleParams,
  executingChain: ChainId,
  executingTimestamp: number,
  m: ExecutingMessage,
  lookup: (chainId: ChainId, blockNumber: number, logIndex: number) => InitiatingLog | undefined,
): MessageRejection | undefined {
  const src = m.id.chainId;
  if (!p.dependencySet.has(src.toString(10))) return "unknown-chain";
  if (executingTimestamp < firstInteropTimestamp(p, executingChain)) return "executing-too-early";
  if (m.id.timestamp < firstInteropTimestamp(p, src)) return "initiating-too-early";
  if (m.id.timestamp > executingTimestamp) return "initiating-in-future";
  if (m.id.timestamp + p.expiryWindow < executingTimestamp) return "expired";
  const found = lookup(src, m.id.blockNumber, m.id.logIndex);
  if (found === undefined) return "initiating-not-found";
  if (found.blockTimestamp !== m.id.timestamp) return "timestamp-mismatch";
  if (found.logHash !== expectedLogHash(m)) return "hash-mismatch";
  return undefined;
}

/** An executing message of a frontier block whose initiating message has the same timestamp (a cycle node). */
export interface SameTimestampMessage {
  readonly chainId: string;
  /** Index of the executing log in its block. */
  readonly logIndex: number;
  /** The initiating message's chain and log index. */
  readonly sourceChainId: string;
  readonly sourceLogIndex: number;
}

/**
 * Cycles among same-timestamp messages: every node depends on the previous node of its own block (log order)
 * and on the latest node of the source block at or before the initiating log's index (the initiating log can
 * only be emitted after that one executed). A strongly connected component of more than one node, or a node
 * that depends on itself, cannot be ordered: the chains owning such nodes are returned (sorted), and only
 * those — chains that merely depend on a cycle are left to later rounds (their initiating block is replaced).
 */
export function chainsInCycles(nodes: readonly SameTimestampMessage[]): string[] {
  const bad = new Set(messagesInCycles(nodes).map((n) => n.chainId));
  return [...bad].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
}

/** The messages of `nodes` that are part of a cycle (see {@link chainsInCycles}), in input order. */
export function messagesInCycles(nodes: readonly SameTimestampMessage[]): SameTimestampMessage[] {
  const byChain = new Map<string, number[]>();
  nodes.forEach((n, i) => {
    const list = byChain.get(n.chainId) ?? [];
    list.push(i);
    byChain.set(n.chainId, list);
  });
  for (const list of byChain.values()) list.sort((a, b) => nodes[a]!.logIndex - nodes[b]!.logIndex);
  const edges: number[][] = nodes.map(() => []);
  for (const list of byChain.values()) {
    for (let k = 1; k < list.length; k++) edges[list[k]!]!.push(list[k - 1]!);
  }
  nodes.forEach((n, i) => {
    const src = byChain.get(n.sourceChainId);
    if (src === undefined) return;
    let dep: number | undefined;
    for (const j of src) {
      if (nodes[j]!.logIndex <= n.sourceLogIndex) dep = j;
      else break;
    }
    if (dep !== undefined) edges[i]!.push(dep);
  });
  const member = new Array<boolean>(nodes.length).fill(false);
  for (const scc of stronglyConnected(edges)) {
    const first = scc[0]!;
    if (scc.length > 1 || edges[first]!.includes(first)) for (const i of scc) member[i] = true;
  }
  return nodes.filter((_, i) => member[i]);
}

/** Tarjan's strongly connected components, iterative (no recursion depth limit). */
export function stronglyConnected(edges: readonly (readonly number[])[]): number[][] {
  const n = edges.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  const out: number[][] = [];
  let next = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: { v: number; e: number }[] = [{ v: root, e: 0 }];
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = true;
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const es = edges[top.v]!;
      if (top.e < es.length) {
        const w = es[top.e++]!;
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = true;
          work.push({ v: w, e: 0 });
        } else if (onStack[w]) low[top.v] = Math.min(low[top.v]!, index[w]!);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low[parent.v] = Math.min(low[parent.v]!, low[top.v]!);
      if (low[top.v] === index[top.v]) {
        const scc: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = false;
          scc.push(w);
        } while (w !== top.v);
        out.push(scc);
      }
    }
  }
  return out;
}
