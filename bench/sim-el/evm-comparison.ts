/**
 * The simulated EL's CPU per block of 12 signed transfers and of 12 contract calls, now and before the EVM (issue 29:
 * transfers at most 2× slower). Figures: `inproc_user_block_decode_us`, `inproc_user_block_build_us`,
 * `inproc_contract_block_build_us` (this tree), their `_pre_evm` counterparts and the ratios
 * `user_block_vs_pre_evm`, `contract_block_vs_pre_evm` (now ÷ before, decoding and building together).
 *
 * Before = the code of commit cf39547^ (the last without the EVM), measured in the same run when
 * `SIM_EL_PRE_EVM_DIR` names a checkout of it (its packages/devnet/src is enough; node_modules linked to this tree's):
 *   git archive cf39547^ packages/devnet/src | tar -x -C /tmp/pre-evm && ln -s "$PWD/node_modules" /tmp/pre-evm/
 * Both run interleaved (before, now, before, now) on the same signed transactions. Without it the ratios use the
 * figure docs/adr/0111 recorded for the code before (~900 µs per block of transfers, decoding excluded), and say so.
 */
import type { ElForks } from "supernode-devnet/el/types";
import { type Bench, note } from "../harness.js";
import { contractCallRaws, measureContractBlocks } from "./contract-blocks.js";
import { CURRENT, loadImpl } from "./impl.js";
import { measureUserTxBlocks, userTxRaws } from "./user-blocks.js";

/** docs/adr/0111: a block of 12 transfers before the EVM, `inproc_user_block_build_us`, median of four runs. */
const RECORDED_PRE_EVM_BUILD_US = 900;
const ROUNDS = 2;

export async function evmComparison(
  report: Parameters<Bench["run"]>[0],
  forks: ElForks,
  blocks: number,
): Promise<void> {
  const dir = process.env.SIM_EL_PRE_EVM_DIR;
  const pre = dir === undefined || dir === "" ? undefined : await loadImpl(dir);
  const user = await userTxRaws(blocks);
  const contract = await contractCallRaws(blocks);
  const now = { decode: 0, build: 0, contract: 0 };
  const before = { decode: 0, build: 0, contract: 0 };
  const rounds = pre === undefined ? 1 : ROUNDS;
  for (let r = 0; r < rounds; r++) {
    if (pre !== undefined) {
      const u = await measureUserTxBlocks(pre, forks, user);
      before.decode += u.decodeUs / rounds;
      before.build += u.buildUs / rounds;
      before.contract += (await measureContractBlocks(pre, forks, contract, false)) / rounds;
    }
    const u = await measureUserTxBlocks(CURRENT, forks, user);
    now.decode += u.decodeUs / rounds;
    now.build += u.buildUs / rounds;
    now.contract += (await measureContractBlocks(CURRENT, forks, contract, true)) / rounds;
  }
  report({ figure: "inproc_user_block_decode_us", value: Math.round(now.decode), unit: "µs" });
  report({ figure: "inproc_user_block_build_us", value: Math.round(now.build), unit: "µs" });
  report({ figure: "inproc_contract_block_build_us", value: Math.round(now.contract), unit: "µs" });
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  if (pre === undefined) {
    note(
      `before the EVM: not measured (SIM_EL_PRE_EVM_DIR unset); the recorded ${RECORDED_PRE_EVM_BUILD_US} µs (docs/adr/0111)`,
    );
    report({ figure: "user_block_build_vs_pre_evm", value: ratio(now.build, RECORDED_PRE_EVM_BUILD_US), unit: "×" });
    return;
  }
  report({ figure: "inproc_user_block_decode_us_pre_evm", value: Math.round(before.decode), unit: "µs" });
  report({ figure: "inproc_user_block_build_us_pre_evm", value: Math.round(before.build), unit: "µs" });
  report({ figure: "inproc_contract_block_build_us_pre_evm", value: Math.round(before.contract), unit: "µs" });
  report({
    figure: "user_block_vs_pre_evm",
    value: ratio(now.decode + now.build, before.decode + before.build),
    unit: "×",
  });
  report({ figure: "user_block_build_vs_pre_evm", value: ratio(now.build, before.build), unit: "×" });
  report({ figure: "contract_block_vs_pre_evm", value: ratio(now.contract, before.contract), unit: "×" });
}
