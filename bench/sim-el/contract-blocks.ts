/**
 * The simulated EL's CPU per block of 12 contract calls (EVM execution): a counter contract (SLOAD, SSTORE, LOG0 per
 * call) deployed in the first block, then per block an L1-info deposit and 12 signed calls from 12 senders, each
 * bumping a slot of its own. Signing happens before the clock starts; decoding and building are timed together.
 */
import { privateKeyToAccount } from "viem/accounts";
import { type Hex, hexToBytes } from "supernode/core";
import { encodeDepositTxHex, keccakHex } from "supernode/protocol";
import { DEFAULT_EIP1559 } from "supernode-devnet/el/block-builder";
import { createAddress } from "supernode-devnet/el/executor";
import type { ElForks } from "supernode-devnet/el/types";
import { userTxAllocRecord } from "../derivation/user-txs.js";
import { note } from "../harness.js";
import type { SimElImpl } from "./impl.js";
import { benchBlockAttributes } from "./user-blocks.js";

const CALLS_PER_BLOCK = 12;
/** Runtime: slot = calldata[0:32]; storage[slot] += 1; LOG0(memory[0:32]); STOP. Init code copies and returns it. */
const RUNTIME = "6000358054600101905560206000a000";
const INIT: Hex = `0x601080600b6000396000f3${RUNTIME}`;
const FEES = {
  chainId: 901,
  type: "eip1559" as const,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000n,
};
const SENDERS = Array.from({ length: 16 }, (_, i) =>
  privateKeyToAccount(`0x${(i + 1).toString(16).padStart(2, "0").repeat(32)}`),
);

function l1Info(n: number): Uint8Array {
  return hexToBytes(
    encodeDepositTxHex({
      sourceHash: keccakHex(new TextEncoder().encode(`info${n}`)),
      from: "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
      to: "0x4200000000000000000000000000000000000015",
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: false,
      data: `0x3db6be2b${"00".repeat(174)}` as Hex,
    }),
  );
}

/** The signed blocks: the deployment (block 0), then `blocks` blocks of 12 calls (signed before any clock starts). */
export async function contractCallRaws(blocks: number): Promise<{ setup: Uint8Array[]; blocks: Uint8Array[][] }> {
  const deployer = SENDERS[0]!;
  const deploy = await deployer.signTransaction({ ...FEES, nonce: 0, data: INIT, gas: 200_000n });
  const counter = createAddress(deployer.address.toLowerCase() as Hex, 0n);
  const raws: Uint8Array[][] = [];
  for (let n = 1; n <= blocks; n++) {
    const block = [l1Info(n)];
    for (let i = 0; i < CALLS_PER_BLOCK; i++) {
      const s = SENDERS[i + 1]!;
      const data = `0x${(n * 100 + i).toString(16).padStart(64, "0")}` as Hex;
      block.push(hexToBytes(await s.signTransaction({ ...FEES, nonce: n - 1, to: counter, data, gas: 100_000n })));
    }
    raws.push(block);
  }
  return { setup: [l1Info(0), hexToBytes(deploy)], blocks: raws };
}

/**
 * CPU µs per block of 12 calls (decoding and building). `executes`: whether the calls must have run (code that
 * logs); the client before the EVM took them as transfers to an account without code.
 */
export async function measureContractBlocks(
  impl: SimElImpl,
  forks: ElForks,
  raws: { setup: Uint8Array[]; blocks: readonly Uint8Array[][] },
  executes: boolean,
): Promise<number> {
  const p = { chainId: 901n, forks, eip1559: DEFAULT_EIP1559 };
  const t0 = 1_700_000_000;
  let parent = impl.makeGenesis(p, { timestamp: t0, gasLimit: 30_000_000n, alloc: userTxAllocRecord() });
  const txs0 = [];
  for (const raw of raws.setup) txs0.push(await impl.decodeAnyTx(raw));
  parent = await impl.buildBlock(p, parent, benchBlockAttributes(t0 + 1, txs0), []);
  let us = 0;
  const blocks = raws.blocks.length;
  for (let n = 1; n <= blocks; n++) {
    const c0 = process.cpuUsage();
    const txs = [];
    for (const raw of raws.blocks[n - 1]!) txs.push(await impl.decodeAnyTx(raw));
    parent = await impl.buildBlock(p, parent, benchBlockAttributes(t0 + 1 + 2 * n, txs), []);
    const c1 = process.cpuUsage();
    const ran = parent.receipts.every((r, i) => r.status === 1 && (i === 0 || r.logs.length > 0 || !executes));
    if (parent.txs.length !== txs.length || !ran)
      throw new Error("contract-call block: a call did not apply or did not run");
    us += c1.user + c1.system - c0.user - c0.system;
  }
  note(
    `contract-call blocks (${impl.name}): ${blocks} blocks of ${CALLS_PER_BLOCK} calls, state root ${parent.header.stateRoot}`,
  );
  return us / blocks;
}
