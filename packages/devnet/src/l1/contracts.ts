/**
 * The two L1 contracts a rollup node reads, as small hand-assembled bytecode placed at fixed addresses with
 * `anvil_setCode`. They emit events byte-for-byte as the real OptimismPortal and SystemConfig do.
 *
 * - Deposit contract (OptimismPortal stand-in): the real ABI
 *   `depositTransaction(address _to, uint256 _value, uint64 _gasLimit, bool _isCreation, bytes _data)` (payable)
 *   emits `TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData)`
 *   with version 0 and `opaqueData = mint(32) ‖ value(32) ‖ gasLimit(8) ‖ isCreation(1) ‖ data` (packed), where
 *   `mint = msg.value` and `from = msg.sender`, aliased (+0x1111…1111) when the caller is a contract.
 *   No gas metering or minimum-gas checks.
 * - SystemConfig stand-in: a generic emitter. Calldata is `updateType (uint256 word) ‖ payload` (payload = the
 *   exact ABI encoding the real setter puts in the event, 32 or 64 bytes); it emits
 *   `ConfigUpdate(uint256 indexed version=0, uint8 indexed updateType, bytes data)` with
 *   `data = abi.encode(bytes payload)`. For type 3 (unsafe block signer) it also stores the address in the real
 *   contract's unsafe-block-signer slot so that runtime-config readers find it.
 */
import { keccak256, toBytes } from "viem";
import type { Address, Hash, Hex } from "supernode/core";
import { assemble, label, push, ref } from "./evm-asm.js";

/**
 * Per-chain contract addresses: `0xde90 ‖ kind (1 byte) ‖ chain id (right-aligned)`, so every devnet chain has its
 * own portal and SystemConfig (a shared portal would deliver each deposit to every chain).
 */
function chainContractAddress(kind: number, chainId: bigint | number): Address {
  const id = BigInt(chainId).toString(16);
  if (id.length > 34) throw new Error(`chain id ${chainId} too large for a devnet contract address`);
  return `0xde90${kind.toString(16).padStart(2, "0")}${id.padStart(34, "0")}`;
}

/** The chain's deposit contract (OptimismPortal stand-in). */
export function depositContractAddress(chainId: bigint | number): Address {
  return chainContractAddress(1, chainId);
}

/** The chain's SystemConfig stand-in. */
export function systemConfigAddress(chainId: bigint | number): Address {
  return chainContractAddress(2, chainId);
}

/** The chain's ProtocolVersions address (no code is placed there; rollup configs need some address). */
export function protocolVersionsAddress(chainId: bigint | number): Address {
  return chainContractAddress(3, chainId);
}

export const TRANSACTION_DEPOSITED_TOPIC: Hash = keccak256(
  toBytes("TransactionDeposited(address,address,uint256,bytes)"),
);
export const CONFIG_UPDATE_TOPIC: Hash = keccak256(toBytes("ConfigUpdate(uint256,uint8,bytes)"));
export const UNSAFE_BLOCK_SIGNER_SLOT: Hash = "0x65a7ed542fb37fe237fdfbdd70b31598523fe5b32879e307bae27a0bd9581c08";
/** `depositTransaction(address,uint256,uint64,bool,bytes)` selector. */
export const DEPOSIT_TRANSACTION_SELECTOR: Hex = keccak256(
  toBytes("depositTransaction(address,uint256,uint64,bool,bytes)"),
).slice(0, 10) as Hex;

const ADDRESS_MASK: Hex = `0x${"ff".repeat(20)}`;
const ALIAS_OFFSET: Hex = "0x1111000000000000000000000000000000001111";

/**
 * OptimismPortal stand-in. Memory layout of the log data:
 * 0x00 offset(=0x20) | 0x20 opaque length | 0x40 mint | 0x60 value | 0x80 gasLimit (8 bytes) | 0x88 isCreation |
 * 0x89 data … zero padding to a 32-byte boundary.
 * Calldata (ABI): 0x04 to | 0x24 value | 0x44 gasLimit | 0x64 isCreation | 0x84 offset of data (from 0x04).
 */
