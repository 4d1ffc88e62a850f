/**
 * Per-chain `admin_*` methods (served only with `--rpc.enable-admin`; the server enforces the gate through the
 * `admin` flag). Errors are the node's (`sequencer is not enabled`, `sequencer already running`, …; code -32000).
 */
import type { Hash } from "../../core/types/primitives.js";
import type { ChainAdminControl, ChainRpcView } from "../../node/chain-view.js";
import { InvalidParamsError } from "../errors.js";
import { createMethodTable, type MethodTable } from "../method-table.js";

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
  });
}
