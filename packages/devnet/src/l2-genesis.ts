/**
 * A chain's L2 genesis in the go-ethereum `genesis.json` format (with the OP fork fields), as an OP execution
 * client (op-geth: `geth init`) takes it: the devnet's fork schedule, gas limit, dev-account balances and the
 * header fields that upstream's genesis writer sets for forks active at genesis (blob gas from Ecotone, the EIP-2935
 * history contract from Isthmus, the Holocene / Jovian extraData). The hash of the block this makes is op-geth's to
 * compute: a rollup config for such a client takes `genesis.l2.hash` from the client.
 */
import type { Address, Hex } from "supernode/core";
import { CROSS_L2_INBOX, EXECUTING_MESSAGE_TOPIC, type RollupConfig } from "supernode/protocol";
import { HISTORY_STORAGE_ADDRESS, HISTORY_STORAGE_CODE } from "./el/evm/system-contracts.js";
import { LOG_EMITTER_ADDRESS } from "./el/interop-predeploys.js";

/**
 * The L2ToL1MessagePasser predeploy. Output roots commit to its storage root, which a rollup node proves with
 * `eth_getProof` against the block's state root (op-node verifies that proof and refuses an absent account), and
 * from Isthmus the header's withdrawalsRoot is that storage root: the account must exist, and its storage must not
 * be empty (op-geth leaves an Isthmus payload's withdrawalsRoot out when it equals the empty root, then rejects that
 * payload for lacking it; upstream's predeploy always holds its proxy slots). The devnet places a stand-in (nonce 1,
 * no code, one storage slot), as it does for its L1 contracts.
 */
const MESSAGE_PASSER: Address = "0x4200000000000000000000000000000000000016";
/** The sequencer fee vault predeploy, the genesis block's coinbase upstream. */
const SEQUENCER_FEE_VAULT: Address = "0x4200000000000000000000000000000000000011";
const ZERO_HASH = `0x${"00".repeat(32)}`;

/**
 * EVM stand-ins of the two interop contracts the simulated execution client models natively (`el/interop-predeploys.ts`),
 * for an OP execution client when Interop is scheduled:
 * - CrossL2Inbox `validateMessage(Identifier, bytes32)`: copies the identifier (calldata 4…164) to memory and emits
 *   `ExecutingMessage(msgHash, id)` (LOG2: the event topic, calldata word 164; data the 160 identifier bytes). Like
 *   the simulated one it checks nothing, not even the selector (that is the rollup node's job).
 * - The log emitter `emitLog(bytes32[] topics, bytes data)`: follows the ABI offsets and emits LOG3 with the first
 *   three topics and the data (the devnet's initiating messages always have three topics).
 */
const CROSS_L2_INBOX_CODE: Hex = `0x60a0600460003760a4357f${EXECUTING_MESSAGE_TOPIC.slice(2)}60a06000a200`;
const LOG_EMITTER_CODE: Hex = "0x60043560640135600435604401356004356024013560243560040180359060200181906000376000a300";
const INITIAL_BASE_FEE = 1_000_000_000n;

const hex = (n: bigint | number): string => `0x${BigInt(n).toString(16)}`;

/** Holocene extraData (version 0) or Jovian's (version 1, with a zero minimum base fee). */
function genesisExtraData(denominator: number, elasticity: number, jovian: boolean): Hex {
  const u32 = (n: number) => n.toString(16).padStart(8, "0");
  return `0x${jovian ? "01" : "00"}${u32(denominator)}${u32(elasticity)}${jovian ? "0".repeat(16) : ""}`;
}

const activeAt = (t: number | undefined, genesisTime: number): boolean => t !== undefined && t <= genesisTime;

