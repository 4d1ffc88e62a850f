/**
 * The block-start system calls (EIP-4788 beacon roots, EIP-2935 block hash history) write exactly what the
 * contracts' bytecode writes when the system address calls it: the same state root over blocks whose timestamps and
 * numbers wrap the 8191-entry rings; and the bytecode then answers reads with the stored values.
 */
import { describe, expect, it } from "vitest";
import { type Address, type Hash, type Hex, hexToBytes, ZERO_ADDRESS, ZERO_HASH } from "supernode/core";
import { keccakHex } from "supernode/protocol";
import { evmBlockEnv } from "../../../src/el/evm/block-env.js";
import { EvmSession } from "../../../src/el/evm/evm-session.js";
import {
  addSystemContracts,
  applySystemCalls,
  BEACON_ROOTS_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  SYSTEM_ADDRESS,
} from "../../../src/el/evm/system-contracts.js";
import { LedgerState, LedgerWriter } from "../../../src/el/ledger.js";

const FORKS = { canyon: true, ecotone: true, fjord: true, isthmus: true, jovian: true, karst: false };

function session(w: LedgerWriter, number: number, timestamp: number): EvmSession {
  return new EvmSession(
    w,
    evmBlockEnv(
      {
        chainId: 901n,
        number,
        timestamp,
        coinbase: ZERO_ADDRESS,
        gasLimit: 30_000_000n,
        baseFee: 0n,
        prevRandao: ZERO_HASH,
        blockHash: () => undefined,
      },
      FORKS,
      () => undefined,
    ),
  );
}

const word = (v: bigint | number): Hex => `0x${BigInt(v).toString(16).padStart(64, "0")}`;

describe("system contracts: the native block-start writes equal the bytecode's", () => {
  it("same state roots over blocks wrapping the rings; reads through the bytecode return the stored values", async () => {
    const g = new LedgerWriter(LedgerState.empty());
    addSystemContracts(g, { ecotone: true, isthmus: true });
    let native = g.seal();
    let evm = native;
    const blocks = [
      { number: 1, timestamp: 8190 },
      { number: 8191, timestamp: 8191 * 3 + 7 },
      { number: 8192, timestamp: 8191 * 3 + 9 },
      { number: 8193, timestamp: 8191 * 4 + 7 },
    ];
    for (const b of blocks) {
      const parentHash = keccakHex(hexToBytes(word(b.number)));
      const root = keccakHex(hexToBytes(word(b.timestamp)));
      const nw = new LedgerWriter(native);
      applySystemCalls(nw, { ...b, parentHash, parentBeaconBlockRoot: root }, { ecotone: true, isthmus: true });
      native = nw.seal();
      const ew = new LedgerWriter(evm);
      const s = session(ew, b.number, b.timestamp);
      for (const [to, input] of [
        [BEACON_ROOTS_ADDRESS, root],
        [HISTORY_STORAGE_ADDRESS, parentHash],
      ] as const) {
        const o = await s.run(
          { from: SYSTEM_ADDRESS, to, value: 0n, input, gas: 30_000_000n, gasPrice: 0n },
          { keep: true },
        );
        expect(o.success).toBe(true);
      }
      evm = ew.seal();
      expect(native.stateRoot()).toBe(evm.stateRoot());
    }
    // the contracts answer from what was stored: the root of a stored timestamp, the hash of a recent block
    const last = blocks.at(-1)!;
    const reader = session(new LedgerWriter(native), last.number + 1, last.timestamp + 2);
    const read = (to: Address, input: Hash) =>
      reader.run(
        { from: "0x00000000000000000000000000000000000000aa", to, value: 0n, input, gas: 100_000n, gasPrice: 0n },
        { keep: false },
      );
    expect((await read(BEACON_ROOTS_ADDRESS, word(last.timestamp))).output).toBe(
      keccakHex(hexToBytes(word(last.timestamp))),
    );
    // an overwritten ring entry (8191·3 + 7 shares its slot with 8191·4 + 7) is refused
    expect((await read(BEACON_ROOTS_ADDRESS, word(8191 * 3 + 7))).success).toBe(false);
    expect((await read(HISTORY_STORAGE_ADDRESS, word(last.number - 1))).output).toBe(
      keccakHex(hexToBytes(word(last.number))),
    );
    // the current block's own hash is not served
    expect((await read(HISTORY_STORAGE_ADDRESS, word(last.number + 1))).success).toBe(false);
  });
});
