/**
 * Per-chain `admin_*` methods (served only with `--rpc.enable-admin`; the server enforces the gate through the
 * `admin` flag). Errors are the node's (`sequencer is not enabled`, `sequencer already running`, `payload has bad
 * block hash: …`; code -32000) and -32602 for malformed parameters.
 */
import type { Hash } from "../../core/types/primitives.js";
import type { ChainAdminControl, ChainRpcView } from "../../node/chain-view.js";
import { NodeRpcError } from "../../node/errors.js";
import { InvalidParamsError, RPC_INVALID_PARAMS } from "../errors.js";
import { createMethodTable, type MethodTable } from "../method-table.js";
import { parsePostUnsafePayloadParams } from "./admin-payload.js";

const HASH_RE = /^0x[0-9a-fA-F]{64}$/;

function noParams(method: string, params: unknown[]): void {
  if (params.length > 0) throw new InvalidParamsError(`${method} takes no parameters`);
}

/** `admin_startSequencer` accepts `[]` or `[expectedUnsafeHeadHash]` (newer clients send the hash). */
export function parseStartSequencerParams(params: unknown[]): Hash | undefined {
  if (params.length === 0 || (params.length === 1 && params[0] === null)) return undefined;
  if (params.length > 1) throw new InvalidParamsError("too many arguments, want at most 1");
  const h = params[0];
  if (typeof h !== "string" || !HASH_RE.test(h)) {
    throw new InvalidParamsError("invalid argument 0: expected a 32-byte hex block hash");
  }
  return h.toLowerCase() as Hash;
}

/** `admin_setRecoverMode` and `admin_setSdmPostExecOptIn` take exactly `[bool]`. */
export function parseSetRecoverModeParams(params: unknown[]): boolean {
  if (params.length !== 1) throw new InvalidParamsError(`expected 1 argument (a boolean), got ${params.length}`);
  const v = params[0];
  if (typeof v !== "boolean") throw new InvalidParamsError("invalid argument 0: expected a boolean");
  return v;
}

/** A node error meant as -32602 (malformed payload) becomes the RPC layer's invalid-params error. */
function asParamsError(err: unknown): unknown {
  return err instanceof NodeRpcError && err.rpcCode === RPC_INVALID_PARAMS ? new InvalidParamsError(err.message) : err;
}

export function createAdminMethods(node: ChainRpcView & ChainAdminControl): MethodTable {
  return createMethodTable({
    admin_resetDerivationPipeline: {
      admin: true,
      handler: async (params) => {
        noParams("admin_resetDerivationPipeline", params);
        await node.resetDerivationPipeline();
        return null;
      },
    },
    admin_startSequencer: {
      admin: true,
      handler: async (params) => {
        await node.startSequencer(parseStartSequencerParams(params));
        return null;
      },
    },
    admin_stopSequencer: {
      admin: true,
      handler: async (params) => {
        noParams("admin_stopSequencer", params);
        await node.stopSequencer();
        // The specification's result is null (the Go node returns the head hash).
        return null;
      },
    },
    admin_sequencerActive: {
      admin: true,
      handler: async (params) => {
        noParams("admin_sequencerActive", params);
        return node.sequencerActive();
      },
    },
    admin_postUnsafePayload: {
      admin: true,
      handler: async (params) => {
        const env = parsePostUnsafePayloadParams(params);
        try {
          await node.postUnsafePayload(env);
        } catch (err) {
          throw asParamsError(err);
        }
        return null;
      },
    },
    admin_setRecoverMode: {
      admin: true,
      handler: async (params) => {
        await node.setRecoverMode(parseSetRecoverModeParams(params));
        return null;
      },
    },
    admin_setSdmPostExecOptIn: {
      admin: true,
      handler: async (params) => {
        await node.setSdmPostExecOptIn(parseSetRecoverModeParams(params));
        return null;
      },
    },
    admin_sdmStatus: {
      admin: true,
      handler: async (params) => {
        noParams("admin_sdmStatus", params);
        return node.sdmStatus();
      },
    },
  });
}
