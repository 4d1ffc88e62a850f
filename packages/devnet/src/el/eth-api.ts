import { type Address, type Hash, type Hex, hexToBytes, isHex, quantityToBigint, toQuantity } from "supernode/core";
import { DEPOSIT_TX_TYPE } from "supernode/protocol";
import { forkActive } from "./block-builder.js";
import type { ElCore } from "./el-core.js";
import { INITIAL_BASE_FEE } from "./fees.js";
import { blockJson, blockLogs, receiptJson, txJson } from "./format.js";
import { RPC_INVALID_PARAMS, RpcError } from "supernode/json-rpc";
import type { RpcHandler } from "./json-rpc.js";
import { evmEthMethods } from "./evm/call-api.js";
import { poolRejection } from "./pool-rules.js";
import { decodeSigned } from "./tx-decode.js";
import type { SimBlock } from "./types.js";

/** Suggested priority fee (0.001 gwei), as OP chains' clients typically suggest. */
export const SUGGESTED_TIP = 1_000_000n;

const q = toQuantity;

function address(v: unknown): Address {
  if (!isHex(v) || v.length !== 42) throw new RpcError(RPC_INVALID_PARAMS, "invalid address");
  return v.toLowerCase() as Address;
}

function obj(v: unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new RpcError(RPC_INVALID_PARAMS, "expected an object");
  return v as Record<string, unknown>;
}

/** Matches a log filter's `address` / `topics` against a log JSON. */
export function logMatches(
  filter: Record<string, unknown>,
  log: { address: Address; topics: readonly Hash[] },
): boolean {
  const a = filter.address;
  if (typeof a === "string" && a.toLowerCase() !== log.address) return false;
  if (Array.isArray(a) && a.length > 0 && !a.some((x) => String(x).toLowerCase() === log.address)) return false;
  const topics = Array.isArray(filter.topics) ? filter.topics : [];
  for (let i = 0; i < topics.length; i++) {
    const want = topics[i];
    if (want === null || want === undefined) continue;
    const have = log.topics[i];
    if (have === undefined) return false;
    const options = Array.isArray(want) ? want : [want];
    if (options.length > 0 && !options.some((t) => String(t).toLowerCase() === have)) return false;
  }
  return true;
}

