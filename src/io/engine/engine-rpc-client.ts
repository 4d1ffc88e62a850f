import { SerialQueue } from "../../core/async/serial-queue.js";
import type { Turns } from "../../core/async/turns.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import type { Receipt } from "../../protocol/block/receipt.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import { DEFAULT_ENGINE_MAX_RESPONSE_BYTES } from "../common/response-limit.js";
import { HttpRpcClient, type RpcRequestEvent } from "../json-rpc/http-client.js";
import { jsonValueAt } from "../json-rpc/raw-json.js";
import { CombinedCalls } from "./combined-calls.js";
import {
  decodeSealedPayload,
  forkchoiceCall,
  forkchoiceMethod,
  getPayloadMethod,
  newPayloadCall,
  newPayloadMethod,
} from "./engine-calls.js";
import { type EngineIdentity, type EngineKind, identifyEngine, readClientVersion } from "./engine-identity.js";
import type {
  BuildStart,
  BuildStarted,
  ExecutionPayloadEnvelope,
  ForkchoiceResult,
  ForkchoiceState,
  HeadInsertion,
  L2BlockHeader,
  PayloadAttributes,
  PayloadStatus,
  PayloadToInsert,
  SealedPayload,
} from "../../protocol/engine-api-types.js";
import { decodeForkchoiceResult, decodePayloadStatus } from "./engine-types.js";
import { jwtAuthHeaders } from "./jwt.js";
import { L2BlockReads, type L2Label } from "./l2-reads.js";

export { type EngineIdentity, type EngineKind, VARIANT_B_END_OF_SUPPORT_MS } from "./engine-identity.js";
export type { L2Label } from "./l2-reads.js";

export interface EngineRpcClientOptions {
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

export interface EngineRpcClientDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onRequest?: (e: RpcRequestEvent) => void;
  /** Fair event-loop turns shared by every chain (core/async/turns.ts). */
  readonly turns?: Turns;
  /** A payload-id prediction's outcome (metric `supernode_node_payload_id_predictions_total`). */
  readonly onPayloadIdPrediction?: (outcome: "hit" | "miss") => void;
}

/**
 * One chain's execution client over the JWT-authenticated Engine API endpoint. Engine calls (forkchoice updates,
 * new payloads, payload retrieval) run through one serial queue so they reach the EL in submission order. Method
 * versions follow the fork schedule of the rollup config (op-node §3.1; engine-calls.ts). L2 block reads on the
 * same endpoint: l2-reads.ts; identification of the client: engine-identity.ts.
 */
export class EngineRpcClient {
  private readonly rpc: HttpRpcClient;
  private readonly queue = new SerialQueue();
  private readonly cfg: RollupConfig;
  private readonly reads: L2BlockReads;
  private readonly standardOnly: boolean;
  /** Inserting as head and build starts, batched while the EL takes it (combined-calls.ts). */
  private readonly combined: CombinedCalls;

  private constructor(
    readonly opts: EngineRpcClientOptions,
    private readonly deps: EngineRpcClientDeps,
  ) {
    this.cfg = opts.rollupConfig;
    this.standardOnly = opts.standardAttributesOnly === true;
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
    this.combined = new CombinedCalls({
      rpc: this.rpc,
      queue: this.queue,
      cfg: this.cfg,
      logger: deps.logger,
      standardOnly: this.standardOnly,
      predict: opts.predictPayloadIds !== false,
      onPrediction: deps.onPayloadIdPrediction,
      newPayload: (p) => this.newPayload(p),
      forkchoiceUpdated: (state, attrs) => this.forkchoiceUpdated(state, attrs),
    });
  }

  static create(opts: EngineRpcClientOptions, deps: EngineRpcClientDeps): EngineRpcClient {
    return new EngineRpcClient(opts, deps);
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

  /** `engine_newPayload`; a payload this client sealed goes back as the EL's own JSON text (engine-calls.ts). */
  newPayload(payload: PayloadToInsert): Promise<PayloadStatus> {
    const call = newPayloadCall(this.cfg, payload);
    return this.queue.run(async () => decodePayloadStatus(await this.rpc.call(call.method, call.params)));
  }

  /** `newPayload(payload)` and the update that makes it the head, as one batch while the EL takes it. */
  insertAsHead(payload: PayloadToInsert, state: ForkchoiceState): Promise<HeadInsertion> {
    return this.combined.insertAsHead(payload, state);
  }

  /**
   * A build start (after the held parent's newPayload, when given), as one batch while the EL takes it; with
   * `sealAtOnce` the getPayload of the predicted payload id rides along (combined-calls.ts).
   */
  startBuild(req: BuildStart): Promise<BuildStarted> {
    return this.combined.startBuild(req);
  }

  /** Whether combined operations still go as one batch (false once the EL showed it cannot take them). */
  get batchesEngineCalls(): boolean {
    return this.combined.batches;
  }

  /** Whether payload ids are still predicted. */
  get predictsPayloadIds(): boolean {
    return this.combined.predicts;
  }

  /** The payload the EL sealed, decoded (and checked), with the EL's own JSON text of it. */
  sealPayload(payloadId: Hex, timestamp: number): Promise<SealedPayload> {
    const method = this.getPayloadMethod(timestamp);
    return this.queue.run(async () => {
      const { result, text } = await this.rpc.callWithText(method, [payloadId]);
      return decodeSealedPayload(result, (path) => jsonValueAt(text, path));
    });
  }

  /** {@link sealPayload}'s envelope. */
  async getPayload(payloadId: Hex, timestamp: number): Promise<ExecutionPayloadEnvelope> {
    return (await this.sealPayload(payloadId, timestamp)).envelope;
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
