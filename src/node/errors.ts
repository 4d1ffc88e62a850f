import { SupernodeError } from "../core/errors/supernode-error.js";

/**
 * An error a rollup-node RPC method returns to its caller (JSON-RPC code -32000 unless stated). The RPC layer maps
 * `rpcCode` and `message` into the error envelope unchanged.
 */
export class NodeRpcError extends SupernodeError {
  readonly rpcCode: number;

  constructor(code: string, message: string, rpcCode = -32000) {
    super(code, message, { severity: "temporary" });
    this.rpcCode = rpcCode;
  }
}

export const notFound = (what = "not found"): NodeRpcError => new NodeRpcError("NOT_FOUND", what);
