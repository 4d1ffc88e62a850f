import { parseTransaction, type TransactionSerializable } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../../src/core/codec/hex.js";
import type { Address, Hash, Hex } from "../../../../src/core/types/primitives.js";
import type { Receipt } from "../../../../src/protocol/block/receipt.js";
import { selectBatcherData, selectBatcherEntries } from "../../../../src/protocol/l1/batcher-tx.js";
import { L1LogIndex, L1TxIndex, newL1IndexCounters } from "../../../../src/protocol/l1/l1-block-index.js";
import type { SystemConfig } from "../../../../src/protocol/rollup-config.js";
import { applySystemConfigReceipts, configUpdateLog } from "../../../../src/protocol/l1/system-config.js";

const batcherA = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const batcherB = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const INBOX_A: Address = "0xff00000000000000000000000000000000000901";
const INBOX_B: Address = "0xff00000000000000000000000000000000000902";
const INBOX_C: Address = "0xff00000000000000000000000000000000000903";
const OTHER: Address = "0x000000000000000000000000000000000000dead";
const CHAIN = 900;
const tx = (to: Address, data: Hex): TransactionSerializable => ({
  type: "eip1559",
  chainId: CHAIN,
  nonce: 1,
  gas: 100_000n,
  to,
  value: 0n,
  data,
  maxFeePerGas: 10n,
  maxPriorityFeePerGas: 1n,
});

async function block(): Promise<{ to: Address | null; raw: Hex }[]> {
  const signed = async (t: TransactionSerializable, who = batcherA) => {
    const raw = (await who.signTransaction(t as never)) as Hex;
    return { to: (parseTransaction(raw).to ?? null) as Address | null, raw };
  };
  return [
    await signed(tx(INBOX_A, "0x00aa")),
    await signed(tx(OTHER, "0x01")),
    await signed(tx(INBOX_B, "0x00bb"), batcherB),
    await signed(tx(INBOX_A, "0x00cc"), batcherB), // to A from B's batcher: rejected for chain A
    await signed(tx(OTHER, "0x02")),
    await signed(tx(OTHER, "0x03")),
    { to: INBOX_A, raw: "0x02c0" }, // malformed bytes
    await signed(tx(INBOX_B, "0x00dd"), batcherB),
  ];
}

describe("L1TxIndex", () => {
  it("gives every chain the same batcher data as decoding the whole block, decoding each inbox tx once", async () => {
    const txs = await block();
    const chains = [
      { batchInbox: INBOX_A, batcherAddr: batcherA.address },
      { batchInbox: INBOX_B, batcherAddr: batcherB.address },
      { batchInbox: INBOX_C, batcherAddr: batcherA.address },
    ].map((c) => ({ ...c, l1ChainId: BigInt(CHAIN), blobs: true }));
    const counters = newL1IndexCounters();
    const index = new L1TxIndex(txs, counters);
    expect(counters).toEqual({ decoded: 0, recovered: 0, receiptsIndexed: 0 });
    for (let round = 0; round < 3; round++) {
      for (const sel of chains) {
        const shared = selectBatcherEntries(index.txsTo(sel.batchInbox), sel);
        const alone = selectBatcherData(
          txs.map((t) => hexToBytes(t.raw)),
          sel,
        );
        expect(shared).toEqual(alone);
      }
    }
    expect(selectBatcherEntries(index.txsTo(INBOX_A), chains[0] as never).map((i) => i.txIndex)).toEqual([0]);
    expect(selectBatcherEntries(index.txsTo(INBOX_B), chains[1] as never).map((i) => i.txIndex)).toEqual([2, 7]);
    // 5 txs go to hosted inboxes (one malformed); the 3 others are never decoded; every signature once
    expect(counters.decoded).toBe(5);
    expect(counters.recovered).toBe(4);
  });

  it("skips contract creations and matches destinations case-insensitively", () => {
    const index = new L1TxIndex([
      { to: null, raw: "0x02c0" },
      { to: INBOX_A.toUpperCase().replace("0X", "0x") as Address, raw: "0x02c0" },
    ]);
    expect(index.txsTo(INBOX_A).map((e) => e.txIndex)).toEqual([1]);
    expect(index.txsTo(INBOX_A)[0]?.tx).toBeNull();
    expect(index.txsTo(INBOX_A)[0]?.sender()).toBeNull();
  });
});

describe("L1LogIndex", () => {
  it("reduces receipts to an address's logs with block-wide log indices, applying to the same config", () => {
    const SYS_A: Address = "0x00000000000000000000000000000000000a0001";
    const SYS_B: Address = "0x00000000000000000000000000000000000b0001";
    const batcherUpdate = (sys: Address, who: Address) => {
      const payload = new Uint8Array(32);
      payload.set(hexToBytes(who), 12);
      return configUpdateLog(sys, 0, payload);
    };
    const gasUpdate = (sys: Address, limit: number) => {
      const payload = new Uint8Array(32);
      payload[31] = limit & 0xff;
      payload[30] = (limit >> 8) & 0xff;
      payload[29] = (limit >> 16) & 0xff;
      return configUpdateLog(sys, 2, payload);
    };
    const ok = (logs: Receipt["logs"]): Receipt => ({ type: 2, status: 1, cumulativeGasUsed: 0n, logs });
    const receipts: Receipt[] = [
      ok([batcherUpdate(SYS_A, batcherB.address), batcherUpdate(SYS_B, batcherA.address)]),
      { ...ok([gasUpdate(SYS_A, 1_000_000)]), status: 0 },
      ok([gasUpdate(SYS_B, 2_000_000), gasUpdate(SYS_A, 3_000_000)]),
    ];
    const counters = newL1IndexCounters();
    const index = new L1LogIndex(receipts, counters);
    expect(counters.receiptsIndexed).toBe(1);
    expect(index.receiptsOf(SYS_A).flatMap((r) => r.logs.map((l) => l.logIndex))).toEqual([0, 4]);
    expect(index.receiptsOf(SYS_B).flatMap((r) => r.logs.map((l) => l.logIndex))).toEqual([1, 3]);
    expect(index.receiptsOf(OTHER)).toEqual([]);
    const base: SystemConfig = {
      batcherAddr: batcherA.address,
      overhead: bytesToHex(new Uint8Array(32)) as Hash,
      scalar: bytesToHex(new Uint8Array(32)) as Hash,
      gasLimit: 30_000_000n,
    } as SystemConfig;
    for (const sys of [SYS_A, SYS_B]) {
      const whole = applySystemConfigReceipts(base, receipts, sys, true).config;
      expect(applySystemConfigReceipts(base, index.receiptsOf(sys), sys, true).config).toEqual(whole);
    }
    expect(applySystemConfigReceipts(base, index.receiptsOf(SYS_A), SYS_A, true).config.gasLimit).toBe(3_000_000n);
  });
});
