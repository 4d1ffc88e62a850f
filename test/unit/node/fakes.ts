import { systemClock } from "../../../src/core/time/clock.js";
/** Small in-memory fakes of the node's ports: an L1 chain, an execution client, a SafeDB and a toy pipeline. */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "../../../src/core/codec/hex.js";
import { TemporaryError } from "../../../src/core/errors/supernode-error.js";
import type { Clock } from "../../../src/core/time/clock.js";
import type { Logger } from "../../../src/core/logger.js";
import { AbortedError } from "../../../src/core/errors/supernode-error.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import type { AttributesBuilder, DerivationPipeline, StepResult } from "../../../src/node/derivation/types.js";
import type { DerivedAttributes } from "../../../src/node/engine/engine-controller.js";
import type {
  BlockLabel,
  BuildStart,
  BuildStarted,
  ExecutionEngine,
  ExecutionPayloadEnvelope,
  ForkchoiceState,
  HeadInsertion,
  L1Source,
  L2BlockHeader,
  PayloadAttributes,
  PayloadStatus,
  PayloadToInsert,
  SafeDbPort,
  SealedPayload,
} from "../../../src/node/ports.js";
import { envelopeOf } from "../../../src/protocol/engine-api-types.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { attributesFromHex, transactionsHex } from "../../../src/protocol/l2/attributes.js";

export const h = (s: string): Hash => bytesToHex(keccak_256(new TextEncoder().encode(s)));

export const GENESIS_TIME = 1_000;

