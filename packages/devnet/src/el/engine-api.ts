import {
  type Address,
  bytesToHex,
  type Hash,
  type Hex,
  hexToBytes,
  isHex,
  quantityToBigint,
  quantityToNumber,
  toQuantity,
  ZERO_HASH,
} from "supernode/core";
import { type BlockHeader, type ExecutionPayload, executionPayloadHeader, headerHash } from "supernode/protocol";
import { type BuildAttributes, BuildError, buildBlock, executePayload, forkActive } from "./block-builder.js";
import type { ElCore } from "./el-core.js";
import { payloadIdOf, payloadIdVersion } from "./payload-ids.js";
import { RPC_INVALID_PARAMS, RpcError } from "supernode/json-rpc";
import type { RpcHandler } from "./json-rpc.js";
import { ancestorHashes } from "./evm/block-env.js";
import type { SimBlock, SimTx } from "./types.js";

export const UNKNOWN_PAYLOAD = -38001;
export const INVALID_FORKCHOICE_STATE = -38002;
export const INVALID_PAYLOAD_ATTRIBUTES = -38003;
export const UNSUPPORTED_FORK = -38005;

type Status = "VALID" | "INVALID" | "SYNCING" | "ACCEPTED" | "INVALID_BLOCK_HASH";
interface PayloadStatus {
  status: Status;
  latestValidHash: Hash | null;
  validationError: string | null;
}

const status = (s: Status, latestValidHash: Hash | null, validationError: string | null = null): PayloadStatus => ({
  status: s,
  latestValidHash,
  validationError,
});

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new RpcError(RPC_INVALID_PARAMS, `${what}: not an object`);
  return v as Record<string, unknown>;
}

function hexOf(o: Record<string, unknown>, k: string, size?: number): Hex {
  const v = o[k];
  if (!isHex(v) || v.length % 2 !== 0 || (size !== undefined && v.length !== 2 + 2 * size))
    throw new RpcError(RPC_INVALID_PARAMS, `invalid ${k}`);
  return v.toLowerCase() as Hex;
}

function qty(o: Record<string, unknown>, k: string): bigint {
  try {
    return quantityToBigint(o[k]);
  } catch {
    throw new RpcError(RPC_INVALID_PARAMS, `invalid ${k}`);
  }
}

function num(o: Record<string, unknown>, k: string): number {
  try {
    return quantityToNumber(o[k]);
  } catch {
    throw new RpcError(RPC_INVALID_PARAMS, `invalid ${k}`);
  }
}

/** payloadJson results by block (blocks are immutable; getPayload and newPayload's fast path both need it). */
const payloadJsonCache = new WeakMap<SimBlock, Readonly<Record<string, unknown>>>();

/**
 * The ExecutionPayload JSON of a block (V1 fields, V2 withdrawals, V3 blob gas, OP-Isthmus withdrawalsRoot).
 * Computed once per block; callers must not mutate the result.
 */
export function payloadJson(b: SimBlock): Readonly<Record<string, unknown>> {
  const hit = payloadJsonCache.get(b);
  if (hit !== undefined) return hit;
  const out = computePayloadJson(b);
  payloadJsonCache.set(b, out);
  return out;
}

function computePayloadJson(b: SimBlock): Record<string, unknown> {
  const h = b.header;
  const out: Record<string, unknown> = {
    parentHash: h.parentHash,
    feeRecipient: h.miner,
    stateRoot: h.stateRoot,
    receiptsRoot: h.receiptsRoot,
    logsBloom: h.logsBloom,
    prevRandao: h.mixHash,
    blockNumber: toQuantity(h.number),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    timestamp: toQuantity(h.timestamp),
    extraData: h.extraData,
    baseFeePerGas: toQuantity(h.baseFeePerGas ?? 0n),
    blockHash: b.hash,
    transactions: b.txs.map((tx) => bytesToHex(tx.raw)),
  };
  if (b.withdrawals !== undefined) out.withdrawals = [];
  if (h.blobGasUsed !== undefined) {
    out.blobGasUsed = toQuantity(h.blobGasUsed);
    out.excessBlobGas = toQuantity(h.excessBlobGas ?? 0n);
  }
  if (h.requestsHash !== undefined && h.withdrawalsRoot !== undefined) out.withdrawalsRoot = h.withdrawalsRoot;
  return out;
}

