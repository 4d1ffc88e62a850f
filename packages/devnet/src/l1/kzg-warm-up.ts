/**
 * Anvil loads its KZG trusted setup when it is sent its first blob transaction, and answers no RPC call while it
 * does (seconds; tens of seconds on a loaded machine: long enough for L1 clients to time out). `warmUpAnvilKzg`
 * makes it load the setup at a moment of the caller's choosing, without changing any state: it submits a blob
 * transaction from an unfunded key, carrying the all-zero blob (whose KZG commitment and proof are both the point
 * at infinity, so no KZG library is needed here). Anvil checks the blob, then rejects the transaction for lack of
 * funds.
 */
import { commitmentToVersionedHash, keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "supernode/core";
import type { Anvil } from "./anvil.js";
import { HttpRpcClient, RpcCallError } from "supernode/json-rpc";

/** Compressed G1 point at infinity: the KZG commitment and proof of the zero polynomial. */
const G1_INFINITY: Hex = `0xc0${"00".repeat(47)}`;
const ZERO_BLOB: Hex = `0x${"00".repeat(131_072)}`;
/** A key no devnet account uses (never funded). */
const WARM_UP_KEY = keccak256(toHex("supernode devnet: anvil KZG warm-up"));

/** Resolves once anvil has loaded its KZG setup (it rejects the probe transaction). */
export async function warmUpAnvilKzg(anvil: Anvil, timeoutMs = 180_000): Promise<void> {
  const account = privateKeyToAccount(WARM_UP_KEY);
  const raw = await account.signTransaction({
    type: "eip4844",
    chainId: anvil.chainId,
    nonce: 0,
    to: account.address,
    gas: 21_000n,
    maxFeePerGas: 1_000_000_000n,
    maxPriorityFeePerGas: 1n,
    maxFeePerBlobGas: 1_000_000_000n,
    blobVersionedHashes: [commitmentToVersionedHash({ commitment: G1_INFINITY })],
    sidecars: [{ blob: ZERO_BLOB, commitment: G1_INFINITY, proof: G1_INFINITY }],
  });
  const rpc = new HttpRpcClient({ url: anvil.rpcUrl, timeoutMs });
  try {
    await rpc.call("eth_sendRawTransaction", [raw]);
  } catch (err) {
    if (err instanceof RpcCallError) return; // rejected after the blob check: the setup is loaded
    throw err;
  }
  throw new Error("anvil accepted the KZG warm-up transaction from an unfunded account");
}
