import { parseRpcReceipt, type Receipt } from "../../protocol/block/receipt.js";
import { SerialQueue } from "../../core/async/serial-queue.js";
import { toQuantity } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { isForkActive, type RollupConfig } from "../../protocol/rollup-config.js";
import { DEFAULT_ENGINE_MAX_RESPONSE_BYTES } from "../common/response-limit.js";
import type { Turns } from "../../core/async/turns.js";
import {
  type BatchResult,
  HttpRpcClient,
  RpcError,
  type RpcCall,
  isMethodNotFound,
  type RpcRequestEvent,
} from "../json-rpc/http-client.js";
import {
  decodeForkchoiceResult,
  decodePayloadEnvelope,
  decodePayloadStatus,
  encodeExecutionPayload,
  encodePayloadAttributesJson,
  type ExecutionPayload,
  type ExecutionPayloadEnvelope,
  type ForkchoiceResult,
  type ForkchoiceState,
  type L2BlockHeader,
  type PayloadAttributes,
  type PayloadStatus,
} from "./engine-types.js";
import { jsonValueAt, RawJson } from "../json-rpc/raw-json.js";
import { jwtAuthHeaders } from "./jwt.js";
import { headerFromRpcBlock, l2BlockRefFromRpcBlock, payloadFromRpcBlock } from "./l2-block.js";

export type EngineKind = "variant_a" | "variant_b";

/** Variant B (the legacy execution client) reaches end of support on this date (UTC). */
export const VARIANT_B_END_OF_SUPPORT_MS = Date.UTC(2026, 4, 31);

export interface EngineClientOptions {
  readonly url: string;
  readonly jwtSecret: Uint8Array;
  readonly kind: EngineKind;
  /** `--l2.engine-rpc-timeout` (default 10 s). */
  readonly timeoutMs?: number;
  /** `--l2.max-response-size`: bound on one response body (default 256 MiB, see response-limit.ts). */
  readonly maxResponseBytes?: number;
  readonly rollupConfig: RollupConfig;
  /**
   * Send only the standard (L1) payload-attribute fields, without the OP extensions (transactions, noTxPool,
   * gasLimit, eip1559Params, minBaseFee). Only for driving a non-OP execution client, e.g. in tests.
   */
  readonly standardAttributesOnly?: boolean;
}

export interface EngineClientDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onRequest?: (e: RpcRequestEvent) => void;
  /** Fair event-loop turns shared by every chain (core/async/turns.ts). */
  readonly turns?: Turns;
}

export interface EngineIdentity {
  readonly clientVersion: string | undefined;
  /** From `rpc_modules` (answered only by variant B) and the version string; undefined when undecidable. */
  readonly detectedKind: EngineKind | undefined;
  readonly warnings: readonly string[];
}

/** Blocks read ahead per batch request when walking back along parent hashes. */
const WALK_BATCH = 64;

interface WalkAhead {
  /** Hash the walk asks for next (the parent of the last block returned). */
  expect: Hash;
  /** Lowest block number read ahead (or being read). */
  low: number;
  readonly refs: Map<Hash, L2BlockRef>;
  pending: Promise<void> | undefined;
}

export type L2Label = "latest" | "safe" | "finalized";

/**
 * One chain's execution client over the JWT-authenticated Engine API endpoint. Engine calls (forkchoice updates,
 * new payloads, payload retrieval) run through one serial queue so they reach the EL in submission order. Method
 * versions follow the fork schedule of the rollup config (op-node §3.1).
 */
export class EngineClient {
  private readonly rpc: HttpRpcClient;
  private readonly queue = new SerialQueue();
  private readonly cfg: RollupConfig;
  private walk: WalkAhead | undefined;
  private batching = true;

  private constructor(
    readonly opts: EngineClientOptions,
    private readonly deps: EngineClientDeps,
  ) {
    this.cfg = opts.rollupConfig;
    this.rpc = new HttpRpcClient({
      url: opts.url,
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_ENGINE_MAX_RESPONSE_BYTES,
      headers: jwtAuthHeaders(opts.jwtSecret, deps.clock),
      clock: deps.clock,
      transport: "http1",
      ...(deps.onRequest === undefined ? {} : { onRequest: deps.onRequest }),
      ...(deps.turns === undefined ? {} : { turns: deps.turns }),
    });
  }

