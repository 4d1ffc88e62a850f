/**
 * EIP-7702 set-code transactions in the simulated client's block builder (Isthmus = Prague rules): the authorization
 * list lands before the message (designator code, authority nonce bump, the refund for an existing authority under
 * the EIP-3529 cap), invalid authorizations are skipped without failing the transaction, calls to a delegated account
 * run the delegate's code in the account's context, the zero address clears a delegation; the pool refuses type 4
 * before Isthmus and without authorizations.
 */
import type { Hex as ViemHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { type Address, bytesToHex, type Hex, hexToBytes, ZERO_ADDRESS } from "supernode/core";
import { DEFAULT_EIP1559, buildBlock, makeGenesis } from "../../../src/el/block-builder.js";
import { createAddress } from "../../../src/el/executor.js";
import { poolRejection } from "../../../src/el/pool-rules.js";
import { decodeAnyTx } from "../../../src/el/tx-decode.js";
import type { ElForks, SimBlock } from "../../../src/el/types.js";
import { ALL_FORKS, ECOTONE_FORKS, GENESIS_TIME } from "../../support/el-support.js";

const key = (n: number): ViemHex => `0x${n.toString(16).padStart(2, "0").repeat(32)}`;
const sender = privateKeyToAccount(key(1));
const fresh = privateKeyToAccount(key(2));
const funded = privateKeyToAccount(key(3));
const other = privateKeyToAccount(key(4));
const lower = (a: string) => a.toLowerCase() as Address;
const BOB: Address = "0x00000000000000000000000000000000000000b0";
/** Runtime `ADDRESS PUSH0 SSTORE STOP` (slot 0 := the executing account) behind init code that returns it. */
const DELEGATE_INIT: ViemHex = "0x6004600a5f3960045ff3305f5500";
const fees = { chainId: 901, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000n } as const;

function chain(forks: ElForks) {
  const p = { chainId: 901n, forks, eip1559: DEFAULT_EIP1559 };
  const alloc = { [lower(sender.address)]: 10n ** 20n, [lower(funded.address)]: 10n ** 18n };
  let head = makeGenesis(p, { timestamp: GENESIS_TIME, gasLimit: 30_000_000n, alloc });
  return {
    p,
    get head(): SimBlock {
      return head;
    },
    async block(raws: ViemHex[]): Promise<SimBlock> {
      const txs = [];
      for (const r of raws) txs.push(await decodeAnyTx(hexToBytes(r as Hex)));
      head = await buildBlock(
        p,
        head,
        {
          timestamp: head.header.timestamp + 2,
          prevRandao: `0x${"ab".repeat(32)}`,
          suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
          withdrawals: [],
          parentBeaconBlockRoot: `0x${"cd".repeat(32)}`,
          transactions: [],
          noTxPool: false,
          gasLimit: 30_000_000n,
          ...(forks.holocene === undefined ? {} : { eip1559Params: "0x0000000000000000" as Hex }),
          ...(forks.jovian === undefined ? {} : { minBaseFee: 0n }),
        },
        txs,
      );
      return head;
    },
  };
}

const codeOf = (b: SimBlock, a: string): Hex => bytesToHex(b.state.code(lower(a))?.bytes ?? new Uint8Array(0));

describe("EIP-7702 set-code transactions (Isthmus)", () => {
  it("applies valid authorizations, skips invalid ones, refunds existing authorities; delegated calls run the delegate", async () => {
    const c = chain(ALL_FORKS);
    const delegate = createAddress(lower(sender.address), 0n);
    const deploy = await sender.signTransaction({ ...fees, nonce: 0, data: DELEGATE_INIT, gas: 100_000n });
    const auths = [
      await fresh.signAuthorization({ chainId: 901, address: delegate, nonce: 0 }), // valid, new account
      await other.signAuthorization({ chainId: 999, address: delegate, nonce: 0 }), // another chain: skipped
      await other.signAuthorization({ chainId: 901, address: delegate, nonce: 5 }), // wrong nonce: skipped
      await funded.signAuthorization({ chainId: 0, address: delegate, nonce: 0 }), // any chain, existing: refund
    ];
    const setCode = await sender.signTransaction({
      ...fees,
      type: "eip7702",
      nonce: 1,
      to: BOB,
      gas: 200_000n,
      authorizationList: auths,
    });
    const b1 = await c.block([deploy, setCode]);
    expect(b1.txs).toHaveLength(2);
    const r = b1.receipts[1]!;
    expect(r.status).toBe(1);
    // intrinsic 21000 + 4 × 25000; one existing authority refunds 12500 (under the cap, a fifth of 121000)
    expect(r.gasUsed).toBe(121_000n - 12_500n);
    const designator = `0xef0100${delegate.slice(2)}`;
    expect(codeOf(b1, fresh.address)).toBe(designator);
    expect(codeOf(b1, funded.address)).toBe(designator);
    expect(codeOf(b1, other.address)).toBe("0x");
    expect(b1.state.account(lower(fresh.address)).nonce).toBe(1n);
    expect(b1.state.account(lower(other.address)).nonce).toBe(0n);
    expect(b1.state.account(lower(sender.address)).nonce).toBe(2n);

    // a call to the delegated account runs the delegate's code with the account's storage
    const call = await sender.signTransaction({ ...fees, nonce: 2, to: fresh.address, gas: 100_000n });
    // the delegated account sends a transaction of its own (EIP-3607 lets a designator through)
    const own = await funded.signTransaction({ ...fees, nonce: 1, to: BOB, value: 1n, gas: 21_000n });
    const b2 = await c.block([call, own]);
    expect(b2.receipts.map((x) => x.status)).toEqual([1, 1]);
    expect(b2.state.storageAt(lower(fresh.address), `0x${"00".repeat(32)}`)).toBe(BigInt(fresh.address));
    expect(b2.state.storageAt(delegate, `0x${"00".repeat(32)}`)).toBe(0n);

    // self-sponsored: the sender's authorization carries its nonce after the transaction's own bump;
    // the zero address clears a delegation
    const self = await sender.signAuthorization({ chainId: 901, address: delegate, nonce: 4 });
    const clear = await fresh.signAuthorization({ chainId: 901, address: ZERO_ADDRESS, nonce: 1 });
    const tx3 = await sender.signTransaction({
      ...fees,
      type: "eip7702",
      nonce: 3,
      to: sender.address,
      gas: 200_000n,
      authorizationList: [self, clear],
    });
    const b3 = await c.block([tx3]);
    expect(b3.receipts[0]!.status).toBe(1);
    expect(codeOf(b3, sender.address)).toBe(designator);
    expect(b3.state.account(lower(sender.address)).nonce).toBe(5n);
    // the call to itself ran the delegate's code in the sender's account
    expect(b3.state.storageAt(lower(sender.address), `0x${"00".repeat(32)}`)).toBe(BigInt(sender.address));
    expect(codeOf(b3, fresh.address)).toBe("0x");
    expect(b3.state.account(lower(fresh.address)).nonce).toBe(2n);
  });

  it("the pool refuses set-code transactions before Isthmus and without authorizations", async () => {
    const auth = await fresh.signAuthorization({ chainId: 901, address: BOB, nonce: 0 });
    const tx = await decodeAnyTx(
      hexToBytes(
        (await sender.signTransaction({
          ...fees,
          type: "eip7702",
          nonce: 0,
          to: BOB,
          gas: 50_000n,
          authorizationList: [auth],
        })) as Hex,
      ),
    );
    const early = chain(ECOTONE_FORKS);
    for (const variant of ["a", "b"] as const)
      expect(poolRejection(variant, early.p, tx, early.head, early.head.state)?.message).toBe(
        "transaction type not supported",
      );
    // nor does an Ecotone block take one
    expect((await early.block([bytesToHex(tx.raw) as ViemHex])).txs).toHaveLength(0);
    const now = chain(ALL_FORKS);
    expect(poolRejection("b", now.p, tx, now.head, now.head.state)).toBeUndefined();
    const empty = { ...tx, authorizationList: [] };
    expect(poolRejection("b", now.p, empty, now.head, now.head.state)?.message).toBe(
      "EIP-7702 transaction with empty auth list",
    );
    // too little gas for its authorizations
    const low = { ...tx, gas: 40_000n };
    expect(poolRejection("b", now.p, low, now.head, now.head.state)?.message).toContain("intrinsic gas too low");
  });
});
