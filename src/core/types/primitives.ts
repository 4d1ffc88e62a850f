/** `0x`-prefixed hex string. */
export type Hex = `0x${string}`;
/** 32-byte hash as `0x` + 64 lowercase hex digits. */
export type Hash = Hex;
/** 20-byte address as `0x` + 40 hex digits (lowercase unless stated). */
export type Address = Hex;

/** Chain IDs are kept as bigint internally and rendered base-10 in paths, labels and URLs. */
export type ChainId = bigint;

export const ZERO_HASH: Hash = `0x${"00".repeat(32)}`;
export const ZERO_ADDRESS: Address = `0x${"00".repeat(20)}`;
