/**
 * A sync source for the simulated execution client: what lets it "EL sync" like op-geth/op-reth. When the client is
 * asked about a block it does not have (`engine_newPayload` with an unknown parent, `engine_forkchoiceUpdated` with
 * an unknown head — it answers SYNCING), it fetches the missing chain from another client's JSON-RPC
 * (`eth_getBlockByHash(hash, true)`, walking parent hashes back to a block it knows), re-executes every block on its
 * parent and adds it when the derived block hash matches. It never moves the head: the consensus layer's next
 * forkchoice update (or newPayload of a child) then finds the blocks and answers VALID.
 *
 * Wiring (in files owned by the EL's maintainer): `ElCore.syncSource?: ElSyncSource`; in engine-api.ts,
 * `newPayload` calls `core.syncSource?.request(parentHash)` before answering SYNCING for an unknown parent and
 * `forkchoiceUpdated` calls `core.syncSource?.request(headHash)` before answering SYNCING for an unknown head;
 * `SimulatedElOptions.syncSourceHttp?: string` creates `new ElSyncSource(core, httpBlockFetcher(url), …)`; the CLI
 * `supernode-devnet el --sync-source <url>` passes it.
 */
import { bytesToHex, type Hash, type Hex, type Logger } from "supernode/core";
import { encodeRpcTransaction, validateRpcHeader } from "supernode/protocol";
import { executePayload } from "./block-builder.js";
import type { ElCore } from "./el-core.js";
import type { SimBlock, SimTx } from "./types.js";
import { HttpRpcClient } from "supernode/json-rpc";

/** Fetches a block with full transactions by hash (`eth_getBlockByHash(hash, true)`), undefined when unknown. */
export type BlockFetcher = (hash: Hash) => Promise<unknown>;

/** A fetcher over another client's HTTP JSON-RPC endpoint (loopback devnets). */
export function httpBlockFetcher(url: string, timeoutMs = 5_000): BlockFetcher {
  const rpc = new HttpRpcClient({ url, timeoutMs });
  return async (hash) => (await rpc.call<unknown>("eth_getBlockByHash", [hash, true])) ?? undefined;
}

export interface SyncSourceOptions {
  /** Most blocks fetched for one target (default 100,000). */
  readonly maxBlocks?: number;
}

type Json = Record<string, unknown>;

export class ElSyncSource {
  private running: Promise<void> | undefined;
  private pending: Hash | undefined;
  /** Blocks imported so far (tests, logs). */
  imported = 0;
  lastError: string | undefined;

  constructor(
    private readonly core: ElCore,
    private readonly fetchBlock: BlockFetcher,
    private readonly log: Logger,
    private readonly opts: SyncSourceOptions = {},
  ) {}

  /** Starts (or queues, one at a time) a background sync towards `target`. Never throws. */
  request(target: Hash): void {
    if (this.core.chain.byHash(target) !== undefined) return;
    if (this.running !== undefined) {
      this.pending = target;
      return;
    }
    this.running = this.syncTo(target)
      .catch((err) => {
        this.lastError = (err as Error).message;
        this.log.warn({ target, err: this.lastError }, "EL sync from the sync source failed");
      })
      .finally(() => {
        this.running = undefined;
        const next = this.pending;
        this.pending = undefined;
        if (next !== undefined) this.request(next);
      });
  }

  /** Resolves once no sync is running (tests). */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private async syncTo(target: Hash): Promise<void> {
    const max = this.opts.maxBlocks ?? 100_000;
    const missing: Json[] = [];
    let hash = target.toLowerCase() as Hash;
    while (this.core.chain.byHash(hash) === undefined) {
      if (missing.length >= max) throw new Error(`more than ${max} blocks behind ${target}`);
      const json = await this.fetchBlock(hash);
      if (json === undefined || json === null || typeof json !== "object") {
        throw new Error(`sync source does not have block ${hash}`);
      }
      missing.push(json as Json);
      hash = String((json as Json).parentHash).toLowerCase() as Hash;
    }
    this.log.info({ target, blocks: missing.length }, "EL sync: importing blocks from the sync source");
    for (let i = missing.length - 1; i >= 0; i--) await this.importBlock(missing[i]!);
  }

  private async importBlock(json: Json): Promise<SimBlock> {
    const { hash, header } = validateRpcHeader(json);
    const parent = this.core.chain.byHash(header.parentHash);
    if (parent === undefined) throw new Error(`parent of ${hash} missing`);
    const txs: SimTx[] = [];
    for (const t of (json.transactions as unknown[] | undefined) ?? []) {
      txs.push(await this.core.decodeTx(bytesToHex(encodeRpcTransaction(t)) as Hex));
    }
    const built = await executePayload(this.core.params, parent, {
      timestamp: header.timestamp,
      prevRandao: header.mixHash,
      feeRecipient: header.miner,
      gasLimit: header.gasLimit,
      extraData: header.extraData,
      baseFeePerGas: header.baseFeePerGas ?? 0n,
      ...(header.parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot: header.parentBeaconBlockRoot }),
      transactions: txs,
    });
    if (typeof built === "string") throw new Error(`block ${hash} does not execute: ${built}`);
    if (built.hash !== hash) throw new Error(`block ${hash} re-executes to ${built.hash}`);
    this.core.chain.add(built);
    this.imported++;
    return built;
  }
}