  static create(opts: EngineClientOptions, deps: EngineClientDeps): EngineClient {
    return new EngineClient(opts, deps);
  }

  /** Engine calls waiting or running (the serial queue's length). */
  get pendingEngineCalls(): number {
    return this.queue.size;
  }

  // ---------------------------------------------------------------- version selection (pure)

  forkchoiceMethod(attrs?: PayloadAttributes): string {
    if (attrs === undefined) return "engine_forkchoiceUpdatedV3";
    if (isForkActive(this.cfg, "ecotone", attrs.timestamp)) return "engine_forkchoiceUpdatedV3";
    if (isForkActive(this.cfg, "canyon", attrs.timestamp)) return "engine_forkchoiceUpdatedV2";
    return "engine_forkchoiceUpdatedV1";
  }

  newPayloadMethod(timestamp: number): string {
    if (isForkActive(this.cfg, "isthmus", timestamp)) return "engine_newPayloadV4";
    if (isForkActive(this.cfg, "ecotone", timestamp)) return "engine_newPayloadV3";
    return "engine_newPayloadV2";
  }

  getPayloadMethod(timestamp: number): string {
    if (isForkActive(this.cfg, "isthmus", timestamp)) return "engine_getPayloadV4";
    if (isForkActive(this.cfg, "ecotone", timestamp)) return "engine_getPayloadV3";
    return "engine_getPayloadV2";
  }

  // ---------------------------------------------------------------- Engine API

  forkchoiceUpdated(state: ForkchoiceState, attrs?: PayloadAttributes): Promise<ForkchoiceResult> {
    const call = this.forkchoiceCall(state, attrs);
    return this.queue.run(async () => decodeForkchoiceResult(await this.rpc.call(call.method, call.params)));
  }

  newPayload(envelope: ExecutionPayloadEnvelope): Promise<PayloadStatus> {
    const call = this.newPayloadCall(envelope);
    return this.queue.run(async () => decodePayloadStatus(await this.rpc.call(call.method, call.params)));
  }

  /**
   * `engine_newPayload(envelope)` and then `engine_forkchoiceUpdated(state, attrs)` in one JSON-RPC batch request
   * (one round trip instead of two: the node's thread sleeps and wakes once). The execution clients process a
   * batch's calls one after the other in order (op-geth, op-reth); one that ran the forkchoice update first would
   * not know its head yet and answer it SYNCING, which the caller detects ({@link batchesEngineCalls} then turns
   * false, and the caller sends that update again on its own). Each element is the call's result or its error.
   */
  newPayloadAndForkchoice(
    envelope: ExecutionPayloadEnvelope,
    state: ForkchoiceState,
    attrs?: PayloadAttributes,
  ): Promise<[PayloadStatus | Error, ForkchoiceResult | Error]> {
    const np = this.newPayloadCall(envelope);
    const fc = this.forkchoiceCall(state, attrs);
    return this.queue.run(async () => {
      const [a, b] = await this.rpc.batch([np, fc]);
      return [decodeOr(a, decodePayloadStatus), decodeOr(b, decodeForkchoiceResult)];
    });
  }

  /**
   * Whether {@link newPayloadAndForkchoice} is worth using: true until the EL showed that it does not process a
   * batch in order, or refused a batch ({@link stopBatchingEngineCalls}); then every call goes on its own.
   */
  get batchesEngineCalls(): boolean {
    return this.batching;
  }

  stopBatchingEngineCalls(reason: string): void {
    if (!this.batching) return;
    this.batching = false;
    this.deps.logger.warn({ reason }, "execution client: engine calls are no longer batched");
  }

  private forkchoiceCall(state: ForkchoiceState, attrs: PayloadAttributes | undefined): RpcCall {
    return {
      method: this.forkchoiceMethod(attrs),
      params: [
        {
          headBlockHash: state.headBlockHash,
          safeBlockHash: state.safeBlockHash,
          finalizedBlockHash: state.finalizedBlockHash,
        },
        attrs === undefined
          ? null
          : new RawJson(encodePayloadAttributesJson(attrs, this.opts.standardAttributesOnly === true)),
      ],
    };
  }

