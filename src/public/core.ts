/**
 * `supernode/core`: the primitives the supernode is built on (branded types, hex and quantity codecs, the logger
 * interface, the injected clock, the serial queue, the error base class with its severity). Public: the devnet
 * package and library users import these and nothing below `src/`.
 */
export * from "../core/async/serial-queue.js";
export * from "../core/codec/hex.js";
export * from "../core/codec/quantity.js";
export * from "../core/errors/supernode-error.js";
export * from "../core/logger.js";
export * from "../core/time/clock.js";
export * from "../core/types/primitives.js";
