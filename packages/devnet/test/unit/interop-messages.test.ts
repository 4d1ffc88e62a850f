import { beforeAll, describe, expect, it } from "vitest";
import type { ChainId } from "supernode/core";
import { CROSS_L2_INBOX, executingAccessList, LOG_EMITTER_ADDRESS } from "../../src/el/interop-predeploys.js";
import { interopSession, runCall } from "../support/native-call.js";
import {
  type InitiatedMessage,
  type InvalidContext,
  INVALID_KINDS,
  emitLogCalldata,
  initiatingPayload,
  invalidExecuting,
  validExecuting,
  validateMessageCalldata,
} from "../../src/interop-messages.js";
import { checkExecutingMessage, decodeLog, logHash, type MessageRuleParams } from "supernode/protocol";

const GENESIS = 1_800_000_000;
const params: MessageRuleParams = {
  dependencySet: new Set(["901", "902"]),
  activationTimestamp: GENESIS,
  expiryWindow: 60,
  blockTime: () => 2,
};

/** Runs a message through the devnet EL's CrossL2Inbox and the product's rules (initiating logs from `chain`). */
async function verdict(call: ReturnType<typeof validExecuting>, executingTs: number, chain: Map<string, string>) {
  const { session } = interopSession();
  const r = await runCall(session, CROSS_L2_INBOX, validateMessageCalldata(call), {
    accessList: executingAccessList(call.id, call.msgHash),
  });
  if (!r.success) throw new Error("inbox reverted");
  const d = decodeLog(r.logs[0]!);
  if (d.kind !== "executing") throw new Error("not an executing message");
  return checkExecutingMessage(params, 902n, executingTs, d.message, (c: ChainId, n, i) => {
    const hit = chain.get(`${c}:${n}:${i}`);
    return hit === undefined ? undefined : { logHash: hit as `0x${string}`, blockTimestamp: GENESIS + 2 * n };
  });
}

describe("interop devnet messages", () => {
  // chain 901's initiating logs: message k in block 2k+1, log index 0
  const history: InitiatedMessage[] = [];
  const logs = new Map<string, string>();
  beforeAll(async () => {
    const { session } = interopSession(901n);
    for (let k = 0; k < 40; k++) {
      const p = initiatingPayload(k, 901n, 902n);
      const r = await runCall(session, LOG_EMITTER_ADDRESS, emitLogCalldata(p));
      if (!r.success) throw new Error("emitter reverted");
      const n = 2 * k + 1;
      logs.set(`901:${n}:0`, logHash(r.logs[0]!));
      history.push({
        chainId: 901n,
        blockNumber: n,
        logIndex: 0,
        timestamp: GENESIS + 2 * n,
        payloadHash: p.payloadHash,
      });
    }
  });
  const headTs = GENESIS + 2 * 80;
  const ctx: InvalidContext = {
    history,
    headTimestamp: headTs,
    expiryWindow: 60,
    activation: GENESIS,
    source: { chainId: 901n, genesisNumber: 0, genesisTimestamp: GENESIS, blockTime: 2 },
    unknownChainId: 999n,
  };

  it("a valid message names the initiating log the emitter produced", async () => {
    expect(await verdict(validExecuting(history.at(-1)!), headTs + 2, logs)).toBeUndefined();
    expect(await verdict(validExecuting(history[35]!), headTs + 2, logs)).toBeUndefined();
  });

  it("each invalid kind breaks the rule it is named after", async () => {
    const want = {
      "wrong-payload-hash": "hash-mismatch",
      "unknown-origin-chain": "unknown-chain",
      expired: "expired",
      "too-early": "initiating-too-early",
    } as const;
    for (const kind of INVALID_KINDS) {
      const call = invalidExecuting(kind, ctx);
      expect(call, kind).toBeDefined();
      expect(await verdict(call!, headTs + 2, logs), kind).toBe(want[kind]);
    }
  });

  it("cannot send what the history does not allow yet", () => {
    expect(invalidExecuting("wrong-payload-hash", { ...ctx, history: [] })).toBeUndefined();
    expect(invalidExecuting("unknown-origin-chain", { ...ctx, history: [] })).toBeUndefined();
    expect(invalidExecuting("expired", { ...ctx, headTimestamp: GENESIS + 40 })).toBeUndefined();
    expect(invalidExecuting("too-early", { ...ctx, history: [] })).toBeDefined();
  });

  it("the too-early message names the block at a later activation", () => {
    const call = invalidExecuting("too-early", { ...ctx, activation: GENESIS + 30 });
    expect(call?.id).toMatchObject({ blockNumber: 15n, timestamp: BigInt(GENESIS + 30), chainId: 901n });
  });
});
