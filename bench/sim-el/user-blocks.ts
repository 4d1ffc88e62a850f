import { type Hex, hexToBytes } from "supernode/core";
import { encodeDepositTxHex, keccakHex } from "supernode/protocol";
import { DEFAULT_EIP1559, type buildBlock } from "supernode-devnet/el/block-builder";

/** What `buildBlock` takes as a block's attributes. */
type BuildAttributes = Parameters<typeof buildBlock>[2];
import type { ElForks } from "supernode-devnet/el/types";
import { UserTxSource, userTxAllocRecord } from "../derivation/user-txs.js";
import { note } from "../harness.js";
import type { SimElImpl } from "./impl.js";

/** The attributes of every block the sim-el bench builds in process: a timestamp and its transactions vary. */
export function benchBlockAttributes(
  timestamp: number,
  transactions: BuildAttributes["transactions"],
): BuildAttributes {
  return {
    timestamp,
    prevRandao: `0x${"ab".repeat(32)}`,
    suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
    withdrawals: [],
    parentBeaconBlockRoot: `0x${"cd".repeat(32)}`,
    transactions,
    noTxPool: true,
    gasLimit: 30_000_000n,
    eip1559Params: "0x0000000000000000",
    minBaseFee: 0n,
  };
}

/**
 * The simulated EL's own work for the blocks of the derivation bench, in process (no HTTP, no JSON): per block an
 * L1-info deposit and 12 signed user transactions of every type (bench/derivation/user-txs.ts), each to a new
 * recipient so the state grows as there. `userTxRaws` signs them (before any clock starts); `measureUserTxBlocks`
 * decodes (sender recovery included) and builds (execution, state root, receipts, header) them on a fresh genesis,
 * timed apart, as CPU µs per block.
 */
export async function userTxRaws(blocks: number): Promise<Uint8Array[][]> {
  const source = new UserTxSource();
  const raws: Uint8Array[][] = [];
  for (let n = 1; n <= blocks; n++) {
    const info = encodeDepositTxHex({
      sourceHash: keccakHex(new TextEncoder().encode(`info${n}`)),
      from: "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
      to: "0x4200000000000000000000000000000000000015",
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: false,
      data: `0x3db6be2b${"00".repeat(174)}` as Hex,
    });
    raws.push([info, ...(await source.nextBlock())].map(hexToBytes));
  }
  return raws;
}

export async function measureUserTxBlocks(
  impl: SimElImpl,
  forks: ElForks,
  raws: readonly Uint8Array[][],
): Promise<{ decodeUs: number; buildUs: number }> {
  const p = { chainId: 901n, forks, eip1559: DEFAULT_EIP1559 };
  const t0 = 1_700_000_000;
  let parent = impl.makeGenesis(p, { timestamp: t0, gasLimit: 30_000_000n, alloc: userTxAllocRecord() });
  let decodeUs = 0;
  let buildUs = 0;
  for (let n = 1; n <= raws.length; n++) {
    const c0 = process.cpuUsage();
    const txs = [];
    for (const raw of raws[n - 1]!) txs.push(await impl.decodeAnyTx(raw));
    const c1 = process.cpuUsage();
    parent = await impl.buildBlock(p, parent, benchBlockAttributes(t0 + 2 * n, txs), []);
    const c2 = process.cpuUsage();
    if (parent.txs.length !== txs.length) throw new Error("user-tx block: a transaction did not apply");
    decodeUs += c1.user + c1.system - c0.user - c0.system;
    buildUs += c2.user + c2.system - c1.user - c1.system;
  }
  note(
    `user-tx blocks (${impl.name}): ${raws.length} blocks of ${raws[0]!.length} transactions, state root ${parent.header.stateRoot}`,
  );
  return { decodeUs: decodeUs / raws.length, buildUs: buildUs / raws.length };
}