  private newPayloadCall(envelope: ExecutionPayloadEnvelope): RpcCall {
    const p = envelope.executionPayload;
    const method = this.newPayloadMethod(p.timestamp);
    const payload = sealedJson.get(p) ?? encodeExecutionPayload(p);
    if (method === "engine_newPayloadV2") return { method, params: [payload] };
    if (envelope.parentBeaconBlockRoot === undefined) {
      throw new DecodeError("newPayload: parentBeaconBlockRoot required from Ecotone", { block: p.blockHash });
    }
    return {
      method,
      params:
        method === "engine_newPayloadV4"
          ? [payload, [], envelope.parentBeaconBlockRoot, []]
          : [payload, [], envelope.parentBeaconBlockRoot],
    };
  }

  /**
   * The payload the EL built, decoded (and checked) for the node; the EL's own JSON text of it is kept: a
   * newPayload of this very payload object sends that text back as the EL wrote it (fields the node does not model
   * included) instead of encoding the payload again.
   */
  getPayload(
    payloadId: Hex,
    timestamp: number,
    expectTransactions?: readonly Hex[],
  ): Promise<ExecutionPayloadEnvelope> {
    const method = this.getPayloadMethod(timestamp);
    return this.queue.run(async () => {
      const { result, text } = await this.rpc.callWithText(method, [payloadId]);
      return decodePayloadEnvelope(
        result,
        (payload, raw) => {
          // V2+: {executionPayload, ...}; V1: the payload itself.
          const json = jsonValueAt(text, raw === result ? ["result"] : ["result", "executionPayload"]);
          sealedJson.set(payload, json === undefined ? raw : new RawJson(json));
        },
        expectTransactions,
      );
    });
  }

  // ---------------------------------------------------------------- L2 blocks (eth namespace, same endpoint)

  async l2BlockRefByLabel(label: L2Label): Promise<L2BlockRef | undefined> {
    return this.refOf(await this.rpc.call("eth_getBlockByNumber", [label, true]));
  }

  async l2BlockRefByNumber(n: number): Promise<L2BlockRef | undefined> {
    return this.refOf(await this.rpc.call("eth_getBlockByNumber", [toQuantity(n), true]));
  }

  /**
   * The block ref by hash. A walk back along parent hashes (finding the heads after a restart or reset asks for
   * each parent in turn) is detected and read ahead: the blocks below are requested by number in JSON-RPC batches
   * and kept by hash, so the walk costs one request per batch instead of one per block. A block's ref is fixed by
   * its hash, so serving one from the read-ahead is exact; the read-ahead is dropped when the walk ends.
   */
  async l2BlockRefByHash(hash: Hash): Promise<L2BlockRef | undefined> {
    const w = this.walk;
    if (w !== undefined && w.expect === hash) {
      let hit = w.refs.get(hash);
      if (hit === undefined && w.pending !== undefined) {
        await w.pending;
        hit = w.refs.get(hash);
      }
      if (hit !== undefined) {
        w.refs.delete(hash);
        w.expect = hit.parentHash;
        if (hit.number - w.low < WALK_BATCH / 2) this.walkAhead(w);
        return hit;
      }
    }
    const ref = this.refOf(await this.rpc.call("eth_getBlockByHash", [hash, true]));
    if (ref === undefined) {
      this.walk = undefined;
    } else if (w !== undefined && w.expect === hash) {
      // Second consecutive parent: a walk. Read ahead below it.
      const next: WalkAhead = { expect: ref.parentHash, low: ref.number, refs: new Map(), pending: undefined };
      this.walk = next;
      this.walkAhead(next);
    } else {
      this.walk = { expect: ref.parentHash, low: ref.number, refs: new Map(), pending: undefined };
    }
    return ref;
  }