export const DEPOSIT_CONTRACT_CODE: Hex = assemble([
  // require(selector == depositTransaction)
  push(0),
  "CALLDATALOAD",
  push(0xe0),
  "SHR",
  push(DEPOSIT_TRANSACTION_SELECTOR),
  "EQ",
  ref("ok"),
  "JUMPI",
  push(0),
  push(0),
  "REVERT",
  label("ok"),
  // fixed head of the log data
  push(0x20),
  push(0x00),
  "MSTORE", // mem[0x00] = 0x20
  "CALLVALUE",
  push(0x40),
  "MSTORE", // mem[0x40] = mint
  push(0x24),
  "CALLDATALOAD",
  push(0x60),
  "MSTORE", // mem[0x60] = value
  push(0x44),
  "CALLDATALOAD",
  push(0xc0),
  "SHL",
  push(0x80),
  "MSTORE", // mem[0x80..0x88) = gasLimit (u64 BE), rest of the word zero
  push(0x64),
  "CALLDATALOAD",
  push(0x88),
  "MSTORE8", // mem[0x88] = isCreation
  // data: lenPos = 4 + offset; dataLen = calldata[lenPos]
  push(0x84),
  "CALLDATALOAD",
  push(4),
  "ADD", // [lenPos]
  "DUP1",
  "CALLDATALOAD", // [lenPos, dataLen]
  "DUP1", // size
  "DUP3",
  push(0x20),
  "ADD", // source offset = lenPos + 32
  push(0x89), // dest
  "CALLDATACOPY", // [lenPos, dataLen]
  push(73),
  "ADD", // [lenPos, opaqueLen]
  "DUP1",
  push(0x20),
  "MSTORE", // mem[0x20] = opaqueLen
  // log size = 0x40 + ceil32(opaqueLen)
  push(31),
  "ADD",
  push(5),
  "SHR",
  push(5),
  "SHL",
  push(0x40),
  "ADD", // [lenPos, size]
  // topics: version 0, to, from
  push(0), // topic3 = version
  push(0x04),
  "CALLDATALOAD",
  push(ADDRESS_MASK),
  "AND", // topic2 = to
  "CALLER", // candidate topic1 = from
  "DUP1",
  "ORIGIN",
  "EQ",
  ref("noalias"),
  "JUMPI",
  push(ALIAS_OFFSET),
  "ADD",
  push(ADDRESS_MASK),
  "AND",
  label("noalias"), // [lenPos, size, 0, to, from]
  push(TRANSACTION_DEPOSITED_TOPIC),
  "DUP5", // size
  push(0), // offset
  "LOG4",
  "STOP",
]);

/** SystemConfig stand-in: calldata `updateType (word) ‖ payload`; emits ConfigUpdate(0, updateType, abi.encode(payload)). */
export const SYSTEM_CONFIG_CODE: Hex = assemble([
  push(0x20),
  push(0),
  "MSTORE", // mem[0x00] = 0x20 (ABI offset)
  push(0x20),
  "CALLDATASIZE",
  "SUB", // [plen]
  "DUP1",
  push(0x20),
  "MSTORE", // mem[0x20] = plen
  "DUP1", // size
  push(0x20), // source offset
  push(0x40), // dest
  "CALLDATACOPY", // [plen]
  push(0x40),
  "ADD", // [size]   (payloads are whole words, so no padding is needed)
  push(0),
  "CALLDATALOAD", // topic2 = updateType
  push(0), // topic1 = version 0
  push(CONFIG_UPDATE_TOPIC),
  "DUP4",
  push(0),
  "LOG3", // [size]
  "POP",
  // type 3: sstore(UNSAFE_BLOCK_SIGNER_SLOT, payload word)
  push(0),
  "CALLDATALOAD",
  push(3),
  "EQ",
  "ISZERO",
  ref("end"),
  "JUMPI",
  push(0x20),
  "CALLDATALOAD",
  push(UNSAFE_BLOCK_SIGNER_SLOT),
  "SSTORE",
  label("end"),
  "STOP",
]);

/** ConfigUpdate type numbers (`SystemConfig.UpdateType`). */
export const ConfigUpdateType = {
  batcher: 0,
  feeScalars: 1,
  gasLimit: 2,
  unsafeBlockSigner: 3,
  eip1559Params: 4,
  operatorFee: 5,
  minBaseFee: 6,
  daFootprintGasScalar: 7,
} as const;
export type ConfigUpdateTypeName = keyof typeof ConfigUpdateType;
