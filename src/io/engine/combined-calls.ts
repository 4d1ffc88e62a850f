/**
 * The node's combined engine operations over JSON-RPC (docs/performance.md): a payload inserted as the head
 * (`newPayload` + `forkchoiceUpdated`), and a build start with the held parent's `newPayload` and, for a derived
 * block, the `getPayload` of the payload id this client predicts (protocol/payload-id.ts). While the EL takes
 * batches in order, each operation is one JSON-RPC batch: one round trip, one sleep and wake-up of the node's
 * thread. The execution clients run a batch's calls one after the other (op-geth, op-reth); an EL that refused a
 * batch, or answered its forkchoice update SYNCING although it had just accepted the head (it ran the update
 * first), gets every later call on its own (logged once). A predicted id the EL did not return, or a batched
 * getPayload that failed, stops prediction for that EL (logged once, at info); the caller then seals on its own.
 */
import type { SerialQueue } from "../../core/async/serial-queue.js";
import type { Logger } from "../../core/logger.js";
import type { Hex } from "../../core/types/primitives.js";
import { payloadVersionOf, predictPayloadId } from "../../protocol/payload-id.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import type { BatchResult, BatchWithText, HttpRpcClient, RpcCall } from "../json-rpc/http-client.js";
import {
  decodeOr,
  decodeSealedPayload,
  forkchoiceCall,
  forkchoiceMethod,
  getPayloadMethod,
  newPayloadCall,
} from "./engine-calls.js";
import type {
  BuildStart,
  BuildStarted,
  ForkchoiceResult,
  ForkchoiceState,
  HeadInsertion,
  PayloadAttributes,
  PayloadStatus,
  PayloadToInsert,
  SealedPayload,
} from "../../protocol/engine-api-types.js";
import { decodeForkchoiceResult, decodePayloadStatus } from "./engine-types.js";

export interface CombinedCallsDeps {
  readonly rpc: HttpRpcClient;
  /** The chain's engine call queue (calls reach the EL in order). */
  readonly queue: SerialQueue;
  readonly cfg: RollupConfig;
  readonly logger: Logger;
  /** Without the OP attribute extensions (a non-OP EL, in tests): ids are not predicted. */
  readonly standardOnly: boolean;
  /** Whether payload ids are predicted at all. */
  readonly predict: boolean;
  /** A prediction's outcome (metric). */
  readonly onPrediction?: ((outcome: "hit" | "miss") => void) | undefined;
  /** The single calls, each on its own request. */
  readonly newPayload: (p: PayloadToInsert) => Promise<PayloadStatus>;
  readonly forkchoiceUpdated: (state: ForkchoiceState, attrs?: PayloadAttributes) => Promise<ForkchoiceResult>;
}

export class CombinedCalls {
  private batching = true;
  private predicting: boolean;

  constructor(private readonly d: CombinedCallsDeps) {
    this.predicting = d.predict && !d.standardOnly;
  }

  /** Whether operations still go as one batch (false once the EL showed it cannot take them). */
  get batches(): boolean {
    return this.batching;
  }

  /** Whether payload ids are still predicted. */
  get predicts(): boolean {
    return this.predicting && this.batching;
  }

  insertAsHead(payload: PayloadToInsert, state: ForkchoiceState): Promise<HeadInsertion> {
    return this.combined(payload, state, undefined, undefined) as Promise<HeadInsertion>;
  }

  startBuild(req: BuildStart): Promise<BuildStarted> {
    return this.combined(req.insert, req.state, req.attrs, req.sealAtOnce ? this.predicted(req) : undefined);
  }

  /** The id the EL will return for `req`, while predicting (op-geth's and op-reth's rule). */
  private predicted(req: BuildStart): Hex | undefined {
    if (!this.predicts) return undefined;
    const version = payloadVersionOf(forkchoiceMethod(this.d.cfg, req.attrs));
    return version === undefined ? undefined : predictPayloadId(req.state.headBlockHash, req.attrs, version);
  }

