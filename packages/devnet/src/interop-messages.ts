/**
 * What the interop devnet's traffic sends (pure): the initiating log a message starts with (a call to the devnet's
 * log emitter) and the CrossL2Inbox call that executes it on another chain, valid or deliberately invalid.
 */
import { encodeFunctionData } from "viem";
import { type Address, concatBytes, type Hash, type Hex, hexToBytes } from "supernode/core";
import { keccakHex } from "supernode/protocol";
import { CROSS_L2_INBOX_ABI, LOG_EMITTER_ABI, LOG_EMITTER_ADDRESS } from "./el/interop-predeploys.js";

/** The kinds of invalid executing message the traffic rotates through, in this order. */
export const INVALID_KINDS = ["wrong-payload-hash", "unknown-origin-chain", "expired", "too-early"] as const;
export type InvalidKind = (typeof INVALID_KINDS)[number];

/** topic0 of every initiating log the traffic emits: keccak256("SupernodeDevnetMessage(uint256,uint256,uint256)"). */
export const DEVNET_MESSAGE_TOPIC: Hash = keccakHex(
  new TextEncoder().encode("SupernodeDevnetMessage(uint256,uint256,uint256)"),
);

function word(v: bigint): Hash {
  return `0x${v.toString(16).padStart(64, "0")}`;
}

/** The initiating log of message `seq` from `source` to `destination`: its topics, data and payload hash. */
export interface InitiatingPayload {
  readonly topics: readonly Hash[];
  readonly data: Hex;
  /** keccak256(topics ‖ data): what the executing message names. */
  readonly payloadHash: Hash;
}

export function initiatingPayload(seq: number, source: bigint, destination: bigint): InitiatingPayload {
  const topics: Hash[] = [DEVNET_MESSAGE_TOPIC, word(source), word(destination)];
  const data = word(BigInt(seq));
  return { topics, data, payloadHash: keccakHex(concatBytes(...topics.map(hexToBytes), hexToBytes(data))) };
}

/** Calldata of the log emitter call that emits `p`. */
export function emitLogCalldata(p: InitiatingPayload): Hex {
  return encodeFunctionData({ abi: LOG_EMITTER_ABI, functionName: "emitLog", args: [p.topics, p.data] });
}

/** Where an initiating log landed (from its receipt and block). */
export interface InitiatedMessage {
  readonly chainId: bigint;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly timestamp: number;
  readonly payloadHash: Hash;
}

/** The arguments of `CrossL2Inbox.validateMessage(id, msgHash)`. */
export interface ExecutingCall {
  readonly id: {
    readonly origin: Address;
    readonly blockNumber: bigint;
    readonly logIndex: bigint;
    readonly timestamp: bigint;
    readonly chainId: bigint;
  };
  readonly msgHash: Hash;
}

export function validateMessageCalldata(c: ExecutingCall): Hex {
  return encodeFunctionData({
    abi: CROSS_L2_INBOX_ABI,
    functionName: "validateMessage",
    args: [{ ...c.id }, c.msgHash],
  });
}

/** The valid executing message of an initiated one. */
export function validExecuting(m: InitiatedMessage): ExecutingCall {
  return {
    id: {
      origin: LOG_EMITTER_ADDRESS,
      blockNumber: BigInt(m.blockNumber),
      logIndex: BigInt(m.logIndex),
      timestamp: BigInt(m.timestamp),
      chainId: m.chainId,
    },
    msgHash: m.payloadHash,
  };
}

export interface InvalidContext {
  /** Initiated messages still canonical, oldest first (the newest is the one a wrong hash names). */
  readonly history: readonly InitiatedMessage[];
  /** The destination chain's latest block timestamp (the executing block is later). */
  readonly headTimestamp: number;
  readonly expiryWindow: number;
  /** Interop activation timestamp of the source chain. */
  readonly activation: number;
  /** The source chain: its genesis block and block time (the "too early" message names its activation block). */
  readonly source: {
    readonly chainId: bigint;
    readonly genesisNumber: number;
    readonly genesisTimestamp: number;
    readonly blockTime: number;
  };
  /** A chain ID outside the dependency set. */
  readonly unknownChainId: bigint;
}

/**
 * An executing message that breaks exactly one rule, or undefined when the context cannot produce that kind yet
 * (no initiated message to name, or none older than the expiry window):
 * - wrong-payload-hash: names the newest initiated log with another payload hash;
 * - unknown-origin-chain: names it with a chain ID outside the dependency set;
 * - expired: names the oldest initiated log already past the expiry window at the destination's head (the executing
 *   block comes later, so it is only more expired);
 * - too-early: names log 0 of the source chain's block at the activation timestamp (before activation + block
 *   time, where interop messages may start).
 */
export function invalidExecuting(kind: InvalidKind, ctx: InvalidContext): ExecutingCall | undefined {
  const newest = ctx.history.at(-1);
  switch (kind) {
    case "wrong-payload-hash": {
      if (newest === undefined) return undefined;
      const v = validExecuting(newest);
      return { ...v, msgHash: keccakHex(hexToBytes(newest.payloadHash)) };
    }
    case "unknown-origin-chain": {
      if (newest === undefined) return undefined;
      const v = validExecuting(newest);
      return { ...v, id: { ...v.id, chainId: ctx.unknownChainId } };
    }
    case "expired": {
      const old = ctx.history.find((m) => m.timestamp + ctx.expiryWindow < ctx.headTimestamp);
      return old === undefined ? undefined : validExecuting(old);
    }
    case "too-early": {
      const s = ctx.source;
      const ts = Math.max(ctx.activation, s.genesisTimestamp);
      const n = s.genesisNumber + Math.floor((ts - s.genesisTimestamp) / s.blockTime);
      return {
        id: {
          origin: LOG_EMITTER_ADDRESS,
          blockNumber: BigInt(n),
          logIndex: 0n,
          timestamp: BigInt(ts),
          chainId: s.chainId,
        },
        msgHash: keccakHex(new TextEncoder().encode("too early")),
      };
    }
  }
}