function blockValue(b: SimBlock): bigint {
  let v = 0n;
  const base = b.header.baseFeePerGas ?? 0n;
  b.receipts.forEach((r, i) => {
    if (b.txs[i]?.deposit === undefined && r.effectiveGasPrice > base) v += r.gasUsed * (r.effectiveGasPrice - base);
  });
  return v;
}

/** Whether a payload's fields are exactly those of a block the client holds (so its hash is right too). */
function sameAsBlock(pl: Record<string, unknown>, txs: readonly Hex[], pbr: Hash | undefined, b: SimBlock): boolean {
  const want = payloadJson(b);
  for (const k of Object.keys(want)) {
    if (k === "transactions" || k === "withdrawals") continue;
    const v = pl[k];
    if (typeof v !== "string" || v.toLowerCase() !== want[k]) return false;
  }
  if ((pl.withdrawals === undefined || pl.withdrawals === null) !== (b.withdrawals === undefined)) return false;
  if (
    (pbr ?? ZERO_HASH) !== (b.header.parentBeaconBlockRoot ?? ZERO_HASH) &&
    b.header.parentBeaconBlockRoot !== undefined
  )
    return false;
  const wantTxs = want.transactions as Hex[];
  return txs.length === wantTxs.length && txs.every((t, i) => t.toLowerCase() === wantTxs[i]);
}

