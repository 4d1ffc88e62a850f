/**
 * The Engine API's method encoding for one chain (pure): which version of each method the fork schedule asks for
 * (op-node §3.1), the JSON-RPC calls of a forkchoice update and of a new payload, and the sealed payloads with
 * their own JSON (a getPayload result's payload text, sent back as the EL wrote it by the newPayload of that payload).
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import { isForkActive, type RollupConfig } from "../../protocol/rollup-config.js";
import type { BatchResult, RpcCall } from "../json-rpc/http-client.js";
import { RawJson } from "../json-rpc/raw-json.js";
import {
  type ForkchoiceState,
  type PayloadAttributes,
  type PayloadToInsert,
  type SealedPayload,
  envelopeOf,
} from "../../protocol/engine-api-types.js";
import { decodePayloadEnvelope, encodeExecutionPayload, encodePayloadAttributesParts } from "./engine-types.js";

export function forkchoiceMethod(cfg: RollupConfig, attrs?: PayloadAttributes): string {
  if (attrs === undefined) return "engine_forkchoiceUpdatedV3";
  if (isForkActive(cfg, "ecotone", attrs.fields.timestamp)) return "engine_forkchoiceUpdatedV3";
  if (isForkActive(cfg, "canyon", attrs.fields.timestamp)) return "engine_forkchoiceUpdatedV2";
  return "engine_forkchoiceUpdatedV1";
}

export function newPayloadMethod(cfg: RollupConfig, timestamp: number): string {
  if (isForkActive(cfg, "isthmus", timestamp)) return "engine_newPayloadV4";
  if (isForkActive(cfg, "ecotone", timestamp)) return "engine_newPayloadV3";
  return "engine_newPayloadV2";
}

/** getPayloadV5 from Karst (Osaka on L2); newPayload stays V4 and forkchoiceUpdated V3 (op-node, #21337). */
export function getPayloadMethod(cfg: RollupConfig, timestamp: number): string {
  if (isForkActive(cfg, "karst", timestamp)) return "engine_getPayloadV5";
  if (isForkActive(cfg, "isthmus", timestamp)) return "engine_getPayloadV4";
  if (isForkActive(cfg, "ecotone", timestamp)) return "engine_getPayloadV3";
  return "engine_getPayloadV2";
}

/**
 * `engine_forkchoiceUpdated(state, attrs)`; the attributes go as JSON text written without JSON.stringify's scan of
 * their transactions (engine-types.ts). `standardOnly`: without the OP extensions (a non-OP EL, in tests).
 */
export function forkchoiceCall(
  cfg: RollupConfig,
  state: ForkchoiceState,
  attrs: PayloadAttributes | undefined,
  standardOnly: boolean,
): RpcCall {
  return {
    method: forkchoiceMethod(cfg, attrs),
    params: [
      {
        headBlockHash: state.headBlockHash,
        safeBlockHash: state.safeBlockHash,
        finalizedBlockHash: state.finalizedBlockHash,
      },
      attrs === undefined ? null : new RawJson(encodePayloadAttributesParts(attrs, standardOnly)),
    ],
  };
}

/** `engine_newPayload`: a sealed payload's own JSON when it has one ({@link decodeSealedPayload}), else encoded. */
export function newPayloadCall(cfg: RollupConfig, toInsert: PayloadToInsert): RpcCall {
  const envelope = envelopeOf(toInsert);
  const p = envelope.executionPayload;
  const method = newPayloadMethod(cfg, p.timestamp);
  const elJson = "envelope" in toInsert ? toInsert.elJson : undefined;
  const payload = elJson === undefined ? encodeExecutionPayload(p) : new RawJson(elJson);
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
 * A getPayload result (`result`, parsed from the response) decoded for the node, with the payload's own JSON text:
 * `jsonAt(path)` gives the response's text at `path` (`["result"]` or `["result", "executionPayload"]`), e.g.
 * `(path) => jsonValueAt(text, path)`; when the text cannot be located, the parsed payload is written out again.
 */
export function decodeSealedPayload(
  result: unknown,
  jsonAt: (path: readonly string[]) => string | undefined,
): SealedPayload {
  let elJson: string | undefined;
  const envelope = decodePayloadEnvelope(result, (_payload, raw) => {
    // V2+: {executionPayload, ...}; V1: the payload itself.
    elJson = jsonAt(raw === result ? RESULT : RESULT_PAYLOAD) ?? JSON.stringify(raw);
  });
  return { envelope, elJson };
}

const RESULT: readonly string[] = ["result"];
const RESULT_PAYLOAD: readonly string[] = ["result", "executionPayload"];

/** A batch element decoded, or its error (a decoding failure included). */
export function decodeOr<T>(r: BatchResult | undefined, decode: (v: unknown) => T): T | Error {
  if (r === undefined) return new DecodeError("engine: batch response missing");
  if (!r.ok) return r.error;
  try {
    return decode(r.result);
  } catch (err) {
    return err as Error;
  }
}