  private walkAhead(w: WalkAhead): void {
    if (w.pending !== undefined || w.low <= 0) return;
    const hi = w.low - 1;
    const lo = Math.max(0, w.low - WALK_BATCH);
    // A ref needs the header and the first transaction (the L1-info deposit) only: each block is read as its
    // header with transaction hashes plus its transaction 0, not with every transaction object.
    const calls = [];
    for (let n = hi; n >= lo; n--) {
      const q = toQuantity(n);
      calls.push({ method: "eth_getBlockByNumber", params: [q, false] });
      calls.push({ method: "eth_getTransactionByBlockNumberAndIndex", params: [q, "0x0"] });
    }
    w.low = lo;
    const p = this.rpc.batch(calls).then(
      (res) => {
        for (let i = 0; i + 1 < res.length; i += 2) {
          const b = res[i]!;
          const t = res[i + 1]!;
          if (!b.ok || !t.ok || b.result === null || typeof b.result !== "object") continue;
          // Both from the same block (the chain may change between the two calls): else the walk reads it by hash.
          const hash = (b.result as { hash?: unknown }).hash;
          if (t.result !== null && (t.result as { blockHash?: unknown } | undefined)?.blockHash !== hash) continue;
          try {
            const block = { ...(b.result as object), transactions: t.result === null ? [] : [t.result] };
            const ref = l2BlockRefFromRpcBlock(block, this.cfg);
            w.refs.set(ref.hash, ref);
          } catch {
            // Not readable here: the walk asks for it by hash and gets the error then.
          }
        }
      },
      () => {},
    );
    const pending: Promise<void> = p.finally(() => {
      if (w.pending === pending) w.pending = undefined;
    });
    w.pending = pending;
  }

  async payloadByNumber(n: number): Promise<ExecutionPayloadEnvelope | undefined> {
    const b = await this.rpc.call("eth_getBlockByNumber", [toQuantity(n), true]);
    return b === null ? undefined : payloadFromRpcBlock(b, this.cfg);
  }

  /**
   * Blocks `ns` (canonical, by number) in one JSON-RPC batch request of `eth_getBlockByNumber` calls (read-only
   * calls, so batching is safe). Each element is the payload, undefined when the EL has no such block, or the
   * error that element produced.
   */
  async payloadsByNumber(ns: readonly number[]): Promise<(ExecutionPayloadEnvelope | undefined | Error)[]> {
    const res = await this.rpc.batch(
      ns.map((n) => ({ method: "eth_getBlockByNumber", params: [toQuantity(n), true] })),
    );
    return res.map((r) => {
      if (!r.ok) return r.error;
      if (r.result === null) return undefined;
      try {
        return payloadFromRpcBlock(r.result, this.cfg);
      } catch (err) {
        return err as Error;
      }
    });
  }

  /**
   * Headers and transaction hashes of blocks `ns` (canonical, by number): one JSON-RPC batch of
   * `eth_getBlockByNumber(n, false)`, elements as in {@link payloadsByNumber}. No transaction objects cross the
   * wire, none is parsed or re-encoded: what consolidating a run of blocks the EL already has needs.
   */
  async headersByNumber(ns: readonly number[]): Promise<(L2BlockHeader | undefined | Error)[]> {
    const res = await this.rpc.batch(
      ns.map((n) => ({ method: "eth_getBlockByNumber", params: [toQuantity(n), false] })),
    );
    return res.map((r) => {
      if (!r.ok) return r.error;
      if (r.result === null) return undefined;
      try {
        return headerFromRpcBlock(r.result, this.cfg);
      } catch (err) {
        return err as Error;
      }
    });
  }

  async payloadByHash(hash: Hash): Promise<ExecutionPayloadEnvelope | undefined> {
    const b = await this.rpc.call("eth_getBlockByHash", [hash, true]);
    return b === null ? undefined : payloadFromRpcBlock(b, this.cfg);
  }

  /** Every receipt of block `hash` (`eth_getBlockReceipts`), in transaction order; undefined for an unknown block. */
  async blockReceipts(hash: Hash): Promise<Receipt[] | undefined> {
    const r = await this.rpc.call("eth_getBlockReceipts", [hash]);
    if (r === null) return undefined;
    if (!Array.isArray(r)) throw new DecodeError("eth_getBlockReceipts: not an array", { hash });
    return r.map(parseRpcReceipt);
  }

