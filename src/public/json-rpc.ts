/**
 * `supernode/json-rpc`: the supernode's JSON-RPC 2.0 pieces for other programs (the devnet package uses them):
 * its HTTP client (`HttpRpcClient`; a server's error object fails the call with `RpcCallError`, network trouble
 * with a temporary `SupernodeError`) and what a served method throws to answer with an error object (`RpcError`,
 * with the specification's codes `RPC_*`).
 */
export { HttpRpcClient, isMethodNotFound, RpcError as RpcCallError } from "../io/json-rpc/http-client.js";
export {
  RPC_INTERNAL_ERROR,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  RPC_SERVER_ERROR,
  RpcError,
} from "../rpc/errors.js";
