import { randomBytes } from "node:crypto";
import type { WebSocket } from "ws";
import type { Address, Hash } from "supernode/core";
import type { HeadChange } from "./chain.js";
import type { ElCore } from "./el-core.js";
import { logMatches } from "./eth-api.js";
import { blockLogs, headerJson, txJson } from "./format.js";
import { RPC_INVALID_PARAMS, RpcError } from "supernode/json-rpc";
import type { RpcHandler } from "./json-rpc.js";
import type { SimTx } from "./types.js";

type Sub =
  | { kind: "newHeads" }
  | { kind: "logs"; filter: Record<string, unknown> }
  | { kind: "newPendingTransactions"; full: boolean }
  | { kind: "syncing" };

/** The `eth_subscribe` subscriptions of one WebSocket connection. */
export class SubscriptionHub {
  readonly #subs = new Map<string, Sub>();
  readonly #offs: (() => void)[] = [];

  constructor(
    private readonly core: ElCore,
    private readonly socket: WebSocket,
  ) {
    this.#offs.push(core.chain.onHeadChange((c) => this.#onHead(c)));
    this.#offs.push(core.pool.onAdd((tx) => this.#onPending(tx)));
  }

  close(): void {
    for (const off of this.#offs) off();
    this.#subs.clear();
  }

  methods(): Map<string, RpcHandler> {
    const m = new Map<string, RpcHandler>();
    m.set("eth_subscribe", (ps) => {
      const kind = ps[0];
      let sub: Sub;
      if (kind === "newHeads") sub = { kind };
      else if (kind === "logs") {
        const f = ps[1];
        sub = { kind, filter: typeof f === "object" && f !== null ? (f as Record<string, unknown>) : {} };
      } else if (kind === "newPendingTransactions") sub = { kind, full: ps[1] === true };
      else if (kind === "syncing") sub = { kind };
      else throw new RpcError(RPC_INVALID_PARAMS, `no "${String(kind)}" subscription in eth namespace`);
      const id = `0x${randomBytes(16).toString("hex")}`;
      this.#subs.set(id, sub);
      if (sub.kind === "syncing") {
        const status =
          this.core.variant === "a"
            ? { syncing: false, status: { currentBlock: this.core.chain.head.header.number } }
            : false;
        setImmediate(() => this.#send(id, status));
      }
      return id;
    });
    m.set("eth_unsubscribe", (ps) => this.#subs.delete(String(ps[0])));
    return m;
  }

  #send(id: string, result: unknown): void {
    if (!this.#subs.has(id) || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(
      JSON.stringify({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription: id, result } }),
    );
  }

  #onHead(c: HeadChange): void {
    for (const [id, sub] of this.#subs) {
      if (sub.kind === "newHeads") for (const b of c.added) this.#send(id, headerJson(this.core.variant, b));
      else if (sub.kind === "logs") {
        for (const b of c.removed)
          for (const l of blockLogs(b, true))
            if (logMatches(sub.filter, l as { address: Address; topics: Hash[] })) this.#send(id, l);
        for (const b of c.added)
          for (const l of blockLogs(b))
            if (logMatches(sub.filter, l as { address: Address; topics: Hash[] })) this.#send(id, l);
      }
    }
  }

  #onPending(tx: SimTx): void {
    for (const [id, sub] of this.#subs)
      if (sub.kind === "newPendingTransactions") this.#send(id, sub.full ? txJson(this.core.variant, tx) : tx.hash);
  }
}