  /** `eth_getProof` at a block hash; the output root needs `storageHash` (L2ToL1MessagePasser storage root). */
  async getProof(
    address: Address,
    slots: readonly Hash[],
    blockHash: Hash,
  ): Promise<{ storageHash: Hash; accountProof: readonly Hex[]; storageProof: readonly unknown[] }> {
    const r = (await this.rpc.call("eth_getProof", [address, slots, { blockHash }])) as {
      storageHash?: unknown;
      accountProof?: Hex[];
      storageProof?: unknown[];
    } | null;
    if (r === null || typeof r.storageHash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(r.storageHash)) {
      throw new DecodeError("eth_getProof: missing storageHash", { address, blockHash });
    }
    return {
      storageHash: r.storageHash.toLowerCase() as Hash,
      accountProof: r.accountProof ?? [],
      storageProof: r.storageProof ?? [],
    };
  }

  async chainId(): Promise<bigint> {
    return BigInt(String(await this.rpc.call("eth_chainId", [])));
  }

  async clientVersion(): Promise<string> {
    const v = await this.rpc.call("web3_clientVersion", []);
    if (typeof v !== "string") throw new DecodeError("web3_clientVersion: not a string");
    return v;
  }

  /**
   * Identifies the execution client: `web3_clientVersion`, plus `rpc_modules` (variant B answers it, variant A
   * returns -32601). Logs a warning when the detected kind differs from `l2.enginekind`, and when the chain runs
   * variant B, which reaches end of support on 2026-05-31 (past it, per the injected clock). Never throws.
   */
  async identify(): Promise<EngineIdentity> {
    const warnings: string[] = [];
    const log = this.deps.logger;
    let clientVersion: string | undefined;
    try {
      clientVersion = await this.clientVersion();
    } catch (err) {
      log.debug({ err: String(err) }, "web3_clientVersion unavailable");
    }
    let byModules: EngineKind | undefined;
    try {
      await this.rpc.call("rpc_modules", []);
      byModules = "variant_b";
    } catch (err) {
      if (isMethodNotFound(err)) byModules = "variant_a";
      else if (!(err instanceof RpcError)) log.debug({ err: String(err) }, "rpc_modules probe failed");
    }
    const byVersion = kindFromVersion(clientVersion);
    const detectedKind = byVersion ?? byModules;
    const configured = this.opts.kind;
    if (detectedKind !== undefined && detectedKind !== configured) {
      const msg = `execution client looks like ${detectedKind} but l2.enginekind is ${configured}`;
      warnings.push(msg);
      log.warn({ clientVersion, detected: detectedKind, configured }, msg);
    }
    if (configured === "variant_b" || detectedKind === "variant_b") {
      const past = this.deps.clock.nowMs() >= VARIANT_B_END_OF_SUPPORT_MS;
      const msg = past
        ? "variant B execution client is past its end of support (2026-05-31); migrate to variant A"
        : "variant B execution client reaches end of support on 2026-05-31; plan a migration to variant A";
      warnings.push(msg);
      log.warn({ clientVersion, engineKind: configured }, msg);
    }
    log.info({ clientVersion, detected: detectedKind, configured }, "execution client identified");
    return { clientVersion, detectedKind, warnings };
  }

  private refOf(block: unknown): L2BlockRef | undefined {
    return block === null || block === undefined ? undefined : l2BlockRefFromRpcBlock(block, this.cfg);
  }
}

/**
 * The EL's own JSON of each payload object getPayload returned: its text as the EL wrote it (or, when the text could
 * not be located, its parsed object). Decoded payloads are immutable, so the JSON stays true to the object it is
 * keyed by; a copy or a payload from elsewhere is encoded afresh.
 */
const sealedJson = new WeakMap<ExecutionPayload, object>();

/** A batch element decoded, or its error (a decoding failure included). */
function decodeOr<T>(r: BatchResult | undefined, decode: (v: unknown) => T): T | Error {
  if (r === undefined) return new DecodeError("engine: batch response missing");
  if (!r.ok) return r.error;
  try {
    return decode(r.result);
  } catch (err) {
    return err as Error;
  }
}

/** Version strings: variant A clients report `reth/...`, variant B `Geth/...` (case-insensitive). */
function kindFromVersion(v: string | undefined): EngineKind | undefined {
  if (v === undefined) return undefined;
  if (/(^|[^a-z])(op-)?reth\//i.test(v)) return "variant_a";
  if (/(^|[^a-z])(op-)?geth\//i.test(v)) return "variant_b";
  return undefined;
}
