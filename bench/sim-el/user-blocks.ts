import { type Hex, hexToBytes } from "supernode/core";
import { encodeDepositTxHex, keccakHex } from "supernode/protocol";
import { DEFAULT_EIP1559, buildBlock, makeGenesis } from "supernode-devnet/el/block-builder";

/** What `buildBlock` takes as a block's attributes. */
type BuildAttributes = Parameters<typeof buildBlock>[2];
import { decodeAnyTx } from "supernode-devnet/el/tx-decode";
import type { ElForks } from "supernode-devnet/el/types";
import { UserTxSource, userTxAllocRecord } from "../derivation/user-txs.js";
import { type Bench, note } from "../harness.js";

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
 * recipient so the state grows as there. Decoding (sender recovery included) and building (execution, state
 * root, receipts, header) are timed apart, as CPU µs per block. The transactions are signed before the clock starts.
 */
export async function userTxBlocks(report: Parameters<Bench["run"]>[0], forks: ElForks, blocks: number): Promise<void> {
  const p = { chainId: 901n, forks, eip1559: DEFAULT_EIP1559 };
  const t0 = 1_700_000_000;
  let parent = makeGenesis(p, { timestamp: t0, gasLimit: 30_000_000n, alloc: userTxAllocRecord() });
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
  let decodeUs = 0;
  let buildUs = 0;
  for (let n = 1; n <= blocks; n++) {
    const c0 = process.cpuUsage();
    const txs = [];
    for (const raw of raws[n - 1]!) txs.push(await decodeAnyTx(raw));
    const c1 = process.cpuUsage();
    parent = await buildBlock(p, parent, benchBlockAttributes(t0 + 2 * n, txs), []);
    const c2 = process.cpuUsage();
    if (parent.txs.length !== txs.length) throw new Error("user-tx block: a transaction did not apply");
    decodeUs += c1.user + c1.system - c0.user - c0.system;
    buildUs += c2.user + c2.system - c1.user - c1.system;
  }
  note(`user-tx blocks: ${blocks} blocks of ${raws[0]!.length} transactions, state root ${parent.header.stateRoot}`);
  report({ figure: "inproc_user_block_decode_us", value: Math.round(decodeUs / blocks), unit: "µs" });
  report({ figure: "inproc_user_block_build_us", value: Math.round(buildUs / blocks), unit: "µs" });
}
