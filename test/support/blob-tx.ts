/**
 * Test helper: send a real EIP-4844 blob transaction to an anvil L1 with viem + c-kzg (the first dev account),
 * and wait for it to be mined. Returns the block it landed in and the blobs' versioned hashes.
 */
import cKzg from "c-kzg";
import { createWalletClient, defineChain, http, publicActions, toBlobs, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

let kzgLoaded = false;
export function loadKzg(): typeof cKzg {
  if (!kzgLoaded) {
    try {
      cKzg.loadTrustedSetup(0);
    } catch {
      // already loaded by another module in this process
    }
    kzgLoaded = true;
  }
  return cKzg;
}

/** Anvil's first dev account (mnemonic "test test ... junk"). */
export const DEV_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

export interface SentBlobTx {
  readonly txHash: Hex;
  readonly blockHash: Hex;
  readonly blockNumber: number;
  readonly versionedHashes: readonly Hex[];
  readonly blobs: readonly Hex[];
}

export async function sendBlobTx(rpcUrl: string, chainId: number, payload: Hex): Promise<SentBlobTx> {
  const kzg = loadKzg();
  const chain = defineChain({
    id: chainId,
    name: "anvil-l1",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createWalletClient({
    account: privateKeyToAccount(DEV_KEY),
    chain,
    transport: http(rpcUrl, { timeout: 60_000 }),
  }).extend(publicActions);
  const blobs = toBlobs({ data: payload });
  const txHash = await client.sendTransaction({
    blobs,
    kzg: { blobToKzgCommitment: kzg.blobToKzgCommitment, computeBlobKzgProof: kzg.computeBlobKzgProof },
    maxFeePerBlobGas: 10_000_000_000n,
    to: "0xff00000000000000000000000000000000000901",
  } as never);
  const receipt = await client.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 });
  const tx = await client.getTransaction({ hash: txHash });
  return {
    txHash,
    blockHash: receipt.blockHash,
    blockNumber: Number(receipt.blockNumber),
    versionedHashes: (tx.blobVersionedHashes ?? []) as Hex[],
    blobs: blobs as Hex[],
  };
}

/** Sends a plain value transfer from the dev account and returns its hash (automine mines it). */
export async function sendTransfer(rpcUrl: string, chainId: number, to: Hex, value: bigint): Promise<Hex> {
  const chain = defineChain({
    id: chainId,
    name: "anvil-l1",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createWalletClient({ account: privateKeyToAccount(DEV_KEY), chain, transport: http(rpcUrl) });
  return client.sendTransaction({ to, value } as never);
}
