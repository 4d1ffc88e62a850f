/**
 * How the engine controller reads Engine API failures: the specification's JSON-RPC error codes, and the typed
 * errors (temporary / reset) a failed forkchoice update, build start or seal becomes.
 */
import { ResetError, SupernodeError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { ForkchoiceOutcome } from "./payload-inserter.js";

export const RPC_UNKNOWN_PAYLOAD = -38001;
export const RPC_INVALID_FORKCHOICE = -38002;
export const RPC_INVALID_ATTRIBUTES = -38003;

/** The JSON-RPC error code an engine call failed with, if any. */
export function rpcCodeOf(err: unknown): number | undefined {
  const c = (err as { rpcCode?: unknown } | null)?.rpcCode;
  return typeof c === "number" ? c : undefined;
}

/** Throws the typed error for a forkchoice update (without attributes) that failed or returned INVALID. */
export function checkForkchoiceUpdate(out: ForkchoiceOutcome): void {
  if (!out.ok) {
    const err = out.error;
    if (rpcCodeOf(err) === RPC_INVALID_FORKCHOICE) {
      throw new ResetError("INVALID_FORKCHOICE", "forkchoice update rejected: invalid forkchoice state", {}, err);
    }
    throw new TemporaryError("ENGINE_FCU", "forkchoice update failed", {}, err);
  }
  const st = out.result.payloadStatus.status;
  if (st === "INVALID" || st === "INVALID_BLOCK_HASH") {
    throw new ResetError("FCU_INVALID", `forkchoice update returned ${st}`, {
      validationError: out.result.payloadStatus.validationError ?? "",
    });
  }
}

/**
 * A build start (forkchoice update with attributes) that threw: "invalid" when the EL rejected the attributes,
 * else the typed error to throw.
 */
export function buildStartFailure(err: unknown): "invalid" | SupernodeError {
  const code = rpcCodeOf(err);
  if (code === RPC_INVALID_ATTRIBUTES) return "invalid";
  if (code === RPC_INVALID_FORKCHOICE) {
    return new ResetError("INVALID_FORKCHOICE", "build start: invalid forkchoice state", {}, err);
  }
  if (err instanceof SupernodeError && err.severity !== "critical") return err;
  return new TemporaryError("ENGINE_BUILD_START", "build start failed", {}, err);
}

/** A failed getPayload as a temporary error. */
export function sealFailure(err: unknown): TemporaryError {
  const code = rpcCodeOf(err);
  return new TemporaryError(
    code === RPC_UNKNOWN_PAYLOAD ? "ENGINE_UNKNOWN_PAYLOAD" : "ENGINE_GET_PAYLOAD",
    "sealing the block failed",
    {},
    err,
  );
}
