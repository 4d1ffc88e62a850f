import { HttpRpcClient } from "supernode/json-rpc";

/**
 * One JSON-RPC call over HTTP with the supernode's client (`supernode/json-rpc`, keep-alive connections shared);
 * throws on transport errors (a temporary `SupernodeError`) and on a JSON-RPC error object (`RpcCallError`).
 */
export function rpcCall<T>(
  url: string,
  method: string,
  params: readonly unknown[] = [],
  timeoutMs = 5_000,
): Promise<T> {
  return new HttpRpcClient({ url, timeoutMs }).call<T>(method, params);
}
