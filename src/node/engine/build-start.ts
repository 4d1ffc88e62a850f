/**
 * Starting a block build and sealing it (op-node §2.12 `startPayload` + `getPayload`), for the engine controller:
 * the build start (forkchoiceUpdated with attributes; the parent's held newPayload rides along, payload-inserter.ts),
 * then the sealed payload, checked against what was asked for.
 *
 * A derived block (`noTxPool`, derived from L1) is sealed at once, so the engine port may bring its sealed payload
 * back with the build start (the Engine API client predicts the payload id and sends getPayload in the same
 * request, docs/performance.md); otherwise the payload is sealed on its own with the returned id. The sequencer's
 * own blocks are sealed later: the EL fills them from its pool over time.
 */
import { TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Hex } from "../../core/types/primitives.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { ExecutionEngine, ForkchoiceState, PayloadAttributes, SealedPayload } from "../ports.js";
import { buildStartFailure, sealFailure } from "./engine-errors.js";
import type { PayloadInserter } from "./payload-inserter.js";
import { sealedPayloadMismatch } from "./sealed-payload.js";

export interface BuildStartDeps {
  readonly engine: ExecutionEngine;
  readonly logger: Logger;
  readonly inserter: PayloadInserter;
  /** Times an engine call (latency metric by method). */
  readonly timed: <T>(method: string, fn: () => Promise<T>) => Promise<T>;
}

/**
 * Builds `attrs` on `parent` (forkchoice state `fc`) and returns the sealed payload, checked; undefined when the EL
 * rejected the attributes or sealed a payload without its deposit (invalid). `accepted` runs once the EL accepted
 * the build start (it then holds the forkchoice state `fc`). `derived`: a block derived from L1 (sealed at once).
 */
export async function buildAndSeal(
  d: BuildStartDeps,
  fc: ForkchoiceState,
  attrs: PayloadAttributes,
  parent: L2BlockRef,
  derived: boolean,
  accepted: () => void,
): Promise<SealedPayload | undefined> {
  // Settles the last derived block first; its held newPayload rides along when it is the parent.
  const out = await d.inserter.forkchoice(fc, attrs, derived && attrs.fields.noTxPool === true);
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
  const sealed = (out.ok ? out.sealed : undefined) ?? (await sealAlone(d, payloadId, attrs));
  const envelope = sealed.envelope;
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
  return sealed;
}

/** `getPayload` on its own, with the id the build start returned. */
async function sealAlone(d: BuildStartDeps, id: Hex, attrs: PayloadAttributes): Promise<SealedPayload> {
  try {
    return await d.timed("getPayload", () => d.engine.sealPayload(id, attrs.fields.timestamp));
  } catch (err) {
    throw sealFailure(err);
  }
}