  private async combined(
    insert: PayloadToInsert | undefined,
    state: ForkchoiceState,
    attrs: PayloadAttributes | undefined,
    predicted: Hex | undefined,
  ): Promise<BuildStarted> {
    if (!this.batching || (insert === undefined && predicted === undefined)) return this.inTurn(insert, state, attrs);
    const d = this.d;
    const calls: RpcCall[] = [];
    if (insert !== undefined) calls.push(newPayloadCall(d.cfg, insert));
    calls.push(forkchoiceCall(d.cfg, state, attrs, d.standardOnly));
    if (predicted !== undefined && attrs !== undefined) {
      calls.push({ method: getPayloadMethod(d.cfg, attrs.fields.timestamp), params: [predicted] });
    }
    let batch: BatchWithText;
    try {
      batch = await d.queue.run(() => d.rpc.batchWithText(calls));
    } catch (err) {
      // The request failed as a whole (network, timeout, HTTP status): each call's error.
      const e = err as Error;
      return insert === undefined ? { forkchoice: e } : { inserted: e, forkchoice: e };
    }
    const { results } = batch;
    const refusal = refusedBatch(results);
    if (refusal !== undefined) {
      this.stopBatching(`batch refused: ${refusal.message}`);
      return this.inTurn(insert, state, attrs);
    }
    const k = insert === undefined ? 0 : 1;
    const inserted = insert === undefined ? undefined : decodeOr(results[0], decodePayloadStatus);
    const forkchoice = decodeOr(results[k], decodeForkchoiceResult);
    if (
      isStatus(inserted, "VALID") &&
      !(forkchoice instanceof Error) &&
      forkchoice.payloadStatus.status === "SYNCING"
    ) {
      this.stopBatching("the forkchoice update of a batch ran before its newPayload (answered SYNCING)");
      return { inserted, forkchoice: await d.forkchoiceUpdated(state, attrs).catch((e: unknown) => e as Error) };
    }
    const sealed =
      predicted === undefined ? undefined : this.predictionOutcome(predicted, forkchoice, results[k + 1], batch, k + 1);
    return {
      ...(inserted === undefined ? {} : { inserted }),
      forkchoice,
      ...(sealed === undefined ? {} : { sealed }),
    };
  }

  /** The operation call by call: the update only after a VALID insertion. */
  private async inTurn(
    insert: PayloadToInsert | undefined,
    state: ForkchoiceState,
    attrs: PayloadAttributes | undefined,
  ): Promise<BuildStarted> {
    let inserted: PayloadStatus | Error | undefined;
    if (insert !== undefined) {
      inserted = await this.d.newPayload(insert).catch((e: unknown) => e as Error);
      if (!isStatus(inserted, "VALID")) return { inserted };
    }
    const forkchoice = await this.d.forkchoiceUpdated(state, attrs).catch((e: unknown) => e as Error);
    return inserted === undefined ? { forkchoice } : { inserted, forkchoice };
  }

  /**
   * The batched payload when the prediction held (the build start was accepted with exactly the predicted id, and
   * the payload came back); after a miss prediction stops for this EL.
   */
  private predictionOutcome(
    predicted: Hex,
    forkchoice: ForkchoiceResult | Error,
    gp: BatchResult | undefined,
    batch: BatchWithText,
    i: number,
  ): SealedPayload | undefined {
    if (forkchoice instanceof Error || forkchoice.payloadStatus.status !== "VALID") return undefined;
    const returned = forkchoice.payloadId;
    if (returned === null) return undefined;
    let reason: string;
    if (returned.toLowerCase() !== predicted) {
      reason = `the EL returned payload id ${returned}, predicted ${predicted}`;
    } else {
      const sealed = decodeOr(gp, (v) => decodeSealedPayload(v, (path) => batch.itemValueAt(i, path)));
      if (!(sealed instanceof Error)) {
        this.d.onPrediction?.("hit");
        return sealed;
      }
      reason = `getPayload of the predicted id failed in the batch: ${sealed.message}`;
    }
    this.d.onPrediction?.("miss");
    this.stopPredicting(reason);
    return undefined;
  }

  stopBatching(reason: string): void {
    if (!this.batching) return;
    this.batching = false;
    this.d.logger.warn({ reason }, "execution client: engine calls are no longer batched");
  }

  stopPredicting(reason: string): void {
    if (!this.predicting) return;
    this.predicting = false;
    this.d.logger.info({ reason }, "execution client: payload ids are no longer predicted");
  }
}

function isStatus(s: PayloadStatus | Error | undefined, status: PayloadStatus["status"]): s is PayloadStatus {
  return s !== undefined && !(s instanceof Error) && s.status === status;
}

/** The EL's refusal of the whole batch (one JSON-RPC error for every element), if that is what came back. */
function refusedBatch(results: readonly BatchResult[]): Error | undefined {
  const first = results[0];
  if (first === undefined || first.ok) return undefined;
  const err = first.error;
  if (!results.every((r) => !r.ok && r.error === err)) return undefined;
  return (err as { code?: unknown }).code === "RPC_ERROR" ? err : undefined;
}
