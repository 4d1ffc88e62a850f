import { SerialQueue } from "../../core/async/serial-queue.js";
import type { Turns } from "../../core/async/turns.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import type { Receipt } from "../../protocol/block/receipt.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import { DEFAULT_ENGINE_MAX_RESPONSE_BYTES } from "../common/response-limit.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import { HttpRpcClient, type RpcCall, type RpcRequestEvent } from "../json-rpc/http-client.js";
import { jsonValueAt } from "../json-rpc/raw-json.js";
import { payloadVersionOf, predictPayloadId } from "../../protocol/payload-id.js";
import {
  decodeOr,
  decodeSealedPayload,
  forkchoiceCall,
  forkchoiceMethod,
  getPayloadMethod,
  newPayloadCall,
  newPayloadMethod,
} from "./engine-calls.js";
import { type EngineIdentity, type EngineKind, identifyEngine, readClientVersion } from "./engine-identity.js";
import {
  decodeForkchoiceResult,
  decodePayloadStatus,
  type ExecutionPayloadEnvelope,
  type ForkchoiceResult,
  type ForkchoiceState,
  type L2BlockHeader,
  type PayloadAttributes,
  type PayloadStatus,
} from "./engine-types.js";
import type { BuildStartRequest, BuildStartResult } from "./engine-types.js";
import { jwtAuthHeaders } from "./jwt.js";
import { L2BlockReads, type L2Label } from "./l2-reads.js";

export { type EngineIdentity, type EngineKind, VARIANT_B_END_OF_SUPPORT_MS } from "./engine-identity.js";
export type { L2Label } from "./l2-reads.js";

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
  /**
   * Predict payload ids so that a derived block's getPayload rides in its build-start request (default true;
   * docs/performance.md). False: every getPayload goes on its own, as before.
   */
  readonly predictPayloadIds?: boolean;
}

export interface EngineClientDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onRequest?: (e: RpcRequestEvent) => void;
  /** Fair event-loop turns shared by every chain (core/async/turns.ts). */
  readonly turns?: Turns;
}

/**
 * One chain's execution client over the JWT-authenticated Engine API endpoint. Engine calls (forkchoice updates,
 * new payloads, payload retrieval) run through one serial queue so they reach the EL in submission order. Method
 * versions follow the fork schedule of the rollup config (op-node §3.1; engine-calls.ts). L2 block reads on the
 * same endpoint: l2-reads.ts; identification of the client: engine-identity.ts.
 */
export class EngineClient {
  private readonly rpc: HttpRpcClient;
  private readonly queue = new SerialQueue();
  private readonly cfg: RollupConfig;
  private readonly reads: L2BlockReads;
  private readonly standardOnly: boolean;
  private batching = true;
  /** Payload ids are predicted (getPayload rides with the build start) until a prediction missed. */
  private predicting = true;

  private constructor(
    readonly opts: EngineClientOptions,
    private readonly deps: EngineClientDeps,
  ) {
    this.cfg = opts.rollupConfig;
    this.standardOnly = opts.standardAttributesOnly === true;
    this.predicting = opts.predictPayloadIds !== false;
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
    this.reads = new L2BlockReads(this.rpc, this.cfg);
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
    return forkchoiceMethod(this.cfg, attrs);
  }

  newPayloadMethod(timestamp: number): string {
    return newPayloadMethod(this.cfg, timestamp);
  }

  getPayloadMethod(timestamp: number): string {
    return getPayloadMethod(this.cfg, timestamp);
  }

  // ---------------------------------------------------------------- Engine API

  forkchoiceUpdated(state: ForkchoiceState, attrs?: PayloadAttributes): Promise<ForkchoiceResult> {
    const call = forkchoiceCall(this.cfg, state, attrs, this.standardOnly);
    return this.queue.run(async () => decodeForkchoiceResult(await this.rpc.call(call.method, call.params)));
  }

