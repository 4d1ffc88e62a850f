import { randomBytes } from "node:crypto";
import { type Address, type Hash, isHex } from "supernode/core";
import { RPC_INVALID_PARAMS, RPC_SERVER_ERROR, RpcError } from "supernode/json-rpc";
import type { HeadChange } from "./chain.js";
import type { ElCore } from "./el-core.js";
import { logMatches } from "./eth-api.js";
import { blockLogs } from "./format.js";
import type { RpcHandler } from "./json-rpc.js";
import type { SimBlock, SimTx } from "./types.js";

/** A filter nobody polled for this long is removed (geth's default filter timeout). */
export const FILTER_TIMEOUT_MS = 5 * 60_000;
/** Changes kept per filter between polls; the oldest go first beyond this (bounded memory for forgotten filters). */
const MAX_BUFFERED = 10_000;

type Criteria = Record<string, unknown>;

interface Filter {
  readonly kind: "logs" | "blocks" | "pendingTransactions";
  readonly criteria: Criteria;
  items: unknown[];
  deadline: number;
}

/** A block-number bound of a filter (`fromBlock` / `toBlock`); undefined for tags (`latest`, `pending`, …). */
function bound(v: unknown): number | undefined {
  return isHex(v) ? Number(BigInt(v)) : undefined;
}

function inRange(c: Criteria, b: SimBlock): boolean {
  if (typeof c.blockHash === "string") return c.blockHash.toLowerCase() === b.hash;
  const n = b.header.number;
  const from = bound(c.fromBlock);
  const to = bound(c.toBlock);
  return (from === undefined || n >= from) && (to === undefined || n <= to);
}

/**
 * The polling filters of the `eth` namespace (`eth_newFilter`, `eth_newBlockFilter`,
 * `eth_newPendingTransactionFilter`, `eth_getFilterChanges`, `eth_getFilterLogs`, `eth_uninstallFilter`), shared by
 * the HTTP and WebSocket ports of one client as in geth. Each filter collects what happened since its last poll: new
 * canonical block hashes, matching logs (those of blocks a reorg removed again with `removed: true`), or hashes of
 * transactions entering the pool. A filter not polled for `FILTER_TIMEOUT_MS` expires ("filter not found").
 */
export class FilterRegistry {
  readonly #filters = new Map<string, Filter>();
  readonly #offs: (() => void)[] = [];

  constructor(
    private readonly core: ElCore,
    private readonly getLogs: RpcHandler,
  ) {
    this.#offs.push(core.chain.onHeadChange((c) => this.#onHead(c)));
    this.#offs.push(core.pool.onAdd((tx) => this.#onPending(tx)));
  }

  get size(): number {
    return this.#filters.size;
  }

  close(): void {
    for (const off of this.#offs.splice(0)) off();
    this.#filters.clear();
  }

  methods(): Map<string, RpcHandler> {
    const m = new Map<string, RpcHandler>();
    m.set("eth_newFilter", (ps) => {
      const c = ps[0];
      if (typeof c !== "object" || c === null || Array.isArray(c))
        throw new RpcError(RPC_INVALID_PARAMS, "invalid filter criteria: expected an object");
      const criteria = c as Criteria;
      if (criteria.blockHash !== undefined && (criteria.fromBlock !== undefined || criteria.toBlock !== undefined))
        throw new RpcError(
          RPC_INVALID_PARAMS,
          "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
        );
      return this.#install("logs", criteria);
    });
    m.set("eth_newBlockFilter", () => this.#install("blocks", {}));
    m.set("eth_newPendingTransactionFilter", () => this.#install("pendingTransactions", {}));
    m.set("eth_getFilterChanges", (ps) => {
      const f = this.#get(ps[0]);
      const out = f.items;
      f.items = [];
      return out;
    });
    m.set("eth_getFilterLogs", (ps) => {
      const f = this.#get(ps[0]);
      if (f.kind !== "logs") throw new RpcError(RPC_SERVER_ERROR, "filter not found");
      return this.getLogs([f.criteria]);
    });
    m.set("eth_uninstallFilter", (ps) => this.#filters.delete(String(ps[0]).toLowerCase()));
    return m;
  }

  #install(kind: Filter["kind"], criteria: Criteria): string {
    this.#sweep();
    const id = `0x${randomBytes(16).toString("hex")}`;
    this.#filters.set(id, { kind, criteria, items: [], deadline: this.core.clock.nowMs() + FILTER_TIMEOUT_MS });
    return id;
  }

  /** The live filter `id`, its expiry pushed back (a poll keeps a filter alive). */
  #get(id: unknown): Filter {
    this.#sweep();
    const f = this.#filters.get(String(id).toLowerCase());
    if (f === undefined) throw new RpcError(RPC_SERVER_ERROR, "filter not found");
    f.deadline = this.core.clock.nowMs() + FILTER_TIMEOUT_MS;
    return f;
  }

  #sweep(): void {
    const now = this.core.clock.nowMs();
    for (const [id, f] of this.#filters) if (f.deadline <= now) this.#filters.delete(id);
  }

  #push(f: Filter, item: unknown): void {
    if (f.items.length >= MAX_BUFFERED) f.items.shift();
    f.items.push(item);
  }

  #onHead(c: HeadChange): void {
    if (this.#filters.size === 0) return;
    this.#sweep();
    for (const f of this.#filters.values()) {
      if (f.kind === "blocks") for (const b of c.added) this.#push(f, b.hash);
      if (f.kind !== "logs") continue;
      for (const [blocks, removed] of [
        [c.removed, true],
        [c.added, false],
      ] as const) {
        for (const b of blocks) {
          if (!inRange(f.criteria, b) || b.receipts.every((r) => r.logs.length === 0)) continue;
          for (const l of blockLogs(b, removed))
            if (logMatches(f.criteria, l as { address: Address; topics: Hash[] })) this.#push(f, l);
        }
      }
    }
  }

  #onPending(tx: SimTx): void {
    for (const f of this.#filters.values()) if (f.kind === "pendingTransactions") this.#push(f, tx.hash);
  }
}
