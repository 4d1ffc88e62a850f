import { toQuantity } from "supernode/core";
import type { ElCore } from "./el-core.js";
import { l1FeeParamsOf } from "./pool-rules.js";
import type { RpcHandler, RpcMethods } from "./json-rpc.js";

/**
 * `rollup_gasPrices` (the legacy OP client's method, discouraged in favour of `eth_gasPrice`, still named by the
 * specification): `{ l1GasPrice, l2GasPrice }` — the L1 base fee the head's L1-info deposit carries (0 before the
 * first L1-info block) and what `eth_gasPrice` answers.
 */
export function rollupMethods(core: ElCore, eth: RpcMethods): Map<string, RpcHandler> {
  const gasPrice = eth.get("eth_gasPrice");
  if (gasPrice === undefined) throw new Error("rollup_gasPrices needs eth_gasPrice");
  const m = new Map<string, RpcHandler>();
  m.set("rollup_gasPrices", async () => {
    const l1 = l1FeeParamsOf(core.chain.head);
    return { l1GasPrice: toQuantity(l1?.l1BaseFee ?? 0n), l2GasPrice: await gasPrice([]) };
  });
  return m;
}
