import { bytesToHex, type Clock, type Hash, type Hex, hexToBytes, type Logger } from "supernode/core";
import type { ChainParams } from "./block-builder.js";
import { type HeadChange, SimChain } from "./chain.js";
import { decodeAnyTx } from "./tx-decode.js";
import { TxPool } from "./tx-pool.js";
import type { SimBlock, SimTx, Variant } from "./types.js";

const DECODE_CACHE_MAX = 20_000;
/** geth's pool does not re-inject the transactions of a reorg deeper than this. */
const REINJECT_MAX_DEPTH = 64;

/** The state shared by the Engine API, the JSON-RPC namespaces and the subscriptions of one simulated client. */
export class ElCore {
  readonly chain: SimChain;
  readonly pool = new TxPool();
  /** Built payloads by payload ID. */
  readonly payloads = new Map<string, SimBlock>();
  /** Blocks found invalid → their latest valid ancestor. */
  readonly invalid = new Map<Hash, Hash>();
  readonly #decoded = new Map<string, SimTx>();
  /** What a forkchoice update to a canonical ancestor of the head does (`SimulatedElOptions.ancestorForkchoice`). */
  ancestorForkchoice: "reorg" | "keep-head" = "reorg";
  /** Forkchoice updates to a canonical ancestor that kept the head (`keep-head`; tests). */
  keptHeads = 0;
  /** Where to fetch blocks this client is asked about but does not have (EL sync); see sync-source.ts. */
  syncSource: { request(target: Hash): void } | undefined;

  constructor(
    readonly params: ChainParams,
    readonly variant: Variant,
    genesis: SimBlock,
    readonly clock: Clock,
    readonly log: Logger,
    readonly sequencerHttp: string | undefined,
  ) {
    this.chain = new SimChain(genesis);
    this.chain.onHeadChange((c) => {
      this.reinject(c);
      this.pool.prune(this.chain.head.state);
    });
  }

  /**
   * As geth's transaction pool on a new head: the transactions of blocks that left the canonical chain and are not
   * on the new one go back to the pool, unless the reorg is deeper than 64 blocks (geth skips those).
   */
  private reinject(c: HeadChange): void {
    const oldHead = c.removed[c.removed.length - 1];
    if (oldHead === undefined) return;
    const head = this.chain.head;
    const depth = Math.abs(oldHead.header.number - head.header.number);
    if (depth > REINJECT_MAX_DEPTH) {
      this.log.debug({ depth }, "skipping deep transaction reorg");
      return;
    }
    const lost = c.removed.flatMap((b) =>
      b.txs.filter((tx) => tx.nonce !== undefined && this.chain.tx(tx.hash) === undefined),
    );
    if (lost.length === 0) return;
    const n = this.pool.reinject(lost, head.state);
    if (n > 0) this.log.debug({ reinjected: n, removed: c.removed.length }, "reorged transactions back in the pool");
  }

  /** Decodes a transaction given as hex, with a cache keyed by the hex (payloads are often seen twice). */
  async decodeTx(hex: Hex): Promise<SimTx> {
    const key = hex.toLowerCase();
    const hit = this.#decoded.get(key);
    if (hit !== undefined) return hit;
    const tx = await decodeAnyTx(hexToBytes(hex));
    if (this.#decoded.size >= DECODE_CACHE_MAX) this.#decoded.clear();
    this.#decoded.set(key, tx);
    return tx;
  }

  /** Remembers the decoding of transactions this client built itself. */
  rememberTxs(block: SimBlock): void {
    if (this.#decoded.size + block.txs.length >= DECODE_CACHE_MAX) this.#decoded.clear();
    for (const tx of block.txs) this.#decoded.set(bytesToHex(tx.raw), tx);
  }

  /** Resolves a block selector: number (hex), `latest`/`pending`, `safe`, `finalized`, `earliest`, or a hash. */
  resolve(selector: unknown): SimBlock | undefined {
    if (selector === undefined || selector === null || selector === "latest" || selector === "pending")
      return this.chain.head;
    if (selector === "safe") return this.chain.safe;
    if (selector === "finalized") return this.chain.finalized;
    if (selector === "earliest") return this.chain.genesis;
    if (typeof selector === "object") {
      const o = selector as { blockHash?: unknown; blockNumber?: unknown };
      if (typeof o.blockHash === "string") return this.chain.byHash(o.blockHash as Hash);
      return this.resolve(o.blockNumber);
    }
    if (typeof selector !== "string" || !/^0x[0-9a-fA-F]+$/.test(selector))
      throw Object.assign(new Error(`invalid block selector ${String(selector)}`), { name: "DecodeError" });
    if (selector.length === 66) return this.chain.byHash(selector as Hash);
    const n = Number(BigInt(selector));
    return this.chain.byNumber(n);
  }
}