export function testRollupConfig(over: Partial<RollupConfig> = {}): RollupConfig {
  return {
    genesis: {
      l1: { hash: h("l1-0-main"), number: 0 },
      l2: { hash: h("l2-genesis"), number: 0 },
      l2_time: GENESIS_TIME,
      system_config: {
        batcherAddr: "0x00000000000000000000000000000000000000b0",
        overhead: `0x${"00".repeat(32)}`,
        scalar: `0x${"00".repeat(31)}01`,
        gasLimit: 30_000_000n,
        eip1559Params: "0x0000000000000000",
        operatorFeeParams: `0x${"00".repeat(32)}`,
        minBaseFee: 0n,
        daFootprintGasScalar: 0,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 100,
    channel_timeout: 50,
    l1_chain_id: 900n,
    l2_chain_id: 901n,
    regolith_time: 0,
    batch_inbox_address: "0xff00000000000000000000000000000000000901",
    deposit_contract_address: "0x00000000000000000000000000000000000000d0",
    l1_system_config_address: "0x00000000000000000000000000000000000000c0",
    protocol_versions_address: "0x0000000000000000000000000000000000000000",
    ...over,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// L1

export class FakeL1 implements L1Source {
  blocks: L1BlockRef[] = [];
  finalizedNumber = 0;
  safeNumber = 0;
  fetches = 0;

  constructor(n: number, branch = "main") {
    this.blocks.push({ hash: h("l1-0-main"), number: 0, parentHash: h("l1-root"), timestamp: GENESIS_TIME });
    this.extend(n, branch);
  }

  extend(n: number, branch = "main"): void {
    for (let i = 0; i < n; i++) {
      const parent = this.blocks[this.blocks.length - 1]!;
      const number = parent.number + 1;
      this.blocks.push({
        hash: h(`l1-${number}-${branch}`),
        number,
        parentHash: parent.hash,
        timestamp: GENESIS_TIME + 2 * number,
      });
    }
  }

  /** Replaces every block from `from` on with `n` blocks of a new branch. */
  reorg(from: number, n: number, branch: string): void {
    this.blocks = this.blocks.slice(0, from);
    this.extend(n, branch);
  }

  get head(): L1BlockRef {
    return this.blocks[this.blocks.length - 1]!;
  }

  async l1BlockRefByLabel(label: BlockLabel): Promise<L1BlockRef> {
    if (label === "latest") return this.head;
    return this.blocks[Math.min(label === "safe" ? this.safeNumber : this.finalizedNumber, this.head.number)]!;
  }
  async l1BlockRefByNumber(n: number): Promise<L1BlockRef> {
    this.fetches++;
    const b = this.blocks[n];
    if (b === undefined) throw new TemporaryError("NOT_FOUND", `L1 block ${n} not found`);
    return b;
  }
  async l1BlockRefByHash(hash: Hash): Promise<L1BlockRef> {
    const b = this.blocks.find((x) => x.hash === hash);
    if (b === undefined) throw new TemporaryError("NOT_FOUND", `L1 block ${hash} not found`);
    return b;
  }
  async infoByHash(hash: Hash) {
    const b = await this.l1BlockRefByHash(hash);
    return { ...b, mixHash: b.hash, baseFeePerGas: 1n };
  }
  async infoAndTxsByHash(hash: Hash) {
    return { info: await this.infoByHash(hash), txs: [] };
  }
  async fetchReceipts(hash: Hash) {
    return { info: await this.infoByHash(hash), receipts: [] };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Fake L1-info "deposit": 0x7e ‖ originHash ‖ originNumber (8) ‖ seq (8)

export function fakeL1InfoTx(origin: BlockId, seq: number): Hex {
  return `0x7e${origin.hash.slice(2)}${origin.number.toString(16).padStart(16, "0")}${seq.toString(16).padStart(16, "0")}`;
}

export function decodeFakeL1Info(tx: Hex): { l1origin: BlockId; seq: number } {
  return {
    l1origin: { hash: `0x${tx.slice(4, 68)}`, number: Number.parseInt(tx.slice(68, 84), 16) },
    seq: Number.parseInt(tx.slice(84, 100), 16),
  };
}

export function fakeRefFromPayload(cfg: RollupConfig) {
  return (env: ExecutionPayloadEnvelope): L2BlockRef => {
    const p = env.executionPayload;
    if (p.blockNumber === cfg.genesis.l2.number) {
      return {
        hash: p.blockHash,
        number: p.blockNumber,
        parentHash: p.parentHash,
        timestamp: p.timestamp,
        l1origin: cfg.genesis.l1,
        sequenceNumber: 0,
      };
    }
    const info = decodeFakeL1Info(p.transactions[0]!);
    return {
      hash: p.blockHash,
      number: p.blockNumber,
      parentHash: p.parentHash,
      timestamp: p.timestamp,
      l1origin: info.l1origin,
      sequenceNumber: info.seq,
    };
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Execution client

export class FakeEngine implements ExecutionEngine {
  readonly byHash = new Map<Hash, ExecutionPayloadEnvelope>();
  canonical: Hash[] = [];
  safe: Hash;
  finalized: Hash;
  private readonly pending = new Map<Hex, ExecutionPayloadEnvelope>();
  private nextId = 1;
  calls: Record<string, number> = {};
  /** Transactions that make a payload INVALID. */
  poison = new Set<Hex>();
  readonly refOf: (env: ExecutionPayloadEnvelope) => L2BlockRef;

  constructor(
    readonly cfg: RollupConfig,
    refOf?: (env: ExecutionPayloadEnvelope) => L2BlockRef,
  ) {
    const genesis: ExecutionPayloadEnvelope = {
      executionPayload: {
        parentHash: `0x${"00".repeat(32)}`,
        feeRecipient: `0x${"00".repeat(20)}`,
        stateRoot: h("state-genesis"),
        prevRandao: `0x${"00".repeat(32)}`,
        blockNumber: 0,
        gasLimit: 30_000_000n,
        timestamp: GENESIS_TIME,
        extraData: "0x",
        blockHash: cfg.genesis.l2.hash,
        transactions: [],
      },
    };
    this.byHash.set(genesis.executionPayload.blockHash, genesis);
    this.canonical = [genesis.executionPayload.blockHash];
    this.safe = this.finalized = genesis.executionPayload.blockHash;
    this.refOf = refOf ?? fakeRefFromPayload(cfg);
  }

  private count(m: string) {
    this.calls[m] = (this.calls[m] ?? 0) + 1;
  }

  private setHead(head: Hash): void {
    const chain: Hash[] = [];
    let cur = this.byHash.get(head);
    while (cur !== undefined) {
      chain.push(cur.executionPayload.blockHash);
      if (cur.executionPayload.blockNumber === 0) break;
      cur = this.byHash.get(cur.executionPayload.parentHash);
    }
    this.canonical = chain.reverse();
  }

  async forkchoiceUpdated(state: ForkchoiceState, attrs?: PayloadAttributes) {
    this.count("forkchoiceUpdated");
    const head = this.byHash.get(state.headBlockHash);
    if (head === undefined) return { payloadStatus: { status: "SYNCING" as const }, payloadId: null };
    this.setHead(state.headBlockHash);
    this.safe = state.safeBlockHash;
    this.finalized = state.finalizedBlockHash;
    if (attrs === undefined) return { payloadStatus: { status: "VALID" as const }, payloadId: null };
    const parent = head.executionPayload;
    const txs = transactionsHex(attrs);
    const f = attrs.fields;
    const body = JSON.stringify([parent.blockHash, f.timestamp, txs, f.prevRandao]);
    const env: ExecutionPayloadEnvelope = {
      executionPayload: {
        parentHash: parent.blockHash,
        feeRecipient: f.suggestedFeeRecipient,
        stateRoot: h(`state-${body}`),
        prevRandao: f.prevRandao,
        blockNumber: parent.blockNumber + 1,
        gasLimit: f.gasLimit,
        timestamp: f.timestamp,
        extraData: "0x",
        blockHash: h(`block-${body}`),
        transactions: txs,
      },
    };
    const id = `0x${(this.nextId++).toString(16).padStart(16, "0")}` as Hex;
    this.pending.set(id, env);
    return { payloadStatus: { status: "VALID" as const }, payloadId: id };
  }

  /** The port's operations, call by call (newPayload, then the update once it is VALID). */
  async insertAsHead(payload: PayloadToInsert, state: ForkchoiceState): Promise<HeadInsertion> {
    const inserted = await this.newPayload(payload).catch((e: unknown) => e as Error);
    if (inserted instanceof Error || inserted.status !== "VALID") return { inserted };
    return { inserted, forkchoice: await this.forkchoiceUpdated(state).catch((e: unknown) => e as Error) };
  }

  async startBuild(req: BuildStart): Promise<BuildStarted> {
    let inserted: PayloadStatus | Error | undefined;
    if (req.insert !== undefined) {
      inserted = await this.newPayload(req.insert).catch((e: unknown) => e as Error);
      if (inserted instanceof Error || inserted.status !== "VALID") return { inserted };
    }
    const forkchoice = await this.forkchoiceUpdated(req.state, req.attrs).catch((e: unknown) => e as Error);
    return inserted === undefined ? { forkchoice } : { inserted, forkchoice };
  }

  async sealPayload(id: Hex, _timestamp: number): Promise<SealedPayload> {
    return { envelope: await this.getPayload(id) };
  }

  async payloadsByNumber(ns: readonly number[]) {
    return Promise.all(ns.map((n) => this.payloadByNumber(n)));
  }

  /** Headers with the hashes of their transactions, block by block. */
  async headersByNumber(ns: readonly number[]): Promise<(L2BlockHeader | undefined)[]> {
    this.count("headersByNumber");
    return ns.map((n) => {
      const hash = this.canonical[n];
      const env = hash === undefined ? undefined : this.byHash.get(hash);
      return env === undefined ? undefined : headerOf(env);
    });
  }

  async getPayload(id: Hex, _timestamp?: number) {
    this.count("getPayload");
    const env = this.pending.get(id);
    if (env === undefined) throw Object.assign(new Error("unknown payload"), { rpcCode: -38001 });
    this.pending.delete(id);
    return env;
  }

  async newPayload(payload: PayloadToInsert) {
    this.count("newPayload");
    const env = envelopeOf(payload);
    const p = env.executionPayload;
    if (!this.byHash.has(p.parentHash)) return { status: "SYNCING" as const };
    if (p.transactions.some((t) => this.poison.has(t))) {
      return { status: "INVALID" as const, latestValidHash: p.parentHash, validationError: "poisoned" };
    }
    this.byHash.set(p.blockHash, env);
    return { status: "VALID" as const, latestValidHash: p.blockHash };
  }

  private refAt(hash: Hash | undefined): L2BlockRef | undefined {
    const env = hash === undefined ? undefined : this.byHash.get(hash);
    return env === undefined ? undefined : this.refOf(env);
  }

  async l2BlockRefByLabel(label: BlockLabel) {
    if (label === "latest") return this.refAt(this.canonical[this.canonical.length - 1]);
    return this.refAt(label === "safe" ? this.safe : this.finalized);
  }
  async l2BlockRefByNumber(n: number) {
    return this.refAt(this.canonical[n]);
  }
  async l2BlockRefByHash(hash: Hash) {
    return this.refAt(hash);
  }
  async payloadByNumber(n: number) {
    this.count("payloadByNumber");
    const hash = this.canonical[n];
    return hash === undefined ? undefined : this.byHash.get(hash);
  }
  async payloadByHash(hash: Hash) {
    return this.byHash.get(hash);
  }
  async getProof(_a: Hex, _s: readonly Hash[], blockHash: Hash) {
    return { storageHash: h(`storage-${blockHash}`) };
  }
}

/**
 * Records the engine operations a node asks for, as the port names them: `startBuild` (with the held parent's
 * `newPayload` when it rides along), `insertAsHead`, and single calls; `states`: every forkchoice state sent. How an
 * operation travels (one request or several) is the Engine API client's business.
 */
export class OpsEngine extends FakeEngine {
  ops: string[] = [];
  states: ForkchoiceState[] = [];
  private inner = 0;

  private log(op: string): void {
    if (this.inner === 0) this.ops.push(op);
  }
  private async within<T>(op: string, fn: () => Promise<T>): Promise<T> {
    this.log(op);
    this.inner++;
    try {
      return await fn();
    } finally {
      this.inner--;
    }
  }

  override async forkchoiceUpdated(state: ForkchoiceState, attrs?: PayloadAttributes) {
    this.log(attrs === undefined ? "fcu" : "fcu+attrs");
    this.states.push(state);
    return super.forkchoiceUpdated(state, attrs);
  }
  override async newPayload(p: PayloadToInsert) {
    this.log("newPayload");
    return super.newPayload(p);
  }
  override async getPayload(id: Hex) {
    this.log("getPayload");
    return super.getPayload(id);
  }
  override insertAsHead(p: PayloadToInsert, state: ForkchoiceState) {
    return this.within("insertAsHead", () => super.insertAsHead(p, state));
  }
  override startBuild(req: BuildStart) {
    return this.within(req.insert === undefined ? "startBuild" : "startBuild(newPayload)", () => super.startBuild(req));
  }
}

/** A block's header as `eth_getBlockByNumber(n, false)` gives it. */
export function headerOf(env: ExecutionPayloadEnvelope): L2BlockHeader {
  const p = env.executionPayload;
  return {
    parentHash: p.parentHash,
    timestamp: p.timestamp,
    prevRandao: p.prevRandao,
    gasLimit: p.gasLimit,
    withdrawals: p.withdrawals,
    withdrawalsRoot: p.withdrawalsRoot,
    feeRecipient: p.feeRecipient,
    extraData: p.extraData,
    blockHash: p.blockHash,
    blockNumber: p.blockNumber,
    transactionHashes: p.transactions.map((t) => bytesToHex(keccak_256(hexToBytes(t)))),
    parentBeaconBlockRoot: env.parentBeaconBlockRoot,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// SafeDB

export class MemorySafeDb implements SafeDbPort {
  entries = new Map<number, { l1Block: BlockId; safeHead: BlockId }>();
  async safeHeadUpdated(safeHead: BlockId, l1Head: BlockId) {
    this.entries.set(l1Head.number, { l1Block: l1Head, safeHead });
  }
  async safeHeadAtL1Block(n: number) {
    let best: number | undefined;
    for (const k of this.entries.keys()) if (k <= n && (best === undefined || k > best)) best = k;
    return best === undefined ? undefined : this.entries.get(best);
  }
  async truncate(l1Number: number) {
    for (const k of [...this.entries.keys()]) if (k > l1Number) this.entries.delete(k);
  }
  resets: { newSafe: L2BlockRef; isL2Genesis: boolean }[] = [];
  /** op-node `SafeHeadReset` semantics (as src/io/db/safe-db.ts). */
  async safeHeadReset(newSafe: L2BlockRef, opts: { isL2Genesis?: boolean; l1Block0?: BlockId } = {}) {
    this.resets.push({ newSafe, isL2Genesis: opts.isL2Genesis === true });
    if (opts.isL2Genesis === true && opts.l1Block0 !== undefined) {
      this.entries.clear();
      this.entries.set(0, { l1Block: opts.l1Block0, safeHead: { hash: newSafe.hash, number: newSafe.number } });
      return;
    }
    const keys = [...this.entries.keys()].sort((a, b) => a - b);
    const first = keys.find(
      (k) => k >= newSafe.l1origin.number && this.entries.get(k)!.safeHead.number >= newSafe.number,
    );
    if (first === undefined) return;
    const firstEntry = this.entries.get(first)!;
    const earlier = keys.some((k) => k < first);
    for (const k of keys) if (k >= first) this.entries.delete(k);
    if (earlier)
      this.entries.set(first, {
        l1Block: firstEntry.l1Block,
        safeHead: { hash: newSafe.hash, number: newSafe.number },
      });
  }
  cleared = 0;
  async clear() {
    this.cleared++;
    this.entries.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Attributes builder and a toy pipeline: one L2 block per L1 block (L2 block k has L1 origin k).

export function fakeAttributesBuilder(cfg: RollupConfig, l1: L1Source): AttributesBuilder {
  return {
    async prepare(parent, epoch) {
      const origin = await l1.l1BlockRefByHash(epoch.hash);
      const seq = origin.number === parent.l1origin.number ? parent.sequenceNumber + 1 : 0;
      return {
        l1origin: origin,
        sequenceNumber: seq,
        attributes: attributesFromHex(
          {
            timestamp: parent.timestamp + cfg.block_time,
            prevRandao: origin.hash,
            suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
            noTxPool: true,
            gasLimit: 30_000_000n,
          },
          [fakeL1InfoTx(origin, seq)],
        ),
      };
    },
  };
}

export class ToyPipeline implements DerivationPipeline {
  origin: L1BlockRef;
  /** Extra "batch" transactions per L2 block number. */
  batchTxs = new Map<number, Hex[]>();
  resets = 0;

  constructor(
    readonly cfg: RollupConfig,
    private readonly l1: FakeL1,
    private readonly builder: AttributesBuilder,
  ) {
    this.origin = l1.blocks[0]!;
  }

  async step(pendingSafe: L2BlockRef): Promise<StepResult> {
    const next = pendingSafe.number + 1;
    if (this.origin.number >= next) {
      const epoch = await this.l1.l1BlockRefByNumber(next);
      const p = await this.builder.prepare(pendingSafe, epoch);
      const attrs: DerivedAttributes = {
        attributes: {
          fields: p.attributes.fields,
          txBytes: [...p.attributes.txBytes, ...(this.batchTxs.get(next) ?? []).map((t) => hexToBytes(t))],
        },
        parent: pendingSafe,
        l1origin: p.l1origin,
        sequenceNumber: p.sequenceNumber,
        concluding: true,
        derivedFrom: this.origin,
      };
      return { kind: "attributes", attrs };
    }
    const head = this.l1.head;
    if (this.origin.number >= head.number) return { kind: "eof" };
    const nextL1 = await this.l1.l1BlockRefByNumber(this.origin.number + 1);
    if (nextL1.parentHash !== this.origin.hash) {
      const { ResetError } = await import("../../../src/core/errors/supernode-error.js");
      throw new ResetError("L1_REORG", "detected L1 reorg");
    }
    this.origin = nextL1;
    return { kind: "progress" };
  }

  async reset(safeHead: L2BlockRef): Promise<void> {
    this.resets++;
    this.origin = await this.l1.l1BlockRefByNumber(safeHead.l1origin.number);
  }

  invalidated(last: DerivedAttributes): DerivedAttributes | undefined {
    const deposits = last.attributes.txBytes.filter((t) => t[0] === 0x7e);
    return { ...last, attributes: { ...last.attributes, txBytes: deposits }, depositsOnly: true };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A manual clock whose sleeps are short real timers (so loops stay responsive).

export class ManualClock implements Clock {
  /** Sleeps requested so far (a driver loop sleeps once per idle turn; see `loopTurns`). */
  sleeps = 0;
  constructor(public now: number) {}
  nowMs(): number {
    return this.now;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError());
      const t = setTimeout(resolve, Math.min(ms, 5));
      signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          reject(new AbortedError());
        },
        { once: true },
      );
    });
  }
}

/** The system clock, counting the sleeps requested (see `loopTurns`). */
export class CountingClock implements Clock {
  sleeps = 0;
  nowMs(): number {
    return Date.now();
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps++;
    return systemClock.sleep(ms, signal);
  }
}

/**
 * Waits until the driver loop on `clock` has slept `n` more times: that many further loop turns ran, so a check
 * that "nothing happened" afterwards waits for events rather than for wall-clock time.
 */
export async function loopTurns(clock: { sleeps: number }, n = 3): Promise<void> {
  const start = clock.sleeps;
  await waitFor(() => clock.sleeps >= start + n);
}

export async function waitFor(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error("waitFor: timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

export { hexToBytes };

// ---------------------------------------------------------------------------------------------------------------
// Building L2 chains directly on a fake execution client (no node): block k gets the L1 origin `originOf(k)`.

export async function buildL2Chain(
  engine: FakeEngine,
  l1: FakeL1,
  n: number,
  opts: { originOf?: (k: number) => number; labels?: { safe?: number; finalized?: number } } = {},
): Promise<L2BlockRef[]> {
  const cfg = engine.cfg;
  const builder = fakeAttributesBuilder(cfg, l1);
  const refs: L2BlockRef[] = [(await engine.l2BlockRefByLabel("latest"))!];
  for (let k = refs[0]!.number + 1; k <= refs[0]!.number + n; k++) {
    const parent = refs[refs.length - 1]!;
    const origin = l1.blocks[opts.originOf?.(k) ?? k]!;
    const p = await builder.prepare(parent, origin);
    const fc = { headBlockHash: parent.hash, safeBlockHash: engine.safe, finalizedBlockHash: engine.finalized };
    const res = await engine.forkchoiceUpdated(fc, p.attributes);
    const env = await engine.getPayload(res.payloadId!);
    await engine.newPayload(env);
    await engine.forkchoiceUpdated({ ...fc, headBlockHash: env.executionPayload.blockHash });
    refs.push(engine.refOf(env));
  }
  const at = (k: number | undefined, dflt: Hash) => (k === undefined ? dflt : engine.canonical[k]!);
  engine.safe = at(opts.labels?.safe, engine.safe);
  engine.finalized = at(opts.labels?.finalized, engine.finalized);
  return refs;
}

/** A logger that records every line (level, context, message). */
export function recordingLogger(): Logger & { lines: { level: string; obj: Record<string, unknown>; msg: string }[] } {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const fn =
    (level: string) =>
    (a: object | string, b?: string): void => {
      if (typeof a === "string") lines.push({ level, obj: {}, msg: a });
      else lines.push({ level, obj: a as Record<string, unknown>, msg: b ?? "" });
    };
  const logger = {
    lines,
    trace: fn("trace"),
    debug: fn("debug"),
    info: fn("info"),
    warn: fn("warn"),
    error: fn("error"),
    child: () => logger,
  };
  return logger;
}