  newPayload(envelope: ExecutionPayloadEnvelope): Promise<PayloadStatus> {
    const call = newPayloadCall(this.cfg, envelope);
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
    const np = newPayloadCall(this.cfg, envelope);
    const fc = forkchoiceCall(this.cfg, state, attrs, this.standardOnly);
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

  /**
   * The id this EL will return for building `attrs` on `parentHash` (protocol/payload-id.ts: op-geth's and op-reth's
   * rule), or undefined: while calls are batched and predictions have not missed, for the OP attributes only.
   */
  predictPayloadId(parentHash: Hash, attrs: PayloadAttributes): Hex | undefined {
    if (!this.predicting || !this.batching || this.standardOnly) return undefined;
    const version = payloadVersionOf(forkchoiceMethod(this.cfg, attrs));
    return version === undefined ? undefined : predictPayloadId(parentHash, attrs, version);
  }

  /** After a prediction missed: every later build start goes without its getPayload (logged once, at info). */
  stopPredictingPayloadIds(reason: string): void {
    if (!this.predicting) return;
    this.predicting = false;
    this.deps.logger.info({ reason }, "execution client: payload ids are no longer predicted");
  }

  /**
   * `[newPayload(held)], forkchoiceUpdated(state, attrs), getPayload(payloadId)` as one JSON-RPC batch (one round
   * trip for a derived block's build start and its payload). The payload is decoded as {@link getPayload} does, its
   * JSON text kept from this batch element's; each element is the call's result or its error.
   */
  buildStartWithPayload(req: BuildStartRequest): Promise<BuildStartResult> {
    const calls: RpcCall[] = [];
    if (req.held !== undefined) calls.push(newPayloadCall(this.cfg, req.held));
    calls.push(forkchoiceCall(this.cfg, req.state, req.attrs, this.standardOnly));
    calls.push({ method: this.getPayloadMethod(req.attrs.fields.timestamp), params: [req.payloadId] });
    const k = req.held === undefined ? 0 : 1;
    return this.queue.run(async () => {
      const { results, itemValueAt } = await this.rpc.batchWithText(calls);
      const gp = results[k + 1];
      let payload: ExecutionPayloadEnvelope | Error;
      if (gp === undefined) payload = new DecodeError("engine: batch response missing");
      else if (!gp.ok) payload = gp.error;
      else {
        try {
          payload = decodeSealedPayload(gp.result, (path) => itemValueAt(k + 1, path));
        } catch (err) {
          payload = err as Error;
        }
      }
      return {
        ...(k === 1 ? { newPayload: decodeOr(results[0], decodePayloadStatus) } : {}),
        forkchoice: decodeOr(results[k], decodeForkchoiceResult),
        payload,
      };
    });
  }

  /**
   * The payload the EL built, decoded (and checked) for the node; the EL's own JSON text of it is kept: a
   * newPayload of this very payload object sends that text back as the EL wrote it (fields the node does not model
   * included) instead of encoding the payload again.
   */
  getPayload(payloadId: Hex, timestamp: number): Promise<ExecutionPayloadEnvelope> {
    const method = this.getPayloadMethod(timestamp);
    return this.queue.run(async () => {
      const { result, text } = await this.rpc.callWithText(method, [payloadId]);
      return decodeSealedPayload(result, (path) => jsonValueAt(text, path));
    });
  }

  // ---------------------------------------------------------------- L2 blocks (eth namespace, same endpoint)

  l2BlockRefByLabel(label: L2Label): Promise<L2BlockRef | undefined> {
    return this.reads.l2BlockRefByLabel(label);
  }

  l2BlockRefByNumber(n: number): Promise<L2BlockRef | undefined> {
    return this.reads.l2BlockRefByNumber(n);
  }

  /** The block ref by hash; a walk back along parent hashes is read ahead in batches (l2-reads.ts). */
  l2BlockRefByHash(hash: Hash): Promise<L2BlockRef | undefined> {
    return this.reads.l2BlockRefByHash(hash);
  }

  payloadByNumber(n: number): Promise<ExecutionPayloadEnvelope | undefined> {
    return this.reads.payloadByNumber(n);
  }

  /** Blocks `ns` (canonical, by number) in one JSON-RPC batch; each the payload, undefined (no block) or an error. */
  payloadsByNumber(ns: readonly number[]): Promise<(ExecutionPayloadEnvelope | undefined | Error)[]> {
    return this.reads.payloadsByNumber(ns);
  }

  /** Headers and transaction hashes of blocks `ns` in one batch, elements as in {@link payloadsByNumber}. */
  headersByNumber(ns: readonly number[]): Promise<(L2BlockHeader | undefined | Error)[]> {
    return this.reads.headersByNumber(ns);
  }

  payloadByHash(hash: Hash): Promise<ExecutionPayloadEnvelope | undefined> {
    return this.reads.payloadByHash(hash);
  }

  /** Every receipt of block `hash` (`eth_getBlockReceipts`), in transaction order; undefined for an unknown block. */
  blockReceipts(hash: Hash): Promise<Receipt[] | undefined> {
    return this.reads.blockReceipts(hash);
  }

  /** `eth_getProof` at a block hash; the output root needs `storageHash` (L2ToL1MessagePasser storage root). */
  getProof(
    address: Address,
    slots: readonly Hash[],
    blockHash: Hash,
  ): Promise<{ storageHash: Hash; accountProof: readonly Hex[]; storageProof: readonly unknown[] }> {
    return this.reads.getProof(address, slots, blockHash);
  }

  async chainId(): Promise<bigint> {
    return BigInt(String(await this.rpc.call("eth_chainId", [])));
  }

  clientVersion(): Promise<string> {
    return readClientVersion(this.rpc);
  }

  /**
   * Identifies the execution client (engine-identity.ts): warns when it is not the configured `l2.enginekind`, and
   * about variant B's end of support (by the injected clock). Never throws.
   */
  identify(): Promise<EngineIdentity> {
    return identifyEngine(this.rpc, this.opts.kind, this.deps);
  }
}
