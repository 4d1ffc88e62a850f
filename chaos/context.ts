/** What every chaos scenario shares: the topology, the seeded random source, the plan, figures and checks. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ChainStatus, chainStates, chainStatus, elHash, ready, waitFor } from "./probe.js";
import { CHAINS, type Role, type World } from "./world.js";

export interface Plan {
  readonly full: boolean;
  readonly seed: number;
  readonly kill9Points: number;
  readonly reorgDepths: readonly number[];
  /** Reorg across L1 finality at the end (leaves the chains failed). */
  readonly reorgAcrossFinality: boolean;
  readonly slotsInAnEpoch: number;
  readonly freezeMs: number;
  /** How long an execution client stays down (killed) before it is restarted, at most. */
  readonly elDownMs: number;
  readonly hostileModeMs: number;
  readonly oversizedBytes: number;
  /** The verifier's L1 response bound (undefined = the default 64 MiB). */
  readonly l1MaxResponseBytes?: number;
  readonly fuzzRequests: number;
  /** How long a recovery (progress after a fault) may take. */
  readonly recoverMs: number;
  readonly elFaults: readonly ElFault[];
  readonly safeDbFaults: readonly ("corrupted" | "truncated")[];
  /** Compare the chain with a verifier restarted from nothing. */
  readonly freshNode: boolean;
  /** How long the disk stays full before space is freed (the disk-full scenario). */
  readonly diskFullMs: number;
}

export type ElFault = "frozen" | "killed-restarted" | "restarted-wiped";

/** mulberry32: a small seeded PRNG, so a run's schedule is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Figures {
  readonly values = new Map<string, number>();
  set(figure: string, value: number): void {
    this.values.set(figure, value);
  }
  add(figure: string, by = 1): void {
    this.values.set(figure, (this.values.get(figure) ?? 0) + by);
  }
  max(figure: string, value: number): void {
    this.values.set(figure, Math.max(this.values.get(figure) ?? Number.NEGATIVE_INFINITY, value));
  }
  get(figure: string): number {
    return this.values.get(figure) ?? 0;
  }
}

export function note(message: string): void {
  process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export class Ctx {
  readonly rand: () => number;
  /** Why a scenario could not measure what it is there for: any entry fails the run (figures are never guessed). */
  readonly unmeasured: string[] = [];
  constructor(
    readonly world: World,
    readonly plan: Plan,
    readonly figures: Figures,
  ) {
    this.rand = seededRandom(plan.seed);
  }

  cannotMeasure(why: string): void {
    this.unmeasured.push(why);
    note(`cannot measure: ${why}`);
  }

  randInt(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }

  status(role: Role, chainId: number): Promise<ChainStatus | undefined> {
    return chainStatus(this.world.node(role), chainId);
  }

  async safe(role: Role, chainId: number): Promise<number | undefined> {
    return (await this.status(role, chainId))?.safe_l2.number;
  }

  /** Waits until every chain's safe head on `role` passes `above[chainId]`; true when it did within `timeoutMs`. */
  async progressed(role: Role, above: Readonly<Record<number, number>>, timeoutMs: number): Promise<boolean> {
    const ok = await waitFor(async () => {
      for (const c of CHAINS) {
        const s = await this.safe(role, c.chainId);
        if (s === undefined || s <= (above[c.chainId] ?? 0)) return false;
      }
      return true;
    }, timeoutMs);
    return ok === true;
  }

  async safeHeads(role: Role): Promise<Record<number, number>> {
    const out: Record<number, number> = {};
    for (const c of CHAINS) out[c.chainId] = (await this.safe(role, c.chainId)) ?? 0;
    return out;
  }

  /** Whether `chainId`'s own state on `role` is `running` (from `supernode_syncStatus` `chain_states`). */
  async running(role: Role, chainId: number): Promise<boolean> {
    return (await chainStates(this.world.node(role)))?.[String(chainId)] === "running";
  }

  /** Whether `chainId` is reported as not healthy on `role` (its state is not `running`, or /readyz is not 200). */
  async surfaced(role: Role, chainId: number): Promise<boolean> {
    const node = this.world.node(role);
    const [states, r] = await Promise.all([chainStates(node), ready(node)]);
    return (states !== undefined && states[String(chainId)] !== "running") || r === false;
  }

  /**
   * Notes what a step that did not recover left behind, for a failure seen only in CI's output: each node's heads
   * and chain state per chain, the L1 head, and the batcher's last warnings (its log is removed with a passing run).
   */
  async diagnose(step: string): Promise<void> {
    const l1Head = await this.world.l1.anvil.blockNumber().catch(() => undefined);
    const lines: string[] = [`${step}: diagnosis, L1 head ${l1Head ?? "?"}`];
    for (const role of ["seq", "ver"] as const) {
      const states = await chainStates(this.world.node(role));
      for (const c of CHAINS) {
        const s = await this.status(role, c.chainId);
        lines.push(
          `  ${role} ${c.chainId} ${states?.[String(c.chainId)] ?? "?"}: ` +
            (s === undefined
              ? "no status"
              : `unsafe ${s.unsafe_l2.number} safe ${s.safe_l2.number} finalized ${s.finalized_l2.number} ` +
                `current L1 ${s.current_l1.number}`),
        );
      }
    }
    let batcher: string[] = [];
    try {
      batcher = readFileSync(join(this.world.opts.dir, "batcher.log"), "utf8")
        .split("\n")
        .filter((l) => /WARN|ERROR|reorg|resubmit/i.test(l))
        .slice(-10);
    } catch {
      batcher = ["(no batcher log)"];
    }
    for (const l of batcher) lines.push(`  batcher: ${l.slice(0, 300)}`);
    for (const l of lines) note(l);
  }

  /**
   * Block hashes of the sequencer's and the verifier's execution clients from 1 to the lower safe head of the two;
   * returns the number of heights where they differ.
   */
  async disagreements(chainId: number, from = 1): Promise<{ checked: number; differ: number }> {
    const [a, b] = [await this.safe("seq", chainId), await this.safe("ver", chainId)];
    const top = Math.min(a ?? 0, b ?? 0);
    const seqEl = this.world.el("seq", chainId).httpUrl;
    const verEl = this.world.el("ver", chainId).httpUrl;
    let differ = 0;
    let checked = 0;
    for (let n = from; n <= top; n++) {
      const [x, y] = await Promise.all([elHash(seqEl, n), elHash(verEl, n)]);
      checked++;
      if (x === undefined || y === undefined || x !== y) differ++;
    }
    return { checked, differ };
  }
}