/** The `eth` namespace of the execution-client interface (served on the HTTP and auth ports). */
export function ethMethods(core: ElCore): Map<string, RpcHandler> {
  const m = new Map<string, RpcHandler>();
  const chain = core.chain;
  const p = core.params;
  const block = (sel: unknown): SimBlock => {
    const b = core.resolve(sel);
    if (b === undefined) throw new RpcError(-32000, "header not found");
    return b;
  };
  const receiptForks = (b: SimBlock) => ({
    jovian: forkActive(p, "jovian", b.header.timestamp),
    isthmus: forkActive(p, "isthmus", b.header.timestamp),
  });

  m.set("eth_chainId", () => q(p.chainId));
  m.set("eth_blockNumber", () => q(chain.head.header.number));
  m.set("eth_syncing", () => {
    if (core.variant === "b") return false;
    const head = q(chain.head.header.number);
    const stages = ["Headers", "Bodies", "SenderRecovery", "Execution", "MerkleExecute", "Finish"];
    return {
      startingBlock: "0x0",
      currentBlock: head,
      highestBlock: head,
      stages: stages.map((name) => ({ name, block: head })),
    };
  });
  m.set("eth_accounts", () => []);
  m.set("eth_getBalance", (ps) => q(block(ps[1]).state.account(address(ps[0])).balance));
  m.set("eth_getTransactionCount", (ps) => {
    const addr = address(ps[0]);
    if (ps[1] === "pending") {
      let n = chain.head.state.account(addr).nonce;
      for (const tx of core.pool.pending(chain.head.state)) if (tx.from === addr && tx.nonce === n) n++;
      return q(n);
    }
    return q(block(ps[1]).state.account(addr).nonce);
  });
  m.set("eth_getStorageAt", (ps) => {
    const slot = ps[1];
    if (!isHex(slot)) throw new RpcError(RPC_INVALID_PARAMS, "invalid storage slot");
    const key = `0x${slot.slice(2).padStart(64, "0")}` as Hash;
    return `0x${block(ps[2]).state.storageAt(address(ps[0]), key).toString(16).padStart(64, "0")}`;
  });
  // Blocks are immutable: their JSON is computed once (derivation reads each block again while consolidating).
  const blockJsonCache = new WeakMap<SimBlock, { full?: unknown; hashes?: unknown }>();
  const cachedBlockJson = (b: SimBlock, full: boolean): unknown => {
    let e = blockJsonCache.get(b);
    if (e === undefined) {
      e = {};
      blockJsonCache.set(b, e);
    }
    if (full) {
      e.full ??= blockJson(core.variant, b, true);
      return e.full;
    }
    e.hashes ??= blockJson(core.variant, b, false);
    return e.hashes;
  };
  m.set("eth_getBlockByNumber", (ps) => {
    const b = core.resolve(ps[0]);
    return b === undefined ? null : cachedBlockJson(b, ps[1] === true);
  });
  m.set("eth_getBlockByHash", (ps) => {
    const b = typeof ps[0] === "string" ? chain.byHash(ps[0] as Hash) : undefined;
    return b === undefined ? null : cachedBlockJson(b, ps[1] === true);
  });
  const txCount = (b: SimBlock | undefined) => (b === undefined ? null : q(b.txs.length));
  m.set("eth_getBlockTransactionCountByNumber", (ps) => txCount(core.resolve(ps[0])));
  m.set("eth_getBlockTransactionCountByHash", (ps) => txCount(chain.byHash(String(ps[0]) as Hash)));
  m.set("eth_getUncleCountByBlockNumber", () => "0x0");
  m.set("eth_getTransactionByHash", (ps) => {
    const hash = String(ps[0]).toLowerCase() as Hash;
    const loc = chain.tx(hash);
    if (loc !== undefined) return txJson(core.variant, loc.block.txs[loc.index]!, loc);
    const pooled = core.pool.get(hash);
    return pooled === undefined ? null : txJson(core.variant, pooled);
  });
  m.set("eth_getTransactionByBlockNumberAndIndex", (ps) => {
    const b = core.resolve(ps[0]);
    const i = Number(quantityToBigint(ps[1]));
    const tx = b?.txs[i];
    return b === undefined || tx === undefined ? null : txJson(core.variant, tx, { block: b, index: i });
  });
  m.set("eth_getTransactionReceipt", (ps) => {
    const loc = chain.tx(String(ps[0]) as Hash);
    return loc === undefined ? null : receiptJson(core.variant, loc.block, loc.index, receiptForks(loc.block));
  });
  m.set("eth_getBlockReceipts", (ps) => {
    const b = core.resolve(ps[0]);
    return b === undefined ? null : b.txs.map((_, i) => receiptJson(core.variant, b, i, receiptForks(b)));
  });
  m.set("eth_gasPrice", () => q((chain.head.header.baseFeePerGas ?? INITIAL_BASE_FEE) + SUGGESTED_TIP));
  m.set("eth_maxPriorityFeePerGas", () => q(SUGGESTED_TIP));
  m.set("eth_blobBaseFee", () => "0x1");
  m.set("eth_sendRawTransaction", async (ps) => {
    const raw = ps[0];
    let tx: Awaited<ReturnType<typeof decodeSigned>>;
    try {
      if (!isHex(raw)) throw new Error("not hex");
      const bytes = hexToBytes(raw);
      if (bytes[0] === DEPOSIT_TX_TYPE) throw new Error("deposit");
      tx = await decodeSigned(bytes);
    } catch {
      throw new RpcError(RPC_INVALID_PARAMS, "failed to decode signed transaction");
    }
    if (tx.chainId !== undefined && tx.chainId !== p.chainId) throw new RpcError(-32000, "invalid chain id");
    // A sequencer's pool judges forwarded transactions; this client's own pool refuses as a real one does.
    const refused =
      core.sequencerHttp === undefined ? poolRejection(core.variant, p, tx, chain.head, chain.head.state) : undefined;
    if (refused !== undefined) throw refused;
    if (core.sequencerHttp !== undefined) await forward(core.sequencerHttp, raw as Hex);
    try {
      core.pool.add(tx, chain.head.state);
    } catch (e) {
      if (core.sequencerHttp === undefined) throw new RpcError(-32000, (e as Error).message);
    }
    return tx.hash;
  });
  m.set("eth_getLogs", (ps) => {
    const f = obj(ps[0] ?? {});
    let blocks: SimBlock[];
    if (typeof f.blockHash === "string") {
      const b = chain.byHash(f.blockHash as Hash);
      if (b === undefined) throw new RpcError(-32000, "unknown block");
      blocks = [b];
    } else {
      const from = block(f.fromBlock ?? "latest").header.number;
      const to = block(f.toBlock ?? "latest").header.number;
      if (to - from > 10_000) throw new RpcError(-32005, "query exceeds max block range 10000");
      blocks = [];
      for (let n = from; n <= to; n++) blocks.push(chain.byNumber(n)!);
    }
    const out: unknown[] = [];
    for (const b of blocks) {
      if (b.receipts.every((r) => r.logs.length === 0)) continue;
      for (const l of blockLogs(b)) if (logMatches(f, l as never)) out.push(l);
    }
    return out;
  });
  m.set("eth_feeHistory", (ps) => {
    const count = Math.min(1024, Number(typeof ps[0] === "number" ? ps[0] : quantityToBigint(ps[0])));
    const newest = block(ps[1]);
    const percentiles = Array.isArray(ps[2]) ? (ps[2] as number[]) : [];
    const oldest = Math.max(0, newest.header.number - count + 1);
    const baseFees: Hex[] = [];
    const ratios: number[] = [];
    const reward: Hex[][] = [];
    for (let n = oldest; n <= newest.header.number; n++) {
      const b = chain.byNumber(n)!;
      const bf = b.header.baseFeePerGas ?? 0n;
      baseFees.push(q(bf));
      ratios.push(Number(b.header.gasUsed) / Number(b.header.gasLimit));
      const tips = b.receipts
        .map((r, i) => (b.txs[i]!.deposit ? undefined : r.effectiveGasPrice - bf))
        .filter((t): t is bigint => t !== undefined)
        .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      reward.push(
        percentiles.map((pc) =>
          q(tips.length === 0 ? 0n : tips[Math.min(tips.length - 1, Math.floor((pc / 100) * tips.length))]!),
        ),
      );
    }
    const next = chain.byNumber(newest.header.number + 1);
    baseFees.push(q(next?.header.baseFeePerGas ?? newest.header.baseFeePerGas ?? 0n));
    const blobFees = baseFees.map(() => "0x1");
    return {
      oldestBlock: q(oldest),
      baseFeePerGas: baseFees,
      gasUsedRatio: ratios,
      baseFeePerBlobGas: blobFees,
      blobGasUsedRatio: ratios.map(() => 0),
      ...(percentiles.length > 0 ? { reward } : {}),
    };
  });
  m.set("eth_getProof", (ps) => {
    const addr = address(ps[0]);
    const keys = Array.isArray(ps[1]) ? (ps[1] as unknown[]) : [];
    const slots = keys.map((k) => {
      if (!isHex(k) || k.length > 66) throw new RpcError(RPC_INVALID_PARAMS, "invalid storage key");
      return `0x${k.slice(2).padStart(64, "0")}`.toLowerCase() as Hash;
    });
    const state = block(ps[2]).state;
    const acc = state.account(addr);
    const proof = state.proof(addr, slots);
    return {
      address: addr,
      accountProof: proof.accountProof,
      balance: q(acc.balance),
      codeHash: state.codeHash(addr),
      nonce: q(acc.nonce),
      storageHash: state.storageRoot(addr),
      storageProof: slots.map((slot, i) => ({
        key: keys[i],
        value: q(state.storageAt(addr, slot)),
        proof: proof.storageProofs[i],
      })),
    };
  });
  for (const [name, handler] of evmEthMethods(core)) m.set(name, handler);
  return m;
}

async function forward(url: string, raw: Hex): Promise<void> {
  let body: { error?: { code: number; message: string } };
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] }),
      signal: AbortSignal.timeout(10_000),
    });
    body = (await res.json()) as typeof body;
  } catch (e) {
    throw new RpcError(-32000, `failed to forward tx to sequencer: ${(e as Error).message}`);
  }
  if (body.error !== undefined) throw new RpcError(body.error.code, body.error.message);
}