/** The chain config part (`config`): every L1 fork at block/time 0, the OP forks at the rollup config's times. */
function chainConfig(cfg: RollupConfig): Record<string, unknown> {
  const op = cfg.chain_op_config ?? { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 };
  const out: Record<string, unknown> = { chainId: Number(cfg.l2_chain_id) };
  for (const b of ["homestead", "eip150", "eip155", "eip158", "byzantium", "constantinople", "petersburg"])
    out[`${b}Block`] = 0;
  for (const b of ["istanbul", "muirGlacier", "berlin", "london", "arrowGlacier", "grayGlacier", "mergeNetsplit"])
    out[`${b}Block`] = 0;
  // Shanghai comes with Canyon, Cancun with Ecotone, Prague with Isthmus (as upstream's genesis writer sets them).
  const times: Array<[string, number | undefined]> = [
    ["shanghaiTime", cfg.canyon_time],
    ["cancunTime", cfg.ecotone_time],
    ["pragueTime", cfg.isthmus_time],
    ["regolithTime", cfg.regolith_time],
    ["canyonTime", cfg.canyon_time],
    ["ecotoneTime", cfg.ecotone_time],
    ["fjordTime", cfg.fjord_time],
    ["graniteTime", cfg.granite_time],
    ["holoceneTime", cfg.holocene_time],
    ["isthmusTime", cfg.isthmus_time],
    ["jovianTime", cfg.jovian_time],
  ];
  out.bedrockBlock = cfg.genesis.l2.number;
  for (const [k, t] of times) if (t !== undefined) out[k] = t;
  out.terminalTotalDifficulty = 0;
  out.optimism = {
    eip1559Elasticity: op.eip1559Elasticity,
    eip1559Denominator: op.eip1559Denominator,
    eip1559DenominatorCanyon: op.eip1559DenominatorCanyon ?? op.eip1559Denominator,
  };
  return out;
}

/**
 * The genesis.json object of a chain with rollup config `cfg` (its fork times, genesis time and gas limit) and
 * `alloc` balances. Karst and later forks are not written: the clients that take this format stop at Jovian.
 */
export function l2GenesisJson(cfg: RollupConfig, alloc: Readonly<Record<string, bigint>>): Record<string, unknown> {
  const t = cfg.genesis.l2_time;
  const op = cfg.chain_op_config ?? { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 };
  const accounts: Record<string, unknown> = {};
  for (const [addr, bal] of Object.entries(alloc)) accounts[addr.toLowerCase()] = { balance: hex(bal) };
  accounts[MESSAGE_PASSER] = { nonce: "0x1", balance: "0x0", storage: { [ZERO_HASH]: `0x${"00".repeat(31)}01` } };
  if (cfg.lagoon_time !== undefined) {
    accounts[CROSS_L2_INBOX] = { code: CROSS_L2_INBOX_CODE, nonce: "0x1", balance: "0x0" };
    accounts[LOG_EMITTER_ADDRESS] = { code: LOG_EMITTER_CODE, nonce: "0x1", balance: "0x0" };
  }
  if (activeAt(cfg.isthmus_time, t))
    accounts[HISTORY_STORAGE_ADDRESS] = { code: HISTORY_STORAGE_CODE, nonce: "0x1", balance: "0x0" };
  const holocene = activeAt(cfg.holocene_time, t);
  const jovian = activeAt(cfg.jovian_time, t);
  const ecotone = activeAt(cfg.ecotone_time, t);
  return {
    config: chainConfig(cfg),
    nonce: "0x0",
    timestamp: hex(t),
    extraData: holocene
      ? genesisExtraData(op.eip1559DenominatorCanyon ?? op.eip1559Denominator, op.eip1559Elasticity, jovian)
      : "0x",
    gasLimit: hex(cfg.genesis.system_config.gasLimit),
    difficulty: "0x0",
    mixHash: ZERO_HASH,
    coinbase: SEQUENCER_FEE_VAULT,
    alloc: accounts,
    number: hex(cfg.genesis.l2.number),
    gasUsed: "0x0",
    parentHash: ZERO_HASH,
    baseFeePerGas: hex(INITIAL_BASE_FEE),
    ...(ecotone ? { excessBlobGas: "0x0", blobGasUsed: "0x0" } : {}),
  };
}
