import { getAddress } from "viem";
import { toQuantity } from "supernode/core";
import type { ElCore } from "./el-core.js";
import { txJson } from "./format.js";
import type { RpcHandler } from "./json-rpc.js";
import type { SimTx } from "./types.js";

type BySender<T> = Record<string, Record<string, T>>;

/** Groups transactions as geth's txpool answers do: checksummed sender → decimal nonce → entry. */
function bySender<T>(txs: readonly SimTx[], entry: (tx: SimTx) => T): BySender<T> {
  const out: BySender<T> = {};
  for (const tx of txs) {
    const sender = getAddress(tx.from);
    const byNonce = out[sender] ?? {};
    byNonce[(tx.nonce ?? 0n).toString()] = entry(tx);
    out[sender] = byNonce;
  }
  return out;
}

/** geth's one-line summary of a pooled transaction (`txpool_inspect`). */
export function inspectLine(tx: SimTx): string {
  const to = tx.to === null ? "contract creation" : getAddress(tx.to);
  return `${to}: ${tx.value} wei + ${tx.gas} gas × ${tx.maxFeePerGas ?? tx.gasPrice ?? 0n} wei`;
}

/**
 * `txpool_*` (only when `txpool` is in `--http.api`): `pending` are transactions the next block may include,
 * `queued` those waiting for an earlier nonce of their sender.
 */
export function txpoolMethods(core: ElCore): Map<string, RpcHandler> {
  const m = new Map<string, RpcHandler>();
  const split = () => {
    const state = core.chain.head.state;
    return { pending: core.pool.pending(state), queued: core.pool.queued(state) };
  };
  m.set("txpool_status", () => {
    const s = split();
    return { pending: toQuantity(s.pending.length), queued: toQuantity(s.queued.length) };
  });
  m.set("txpool_content", () => {
    const s = split();
    const json = (tx: SimTx) => txJson(core.variant, tx);
    return { pending: bySender(s.pending, json), queued: bySender(s.queued, json) };
  });
  m.set("txpool_inspect", () => {
    const s = split();
    return { pending: bySender(s.pending, inspectLine), queued: bySender(s.queued, inspectLine) };
  });
  return m;
}
