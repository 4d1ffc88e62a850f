/**
 * `supernode/json-rpc`: the supernode's JSON-RPC 2.0 pieces for other programs (the devnet package uses them):
 * its HTTP client (`HttpRpcClient`; a server's error object fails the call with `RpcCallError`, network trouble
 * with a temporary `SupernodeError`) and what a served method throws to answer with an error object (`RpcError`,
 * with the specification's codes `RPC_*`); the HTTP POST under the clients with its response-size limits
 * (`postText`, `DEFAULT_*_MAX_RESPONSE_BYTES`); and the server side: the supernode's JSON-RPC server (`RpcServer`,
 * one method table per chain) and the `stack` namespace over a node's `ChainRpcView` (`createStackMethods`).
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
export {
  DEFAULT_BEACON_MAX_RESPONSE_BYTES,
  DEFAULT_ENGINE_MAX_RESPONSE_BYTES,
  DEFAULT_L1_MAX_RESPONSE_BYTES,
  ResponseTooLargeError,
} from "../io/common/response-limit.js";
export { type PostResult, PostTimeoutError, postText } from "../io/json-rpc/http-post.js";
export {
  createMethodTable,
  type MethodHandler,
  type MethodSpec,
  type MethodTable,
  mergeMethodTables,
  type RpcContext,
} from "../rpc/method-table.js";
export { type ChainRpcOptions, createStackMethods, l2BlockRefJson, syncStatusJson } from "../rpc/namespaces/stack.js";
export {
  type ChainTables,
  type Readiness,
  RpcServer,
  type RpcServerDeps,
  type RpcServerOptions,
} from "../rpc/server.js";
