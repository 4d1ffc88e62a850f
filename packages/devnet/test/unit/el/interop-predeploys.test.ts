import { decodeEventLog, encodeAbiParameters, encodeEventTopics, encodeFunctionData, keccak256, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { type Address, type Hash, type Hex, hexToBytes } from "supernode/core";
import { DEFAULT_EIP1559, buildBlock, executePayload, makeGenesis } from "../../../src/el/block-builder.js";
import { receiptJson } from "../../../src/el/format.js";
import {
  CROSS_L2_INBOX,
  CROSS_L2_INBOX_ABI,
  checksumOf,
  executingAccessList,
  LOG_EMITTER_ABI,
  LOG_EMITTER_ADDRESS,
} from "../../../src/el/interop-predeploys.js";
import { decodeDeposit, decodeSigned, intrinsicGas } from "../../../src/el/tx-decode.js";
import type { SimBlock, SimTx } from "../../../src/el/types.js";
import { interopSession, runCall } from "../../support/native-call.js";
import {
  blockLogs,
  decodeLog,
  encodeDepositTxHex,
  EXECUTING_MESSAGE_TOPIC,
  expectedLogHash,
  logHash,
  parseRpcReceipt,
} from "supernode/protocol";

const sender = privateKeyToAccount(`0x${"11".repeat(32)}`);
const SENDER = sender.address.toLowerCase() as Address;
const p = { chainId: 902n, forks: { regolith: 0, canyon: 0, lagoon: 0 }, eip1559: DEFAULT_EIP1559 };
const genesis = makeGenesis(p, { timestamp: 1000, gasLimit: 30_000_000n, alloc: { [SENDER]: 10n ** 20n } });

const id = {
  origin: LOG_EMITTER_ADDRESS,
  blockNumber: 17n,
  logIndex: 3n,
  timestamp: 1_700_000_123n,
  chainId: 901n,
};
const topics: Hash[] = [`0x${"aa".repeat(32)}`, `0x${"bb".repeat(32)}`];
const payload: Hex = "0x0102030405";

function emitData(t: readonly Hash[], data: Hex): Hex {
  return encodeFunctionData({ abi: LOG_EMITTER_ABI, functionName: "emitLog", args: [t, data] });
}
function validateData(msgHash: Hash, ident = id): Hex {
  return encodeFunctionData({ abi: CROSS_L2_INBOX_ABI, functionName: "validateMessage", args: [ident, msgHash] });
}

/** LOG gas: 375 + 375 per topic + 8 per data byte. */
const logGas = (topics: number, bytes: number) => 375n + 375n * BigInt(topics) + 8n * BigInt(bytes);
const selector = (sig: string) => keccak256(new TextEncoder().encode(sig)).slice(0, 10);
const withList = (msgHash: Hash, ident = id) => ({ accessList: executingAccessList(ident, msgHash) });

async function userTx(
  nonce: number,
  to: Address,
  data: Hex,
  o: { value?: bigint; gas?: bigint; accessList?: ReturnType<typeof executingAccessList> } = {},
): Promise<SimTx> {
  const raw = await sender.signTransaction({
    type: "eip1559",
    chainId: 902,
    nonce,
    to,
    data,
    ...(o.accessList === undefined ? {} : { accessList: o.accessList }),
    value: o.value ?? 0n,
    gas: o.gas ?? 200_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
  return decodeSigned(hexToBytes(raw));
}

function build(txs: readonly SimTx[]): Promise<SimBlock> {
  return buildBlock(
    p,
    genesis,
    {
      timestamp: 1002,
      prevRandao: `0x${"01".repeat(32)}`,
      suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
      withdrawals: [],
      transactions: [],
      noTxPool: false,
    },
    txs,
  );
}

describe("simulated CrossL2Inbox and log emitter", () => {
  it("validateMessage emits ExecutingMessage exactly as viem's ABI encoder and the product's decoder see it", async () => {
    const msgHash = keccak256("0x1234");
    const { session } = interopSession();
    const r = await runCall(session, CROSS_L2_INBOX, validateData(msgHash), withList(msgHash));
    expect(r.success).toBe(true);
    const [log] = r.logs;
    const eventAbi = CROSS_L2_INBOX_ABI.filter((x) => x.type === "event");
    const viemTopics = encodeEventTopics({ abi: eventAbi, eventName: "ExecutingMessage", args: { msgHash } });
    expect(log?.address).toBe(CROSS_L2_INBOX);
    expect(log?.topics).toEqual(viemTopics);
    expect(log?.topics[0]).toBe(EXECUTING_MESSAGE_TOPIC);
    const viemData = encodeAbiParameters(
      parseAbi(["struct I { address a; uint256 b; uint256 c; uint256 d; uint256 e; }", "function f(I)"])[0].inputs,
      [{ a: id.origin, b: id.blockNumber, c: id.logIndex, d: id.timestamp, e: id.chainId }],
    );
    expect(log?.data).toBe(viemData);
    expect(hexToBytes(log!.data).length).toBe(160);
    const back = decodeEventLog({ abi: eventAbi, topics: log!.topics as [Hash, Hash], data: log!.data });
    const args = back.args as unknown as { msgHash: Hash; id: typeof id };
    expect(args.msgHash).toBe(msgHash);
    expect({ ...args.id, origin: args.id.origin.toLowerCase() }).toEqual(id);
    expect(decodeLog(log!)).toEqual({
      kind: "executing",
      message: {
        id: { origin: id.origin, blockNumber: 17, logIndex: 3, timestamp: 1_700_000_123, chainId: 901n },
        payloadHash: msgHash,
      },
    });
  });

  it("requires the checksum in the access list (NotInAccessList), as the interop rules encode it", async () => {
    const msgHash = keccak256("0x1234");
    const { session } = interopSession();
    const none = await runCall(session, CROSS_L2_INBOX, validateData(msgHash));
    expect(none.success).toBe(false);
    expect(none.output).toBe(selector("NotInAccessList()"));
    // an eth_call's list in upper case does (the client compares keys, not their spelling)
    const upper = executingAccessList(id, msgHash).map((e) => ({
      address: e.address,
      storageKeys: e.storageKeys.map((k) => `0x${k.slice(2).toUpperCase()}` as Hash),
    }));
    expect(
      (await runCall(session, CROSS_L2_INBOX, validateData(msgHash), { accessList: upper, keep: false })).success,
    ).toBe(true);
    // the list of another message does not do
    const other = await runCall(session, CROSS_L2_INBOX, validateData(msgHash), withList(keccak256("0x99")));
    expect(other.output).toBe(selector("NotInAccessList()"));
    // lookup (type 1), checksum (type 3); the contract's own calculateChecksum agrees
    const [entry] = executingAccessList(id, msgHash);
    expect(entry!.address).toBe(CROSS_L2_INBOX);
    expect(entry!.storageKeys).toEqual([
      `0x01000000${"0".repeat(13)}385${"0".repeat(14)}11${id.timestamp.toString(16).padStart(16, "0")}00000003`,
      checksumOf(id, msgHash),
    ]);
    expect(entry!.storageKeys[1]!.startsWith("0x03")).toBe(true);
    const calc = await runCall(
      session,
      CROSS_L2_INBOX,
      encodeFunctionData({ abi: CROSS_L2_INBOX_ABI, functionName: "calculateChecksum", args: [id, msgHash] }),
    );
    expect(calc.output).toBe(checksumOf(id, msgHash));
    // a chain ID past 64 bits takes the extension entry (type 2)
    const big = { ...id, chainId: (1n << 70n) + 5n };
    const keys = executingAccessList(big, msgHash)[0]!.storageKeys;
    expect(keys.map((k) => k.slice(0, 4))).toEqual(["0x01", "0x02", "0x03"]);
    expect(keys[1]).toBe(`0x02${"00".repeat(7)}${"0".repeat(46)}40`);
    // the identifier's range checks
    const tooHigh = await runCall(session, CROSS_L2_INBOX, validateData(msgHash, { ...id, logIndex: 1n << 32n }));
    expect(tooHigh.output).toBe(selector("LogIndexTooHigh()"));
  });

  it("emitLog emits the given topics and data, whose log hash an executing message can name", async () => {
    const { session } = interopSession();
    for (const n of [0, 1, 2, 4]) {
      const t = Array.from({ length: n }, (_, i) => `0x${String(i + 1).repeat(64)}` as Hash);
      const r = await runCall(session, LOG_EMITTER_ADDRESS, emitData(t, payload));
      expect(r.logs).toEqual([{ address: LOG_EMITTER_ADDRESS, topics: t, data: payload }]);
      expect(r.gasUsed).toBe(logGas(n, 5));
    }
    const log = { address: LOG_EMITTER_ADDRESS, topics, data: payload };
    const msgHash = keccak256(`0x${topics.map((t) => t.slice(2)).join("")}${payload.slice(2)}`);
    const r = await runCall(session, CROSS_L2_INBOX, validateData(msgHash), withList(msgHash));
    const d = decodeLog(r.logs[0]!);
    if (d.kind !== "executing") throw new Error("expected an executing message");
    expect(expectedLogHash(d.message)).toBe(logHash(log));
  });

  it("reverts on value, unknown or malformed calldata, five topics and a dirty origin word", async () => {
    const { session } = interopSession();
    const msgHash = keccak256("0x99");
    const good = validateData(msgHash);
    const ok = await runCall(session, CROSS_L2_INBOX, good, withList(msgHash));
    expect(ok.success).toBe(true);
    const fails = [
      await runCall(session, CROSS_L2_INBOX, good, { ...withList(msgHash), value: 1n }),
      await runCall(session, CROSS_L2_INBOX, "0x", withList(msgHash)),
      await runCall(session, CROSS_L2_INBOX, emitData(topics, payload), withList(msgHash)),
      await runCall(session, CROSS_L2_INBOX, good.slice(0, 100) as Hex, withList(msgHash)),
      await runCall(session, CROSS_L2_INBOX, `${good.slice(0, 10)}ff${good.slice(12)}` as Hex, withList(msgHash)),
      await runCall(
        session,
        LOG_EMITTER_ADDRESS,
        emitData(
          Array.from({ length: 5 }, () => topics[0]!),
          payload,
        ),
      ),
    ];
    for (const f of fails) expect(f).toMatchObject({ success: false, error: "revert", output: "0x", logs: [] });
  });

  it("puts the logs in receipts with block-wide log indices, charges log gas, and re-executes to the same block", async () => {
    const msgHash = keccak256("0x1234");
    const emit = emitData(topics, payload);
    const txs = [
      await userTx(0, LOG_EMITTER_ADDRESS, emit),
      await userTx(1, "0x00000000000000000000000000000000000000b0", "0x", { value: 5n }),
      await userTx(2, LOG_EMITTER_ADDRESS, emitData([], "0x")),
      await userTx(3, CROSS_L2_INBOX, validateData(msgHash), withList(msgHash)),
      // reverts: value sent to the inbox, too little gas for the log, no access list
      await userTx(4, CROSS_L2_INBOX, validateData(msgHash), { ...withList(msgHash), value: 1n }),
      await userTx(5, CROSS_L2_INBOX, validateData(msgHash), {
        ...withList(msgHash),
        gas: intrinsicGas(validateData(msgHash), false) + 2400n + 2n * 1900n + 100n, // with the access list's
      }),
      await userTx(6, LOG_EMITTER_ADDRESS, emit),
      await userTx(7, CROSS_L2_INBOX, validateData(msgHash)),
    ];
    const b = await build(txs);
    expect(b.txs).toHaveLength(8);
    expect(b.receipts.map((r) => r.status)).toEqual([1, 1, 1, 1, 0, 0, 1, 0]);
    expect(b.receipts.map((r) => r.logs.length)).toEqual([1, 0, 1, 1, 0, 0, 1, 0]);
    expect(b.receipts[0]?.gasUsed).toBe(intrinsicGas(emit, false) + logGas(2, 5));
    expect(b.receipts[5]?.gasUsed).toBe(txs[5]?.gas);
    const receipts = b.receipts.map((_, i) =>
      parseRpcReceipt(JSON.parse(JSON.stringify(receiptJson("a", b, i, { jovian: false, isthmus: false })))),
    );
    expect(receipts.flatMap((r) => r.logs.map((l) => Number(l.logIndex)))).toEqual([0, 1, 2, 3]);
    const stored = blockLogs(receipts);
    expect(stored).toHaveLength(4);
    expect(stored[0]?.hash).toBe(logHash({ address: LOG_EMITTER_ADDRESS, topics, data: payload }));
    expect(stored[2]?.executing?.payloadHash).toBe(msgHash);
    expect(stored.filter((s) => s.executing !== undefined)).toHaveLength(1);
    expect(b.header.logsBloom).not.toBe(`0x${"00".repeat(256)}`);
    const again = await executePayload(p, genesis, {
      timestamp: 1002,
      prevRandao: b.header.mixHash,
      feeRecipient: b.header.miner,
      gasLimit: b.header.gasLimit,
      extraData: b.header.extraData,
      baseFeePerGas: b.header.baseFeePerGas!,
      transactions: b.txs,
    });
    expect(typeof again === "string" ? again : again.hash).toBe(b.hash);
  });

  it("lets a deposit emit an initiating log too", async () => {
    const raw = encodeDepositTxHex({
      sourceHash: `0x${"05".repeat(32)}`,
      from: SENDER,
      to: LOG_EMITTER_ADDRESS,
      mint: 0n,
      value: 0n,
      gas: 100_000n,
      isSystemTx: false,
      data: emitData(topics, payload),
    });
    const b = await buildBlock(
      p,
      genesis,
      {
        timestamp: 1002,
        prevRandao: `0x${"01".repeat(32)}`,
        suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
        withdrawals: [],
        transactions: [decodeDeposit(hexToBytes(raw))],
        noTxPool: true,
      },
      [],
    );
    expect(b.receipts[0]?.logs).toEqual([{ address: LOG_EMITTER_ADDRESS, topics, data: payload }]);
  });
});