/** The Engine API methods of one simulated client (served behind the JWT on the auth port). */
export function engineMethods(core: ElCore): Map<string, RpcHandler> {
  const p = core.params;
  const m = new Map<string, RpcHandler>();

  const parseAttrs = async (a: Record<string, unknown>, version: number): Promise<BuildAttributes> => {
    const timestamp = num(a, "timestamp");
    const hasW = a.withdrawals !== undefined && a.withdrawals !== null;
    const hasPbr = a.parentBeaconBlockRoot !== undefined && a.parentBeaconBlockRoot !== null;
    if (version === 1 && hasW) throw new RpcError(RPC_INVALID_PARAMS, "withdrawals not supported in V1");
    if (version < 3 && hasPbr) throw new RpcError(RPC_INVALID_PARAMS, "parentBeaconBlockRoot not supported before V3");
    if (version === 3 && !hasPbr) throw new RpcError(RPC_INVALID_PARAMS, "missing parentBeaconBlockRoot");
    if (forkActive(p, "ecotone", timestamp) ? version < 3 : version >= 3)
      throw new RpcError(UNSUPPORTED_FORK, "Unsupported fork");
    const txsJson = a.transactions ?? [];
    if (!Array.isArray(txsJson)) throw new RpcError(RPC_INVALID_PARAMS, "transactions must be an array");
    const transactions: SimTx[] = [];
    for (const t of txsJson) {
      if (!isHex(t)) throw new RpcError(RPC_INVALID_PARAMS, "transaction is not hex");
      try {
        transactions.push(await core.decodeTx(t));
      } catch (e) {
        throw new RpcError(
          INVALID_PAYLOAD_ATTRIBUTES,
          `Invalid payload attributes: bad transaction: ${(e as Error).message}`,
        );
      }
    }
    let minBaseFee: bigint | undefined;
    if (a.minBaseFee !== undefined && a.minBaseFee !== null) {
      if (typeof a.minBaseFee === "number" && Number.isSafeInteger(a.minBaseFee) && a.minBaseFee >= 0)
        minBaseFee = BigInt(a.minBaseFee);
      else minBaseFee = qty(a, "minBaseFee");
    }
    return {
      timestamp,
      prevRandao: hexOf(a, "prevRandao", 32),
      suggestedFeeRecipient: hexOf(a, "suggestedFeeRecipient", 20) as Address,
      ...(hasW ? { withdrawals: a.withdrawals as unknown[] } : {}),
      ...(hasPbr ? { parentBeaconBlockRoot: hexOf(a, "parentBeaconBlockRoot", 32) } : {}),
      transactions,
      noTxPool: a.noTxPool === true,
      ...(a.gasLimit !== undefined && a.gasLimit !== null ? { gasLimit: qty(a, "gasLimit") } : {}),
      ...(a.eip1559Params !== undefined && a.eip1559Params !== null
        ? { eip1559Params: hexOf(a, "eip1559Params", 8) }
        : {}),
      ...(minBaseFee === undefined ? {} : { minBaseFee }),
    };
  };

  const forkchoiceUpdated = (version: number) => async (params: readonly unknown[]) => {
    const fcs = obj(params[0], "forkchoiceState");
    const headHash = hexOf(fcs, "headBlockHash", 32);
    const safeHash = hexOf(fcs, "safeBlockHash", 32);
    const finalizedHash = hexOf(fcs, "finalizedBlockHash", 32);
    const attrsJson = params[1] === undefined || params[1] === null ? undefined : obj(params[1], "payloadAttributes");
    const bad = core.invalid.get(headHash);
    if (bad !== undefined)
      return { payloadStatus: status("INVALID", bad, "links to an invalid block"), payloadId: null };
    const head = core.chain.byHash(headHash);
    if (head === undefined) {
      core.syncSource?.request(headHash);
      return { payloadStatus: status("SYNCING", null), payloadId: null };
    }
    const safe = safeHash === ZERO_HASH ? undefined : core.chain.byHash(safeHash);
    const fin = finalizedHash === ZERO_HASH ? undefined : core.chain.byHash(finalizedHash);
    if ((safeHash !== ZERO_HASH && safe === undefined) || (finalizedHash !== ZERO_HASH && fin === undefined))
      throw new RpcError(INVALID_FORKCHOICE_STATE, "Invalid forkchoice state");
    if ((safe && !core.chain.isAncestor(safe, head)) || (fin && !core.chain.isAncestor(fin, safe ?? head)))
      throw new RpcError(INVALID_FORKCHOICE_STATE, "Invalid forkchoice state");
    // op-geth keeps its head on an update to a canonical ancestor (the head moves when a sibling is chosen).
    const keep = core.ancestorForkchoice === "keep-head" && core.chain.isCanonical(head) && head !== core.chain.head;
    const change = keep ? { added: [], removed: [] } : core.chain.setHead(head);
    if (keep) {
      core.keptHeads++;
      core.log.debug({ number: head.header.number, hash: head.hash }, "forkchoice to a canonical ancestor: head kept");
    }
    if (change.added.length + change.removed.length > 0)
      core.log.debug({ number: head.header.number, hash: head.hash, reorged: change.removed.length }, "new head");
    if (safe !== undefined) core.chain.setSafe(safe);
    if (fin !== undefined) core.chain.setFinalized(fin);
    let payloadId: Hex | null = null;
    if (attrsJson !== undefined) {
      const attrs = await parseAttrs(attrsJson, version);
      payloadId = payloadIdOf(head.hash, attrs, version) ?? null;
      if (payloadId === null) throw new RpcError(INVALID_PAYLOAD_ATTRIBUTES, "Invalid payload attributes");
      if (!core.payloads.has(payloadId)) {
        let block: SimBlock;
        try {
          const pool = attrs.noTxPool ? [] : core.pool.pending(head.state);
          block = await buildBlock(
            p,
            head,
            attrs,
            pool,
            ancestorHashes((h) => core.chain.byHash(h), head),
          );
        } catch (e) {
          if (e instanceof BuildError)
            throw new RpcError(INVALID_PAYLOAD_ATTRIBUTES, `Invalid payload attributes: ${e.message}`);
          throw e;
        }
        if (core.payloads.size > 256) core.payloads.delete(core.payloads.keys().next().value as string);
        core.payloads.set(payloadId, block);
        core.rememberTxs(block);
      }
    }
    return { payloadStatus: status("VALID", head.hash), payloadId };
  };

  const getPayload = (version: number) => (params: readonly unknown[]) => {
    const id = params[0];
    // op-geth: getPayloadV1 takes ids of version 1, V2 of 1 or 2, V3, V4 and V5 of 3 (the id's first byte).
    const idVersion = payloadIdVersion(id);
    if (idVersion === undefined || (version <= 2 ? idVersion > version : idVersion !== 3))
      throw new RpcError(UNSUPPORTED_FORK, "Unsupported fork");
    const block = typeof id === "string" ? core.payloads.get(id.toLowerCase()) : undefined;
    if (block === undefined) throw new RpcError(UNKNOWN_PAYLOAD, "Unknown payload");
    const t = block.header.timestamp;
    const want = forkActive(p, "karst", t) ? 5 : forkActive(p, "isthmus", t) ? 4 : forkActive(p, "ecotone", t) ? 3 : 2;
    if (version !== want && !(version === 1 && want === 2 && block.withdrawals === undefined))
      throw new RpcError(UNSUPPORTED_FORK, "Unsupported fork");
    core.chain.add(block);
    const executionPayload = payloadJson(block);
    if (version === 1) return executionPayload;
    const out: Record<string, unknown> = { executionPayload, blockValue: toQuantity(blockValue(block)) };
    if (version >= 3) {
      out.blobsBundle = { commitments: [], proofs: [], blobs: [] };
      out.shouldOverrideBuilder = false;
      out.parentBeaconBlockRoot = block.header.parentBeaconBlockRoot ?? ZERO_HASH;
    }
    if (version >= 4) out.executionRequests = [];
    return out;
  };

  const newPayload = (version: number) => async (params: readonly unknown[]) => {
    const pl = obj(params[0], "executionPayload");
    const blockHash = hexOf(pl, "blockHash", 32);
    const parentHash = hexOf(pl, "parentHash", 32);
    const timestamp = num(pl, "timestamp");
    const hasW = pl.withdrawals !== undefined && pl.withdrawals !== null;
    if (version === 1 && hasW) throw new RpcError(RPC_INVALID_PARAMS, "withdrawals not supported in V1");
    if (version >= 2 && forkActive(p, "canyon", timestamp) !== hasW)
      throw new RpcError(RPC_INVALID_PARAMS, hasW ? "withdrawals before Canyon" : "missing withdrawals");
    let parentBeaconBlockRoot: Hash | undefined;
    if (version >= 3) {
      if (!Array.isArray(params[1]) || params[1].length !== 0)
        throw new RpcError(RPC_INVALID_PARAMS, "versionedHashes must be an empty array");
      if (!isHex(params[2]) || params[2].length !== 66)
        throw new RpcError(RPC_INVALID_PARAMS, "invalid parentBeaconBlockRoot");
      parentBeaconBlockRoot = params[2].toLowerCase() as Hash;
    }
    if (version >= 4 && (!Array.isArray(params[3]) || params[3].length !== 0))
      throw new RpcError(RPC_INVALID_PARAMS, "executionRequests must be empty");
    const want = forkActive(p, "isthmus", timestamp) ? 4 : forkActive(p, "ecotone", timestamp) ? 3 : 2;
    if (version !== want && !(version === 1 && want === 2 && !hasW))
      throw new RpcError(UNSUPPORTED_FORK, "Unsupported fork");
    const txsJson = pl.transactions;
    if (!Array.isArray(txsJson) || !txsJson.every(isHex))
      throw new RpcError(RPC_INVALID_PARAMS, "invalid transactions");

    // 0. Fast path: a block this client already holds (e.g. the one it just built), field for field.
    const known = core.chain.byHash(blockHash);
    if (known !== undefined && sameAsBlock(pl, txsJson as Hex[], parentBeaconBlockRoot, known))
      return status("VALID", blockHash);
    // 1. The block hash must match the payload's own fields.
    const isthmus = forkActive(p, "isthmus", timestamp);
    const ecotone = forkActive(p, "ecotone", timestamp);
    let header: BlockHeader;
    try {
      const payload: ExecutionPayload = {
        parentHash,
        feeRecipient: hexOf(pl, "feeRecipient", 20) as Address,
        stateRoot: hexOf(pl, "stateRoot", 32),
        receiptsRoot: hexOf(pl, "receiptsRoot", 32),
        logsBloom: hexOf(pl, "logsBloom", 256),
        prevRandao: hexOf(pl, "prevRandao", 32),
        blockNumber: num(pl, "blockNumber"),
        gasLimit: qty(pl, "gasLimit"),
        gasUsed: qty(pl, "gasUsed"),
        timestamp,
        extraData: hexOf(pl, "extraData"),
        baseFeePerGas: qty(pl, "baseFeePerGas"),
        blockHash,
        transactions: txsJson as Hex[],
        ...(hasW ? { withdrawals: [] } : {}),
        ...(ecotone ? { blobGasUsed: qty(pl, "blobGasUsed"), excessBlobGas: qty(pl, "excessBlobGas") } : {}),
        ...(isthmus ? { withdrawalsRoot: hexOf(pl, "withdrawalsRoot", 32) } : {}),
      };
      if (hasW && (pl.withdrawals as unknown[]).length > 0)
        throw new RpcError(RPC_INVALID_PARAMS, "withdrawals must be empty");
      header = executionPayloadHeader(payload, ecotone ? (parentBeaconBlockRoot ?? ZERO_HASH) : undefined);
    } catch (e) {
      if (e instanceof RpcError) throw e;
      throw new RpcError(RPC_INVALID_PARAMS, (e as Error).message);
    }
    if (headerHash(header) !== blockHash) {
      const msg = `blockhash mismatch, want ${headerHash(header)}, got ${blockHash}`;
      return version === 1 ? status("INVALID_BLOCK_HASH", null, msg) : status("INVALID", null, msg);
    }
    // 2. Known blocks are VALID; unknown parents mean we are syncing; invalid ancestry stays invalid.
    if (core.chain.byHash(blockHash) !== undefined) return status("VALID", blockHash);
    const badAncestor = core.invalid.get(parentHash);
    if (badAncestor !== undefined) {
      core.invalid.set(blockHash, badAncestor);
      return status("INVALID", badAncestor, "links to previously rejected block");
    }
    const parent = core.chain.byHash(parentHash);
    if (parent === undefined) {
      core.syncSource?.request(parentHash);
      return status("SYNCING", null);
    }
    const reject = (why: string): PayloadStatus => {
      core.invalid.set(blockHash, parent.hash);
      core.log.debug({ hash: blockHash, why }, "rejected payload");
      return status("INVALID", parent.hash, why);
    };
    if (header.number !== parent.header.number + 1) return reject("invalid block number");
    // 3. Re-execute on the parent and compare what the client derives.
    const txs: SimTx[] = [];
    for (const t of txsJson as Hex[]) {
      try {
        txs.push(await core.decodeTx(t));
      } catch (e) {
        return reject(`invalid transaction: ${(e as Error).message}`);
      }
    }
    if (forkActive(p, "holocene", timestamp)) {
      const x = hexToBytes(header.extraData);
      const jovian = forkActive(p, "jovian", timestamp);
      if (x.length !== (jovian ? 17 : 9) || x[0] !== (jovian ? 1 : 0)) return reject("invalid extraData");
    }
    if (header.excessBlobGas !== undefined && header.excessBlobGas !== 0n) return reject("excessBlobGas must be 0");
    const built = await executePayload(
      p,
      parent,
      {
        timestamp,
        prevRandao: header.mixHash,
        feeRecipient: header.miner,
        gasLimit: header.gasLimit,
        extraData: header.extraData,
        baseFeePerGas: header.baseFeePerGas!,
        ...(parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot }),
        transactions: txs,
      },
      ancestorHashes((h) => core.chain.byHash(h), parent),
    );
    if (typeof built === "string") return reject(built);
    if (built.hash !== blockHash) {
      const bh = built.header;
      const fields = ["stateRoot", "receiptsRoot", "logsBloom", "gasUsed", "blobGasUsed", "withdrawalsRoot"] as const;
      const diff = fields.find((f) => bh[f] !== header[f]) ?? "header";
      return reject(
        `invalid ${diff}: have ${String(header[diff as keyof BlockHeader])}, want ${String(bh[diff as keyof BlockHeader])}`,
      );
    }
    core.chain.add(built);
    return status("VALID", blockHash);
  };

  m.set("engine_exchangeCapabilities", () => [...m.keys()].filter((k) => k !== "engine_exchangeCapabilities"));
  for (const v of [1, 2, 3]) m.set(`engine_forkchoiceUpdatedV${v}`, forkchoiceUpdated(v));
  for (const v of [1, 2, 3, 4, 5]) m.set(`engine_getPayloadV${v}`, getPayload(v));
  for (const v of [1, 2, 3, 4]) m.set(`engine_newPayloadV${v}`, newPayload(v));
  m.set("engine_getClientVersionV1", () => [
    {
      code: core.variant === "a" ? "RH" : "GE",
      name: `sim-variant-${core.variant}`,
      version: "v0.1.0",
      commit: "0x00000000",
    },
  ]);
  // Engine calls change the chain: run them one at a time, in arrival order.
  let tail: Promise<unknown> = Promise.resolve();
  for (const [name, h] of m) {
    m.set(name, (ps) => {
      const r = tail.then(() => h(ps));
      tail = r.catch(() => {});
      return r;
    });
  }
  return m;
}
