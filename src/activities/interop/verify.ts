import type { BlockId } from "../../core/types/block-ref.js";
import type { ChainId } from "../../core/types/primitives.js";
import type { StoredLog } from "../../protocol/interop/messages.js";
import {
  checkExecutingMessage,
  messagesInCycles,
  type InitiatingLog,
  type MessageRejection,
  type MessageRuleParams,
  type SameTimestampMessage,
} from "../../protocol/interop/rules.js";
import type { InvalidHead, SealedBlock, VerificationResult } from "../../protocol/interop/types.js";
import type { OutputV0 } from "../ports.js";

/** One chain's block at the round's timestamp, with its logs and output. */
export interface FrontierBlock {
  readonly chainId: ChainId;
  readonly block: SealedBlock;
  readonly logs: readonly StoredLog[];
  readonly output: OutputV0;
  readonly requiredL1: BlockId;
  /** Already verified at an earlier timestamp (block time > 1 s): its messages are not checked again. */
  readonly alreadyVerified: boolean;
  /** The position in the block of the transaction that emitted log `logIndex` (undefined: unknown). */
  readonly txIndexOfLog?: (logIndex: number) => number | undefined;
}

export interface Rejection {
  readonly chainId: string;
  readonly block: BlockId;
  readonly logIndex: number;
  /** The transaction that emitted the log, when known. */
  readonly txIndex: number | undefined;
  readonly reason: MessageRejection;
}

/**
 * Verifies every chain's block at `ts` together (read-only). Each executing message of a new block is checked
 * against the rules; its initiating log is looked up in the frontier when the source block is the frontier block
 * of its chain, else in the source chain's sealed logs (`lookupSealed`). Same-timestamp messages are then checked
 * for cycles. The L1 inclusion is the highest L1 block any chain's block was derived from. Every failing message of
 * a block is found (not only the first), so that the invalid head names all its offending transactions.
 */
export async function verifyTimestamp(
  ts: number,
  frontier: readonly FrontierBlock[],
  params: MessageRuleParams,
  lookupSealed: (chainId: ChainId, blockNumber: number, logIndex: number) => Promise<InitiatingLog | undefined>,
): Promise<{ result: VerificationResult; rejections: Rejection[] }> {
  const byChain = new Map<string, FrontierBlock>();
  for (const f of frontier) byChain.set(f.chainId.toString(10), f);
  const l2Heads: Record<string, BlockId> = {};
  const invalidHeads: Record<string, InvalidHead> = {};
  const rejections: Rejection[] = [];
  let l1Inclusion: BlockId | undefined;
  const nodes: SameTimestampMessage[] = [];
  /** Chain → offending transaction positions (undefined inside: one of them is unknown). */
  const offending = new Map<string, Set<number | undefined>>();
  const reject = (f: FrontierBlock, logIndex: number, reason: MessageRejection) => {
    const id = f.chainId.toString(10);
    const txIndex = f.txIndexOfLog?.(logIndex);
    rejections.push({ chainId: id, block: l2Heads[id] as BlockId, logIndex, txIndex, reason });
    const set = offending.get(id) ?? new Set<number | undefined>();
    set.add(txIndex);
    offending.set(id, set);
  };
  for (const f of frontier) {
    const id = f.chainId.toString(10);
    l2Heads[id] = { hash: f.block.hash, number: f.block.number };
    if (l1Inclusion === undefined || f.requiredL1.number > l1Inclusion.number) l1Inclusion = f.requiredL1;
    if (f.alreadyVerified) continue;
    for (let i = 0; i < f.logs.length; i++) {
      const log = f.logs[i] as StoredLog;
      let reason: MessageRejection | undefined;
      if (log.malformed !== undefined) reason = "malformed";
      else if (log.executing !== undefined) {
        const m = log.executing;
        const src = byChain.get(m.id.chainId.toString(10));
        let found: InitiatingLog | undefined;
        if (src !== undefined && !src.alreadyVerified && src.block.number === m.id.blockNumber) {
          const l = src.logs[m.id.logIndex];
          found = l === undefined ? undefined : { logHash: l.hash, blockTimestamp: src.block.timestamp };
        } else if (params.dependencySet.has(m.id.chainId.toString(10))) {
          found = await lookupSealed(m.id.chainId, m.id.blockNumber, m.id.logIndex);
        }
        reason = checkExecutingMessage(params, f.chainId, f.block.timestamp, m, () => found);
        // Once the block is invalid its later messages take no part in the cycle check (as when the check stopped
        // at the first failure); they are still checked so that every offending transaction is named.
        if (
          reason === undefined &&
          !offending.has(id) &&
          m.id.timestamp === f.block.timestamp &&
          src !== undefined &&
          !src.alreadyVerified &&
          src.block.number === m.id.blockNumber
        )
          nodes.push({
            chainId: id,
            logIndex: i,
            sourceChainId: src.chainId.toString(10),
            sourceLogIndex: m.id.logIndex,
          });
      }
      if (reason !== undefined) reject(f, i, reason);
    }
  }
  for (const n of messagesInCycles(nodes)) reject(byChain.get(n.chainId) as FrontierBlock, n.logIndex, "cycle");
  for (const [id, txs] of offending) {
    const f = byChain.get(id) as FrontierBlock;
    const known = [...txs].every((t) => t !== undefined);
    invalidHeads[id] = {
      hash: f.block.hash,
      number: f.block.number,
      stateRoot: f.output.stateRoot,
      messagePasserStorageRoot: f.output.messagePasserStorageRoot,
      ...(known ? { txIndices: [...(txs as Set<number>)].sort((a, b) => a - b) } : {}),
    };
  }
  return {
    result: { timestamp: ts, ...(l1Inclusion !== undefined ? { l1Inclusion } : {}), l2Heads, invalidHeads },
    rejections,
  };
}
