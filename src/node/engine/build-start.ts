/**
 * Starting a block build and sealing it (op-node §2.12 `startPayload` + `getPayload`), for the engine controller:
 * the build start (forkchoiceUpdated with attributes; the parent's held newPayload rides along, payload-inserter.ts),
 * then the sealed payload, checked against what was asked for.
 *
 * For a derived block (`noTxPool`, derived from L1) the node predicts the payload id (protocol/payload-id.ts) and
 * `getPayload` rides in the build start's request (docs/performance.md): one round trip, one sleep of the node's thread
 * per derived block. The batched payload is used only when the EL accepted the build start and returned exactly
 * the predicted id; otherwise getPayload is sent on its own with the returned id as before, and prediction stops for
 * that EL (metric `supernode_node_payload_id_predictions_total{outcome="miss"}`). The sequencer's own blocks never
 * batch it: the EL fills them from its pool over time.
 */
import { TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Hex } from "../../core/types/primitives.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { ChainMetrics } from "../metrics.js";
import type { EngineApi, ExecutionPayloadEnvelope, ForkchoiceState, PayloadAttributes } from "../ports.js";
import { buildStartFailure, sealFailure } from "./engine-errors.js";
import type { PayloadFetch, PayloadInserter } from "./payload-inserter.js";
import { sealedPayloadMismatch } from "./sealed-payload.js";

export interface BuildStartDeps {
  readonly engine: EngineApi;
  readonly logger: Logger;
  readonly metrics?: ChainMetrics | undefined;
  readonly inserter: PayloadInserter;
  /** Times an engine call (latency metric by method). */
  readonly timed: <T>(method: string, fn: () => Promise<T>) => Promise<T>;
}

/**
 * Builds `attrs` on `parent` (forkchoice state `fc`) and returns the sealed payload, checked; undefined when the EL
 * rejected the attributes or sealed a payload without its deposit (invalid). `accepted` runs once the EL accepted
 * the build start (it then holds the forkchoice state `fc`). `derived`: a block derived from L1 (may batch its
 * getPayload).
 */
export async function buildAndSeal(
  d: BuildStartDeps,
  fc: ForkchoiceState,
  attrs: PayloadAttributes,
  parent: L2BlockRef,
  derived: boolean,
  accepted: () => void,
): Promise<ExecutionPayloadEnvelope | undefined> {
  const predicted = derived && attrs.fields.noTxPool ? d.engine.predictPayloadId?.(parent.hash, attrs) : undefined;
  const fetch: PayloadFetch | undefined = predicted === undefined ? undefined : { payloadId: predicted };
  // Settles the last derived block first; its held newPayload rides along when it is the parent.
  const out = await d.inserter.forkchoice(fc, attrs, fetch);
  let payloadId: Hex | null;
  try {
    if (!out.ok) throw out.error;
    const res = out.result;
    const st = res.payloadStatus.status;
    if (st === "INVALID" || st === "INVALID_BLOCK_HASH") {
      d.logger.warn({ status: st, error: res.payloadStatus.validationError }, "build start rejected");
      return undefined;
    }
    if (st !== "VALID") throw new TemporaryError("ENGINE_SYNCING", `build start: engine is ${st}`);
    payloadId = res.payloadId;
    accepted();
  } catch (err) {
    const failure = buildStartFailure(err);
    if (failure !== "invalid") throw failure;
    d.logger.warn({ err: String(err) }, "payload attributes rejected as invalid");
    return undefined;
  }
  if (payloadId === null) throw new TemporaryError("ENGINE_NO_PAYLOAD_ID", "build start returned no payload id");
  const envelope = batchedPayload(d, predicted, payloadId, out.payload) ?? (await sealAlone(d, payloadId, attrs));
  const txs = envelope.executionPayload.transactions;
  if (txs.length === 0 || !txs[0]?.toLowerCase().startsWith("0x7e")) {
    d.logger.warn({}, "sealed payload does not start with a deposit");
    return undefined;
  }
  const wrong = sealedPayloadMismatch(attrs, parent, envelope.executionPayload);
  if (wrong !== undefined) {
    d.logger.warn({ reason: wrong }, "the EL sealed a payload that is not the one asked for");
    throw new TemporaryError("ENGINE_WRONG_PAYLOAD", `getPayload returned another block: ${wrong}`);
  }
  return envelope;
}

/**
 * The batched getPayload's payload when the prediction held (the EL returned exactly the predicted id and the
 * payload came back); otherwise undefined, and after a miss prediction stops for this EL.
 */
function batchedPayload(
  d: BuildStartDeps,
  predicted: Hex | undefined,
  returned: Hex,
  payload: ExecutionPayloadEnvelope | Error | undefined,
): ExecutionPayloadEnvelope | undefined {
  if (predicted === undefined || payload === undefined) return undefined;
  if (returned.toLowerCase() === predicted && !(payload instanceof Error)) {
    d.metrics?.payloadIdPredictions.inc({ outcome: "hit" });
    return payload;
  }
  const reason =
    returned.toLowerCase() !== predicted
      ? `the EL returned payload id ${returned}, predicted ${predicted}`
      : `getPayload of the predicted id failed in the batch: ${payload instanceof Error ? payload.message : ""}`;
  d.metrics?.payloadIdPredictions.inc({ outcome: "miss" });
  d.engine.stopPredictingPayloadIds?.(reason);
  return undefined;
}

/** `getPayload` on its own, with the id the build start returned. */
async function sealAlone(d: BuildStartDeps, id: Hex, attrs: PayloadAttributes): Promise<ExecutionPayloadEnvelope> {
  try {
    return await d.timed("getPayload", () => d.engine.getPayload(id, attrs.fields.timestamp));
  } catch (err) {
    throw sealFailure(err);
  }
}
