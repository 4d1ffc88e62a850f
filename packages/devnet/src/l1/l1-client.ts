/**
 * viem clients for the devnet L1 and a per-account serialised transaction sender (local signing, so nonces never
 * race when several helpers send from one account). Blob transactions use c-kzg with its bundled trusted setup.
 */
import cKzg from "c-kzg";
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Kzg,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import { type Address, type Hash, type Hex, SerialQueue } from "supernode/core";
import { devAccount } from "./dev-accounts.js";

let kzgLoaded = false;

/** c-kzg with the trusted setup loaded once per process, in the shape viem wants. */
export function devnetKzg(): Kzg {
  if (!kzgLoaded) {
    try {
      cKzg.loadTrustedSetup(0);
    } catch (err) {
      // already loaded by someone else in this process
      if (!String(err).includes("already loaded")) throw err;
    }
    kzgLoaded = true;
  }
  return {
    blobToKzgCommitment: (blob) => cKzg.blobToKzgCommitment(blob),
    computeBlobKzgProof: (blob, commitment) => cKzg.computeBlobKzgProof(blob, commitment),
  };
}

export interface SendTxRequest {
  readonly to: Address;
  readonly data?: Hex;
  readonly value?: bigint;
  readonly gas?: bigint;
  /** Blob payloads (131072-byte blobs, already field-element encoded). Makes a type-3 transaction. */
  readonly blobs?: readonly Hex[];
  /** Explicit nonce (default: the account's pending transaction count). */
  readonly nonce?: number;
  /** Explicit EIP-1559 fees (default: viem's estimate); set both or neither. */
  readonly fees?: { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint };
  /** Explicit blob fee cap (default: twice the current blob base fee plus 1 gwei). */
  readonly maxFeePerBlobGas?: bigint;
}

export class L1Client {
  readonly chain: Chain;
  readonly public: PublicClient;
  readonly wallet: WalletClient;
  private readonly queues = new Map<Address, SerialQueue>();

  constructor(
    readonly rpcUrl: string,
    chainId: number,
    pollingIntervalMs = 100,
  ) {
    this.chain = defineChain({
      id: chainId,
      name: "devnet-l1",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    this.public = createPublicClient({
      chain: this.chain,
      transport: http(rpcUrl, { timeout: 120_000 }),
      pollingInterval: pollingIntervalMs,
    });
    this.wallet = createWalletClient({
      chain: this.chain,
      transport: http(rpcUrl, { timeout: 120_000 }),
      pollingInterval: pollingIntervalMs,
    });
  }

  /** Signs and submits from dev account `accountIndex`; returns the tx hash once the node accepted it. */
  async send(accountIndex: number, req: SendTxRequest): Promise<Hash> {
    const acct = devAccount(accountIndex);
    let q = this.queues.get(acct.address);
    if (q === undefined) {
      q = new SerialQueue();
      this.queues.set(acct.address, q);
    }
    return q.run(async () => {
      const base = {
        account: acct.account,
        chain: this.chain,
        to: req.to,
        data: req.data ?? "0x",
        value: req.value ?? 0n,
        ...(req.gas === undefined ? {} : { gas: req.gas }),
        ...(req.nonce === undefined ? {} : { nonce: req.nonce }),
        ...(req.fees === undefined ? {} : req.fees),
      };
      if (req.blobs !== undefined && req.blobs.length > 0) {
        const maxFeePerBlobGas = req.maxFeePerBlobGas ?? (await this.public.getBlobBaseFee()) * 2n + 1_000_000_000n;
        return this.wallet.sendTransaction({
          ...base,
          blobs: req.blobs as Hex[],
          kzg: devnetKzg(),
          maxFeePerBlobGas,
          type: "eip4844",
        });
      }
      return this.wallet.sendTransaction(base);
    });
  }

  async waitReceipt(hash: Hash, timeoutMs = 60_000): Promise<TransactionReceipt> {
    return this.public.waitForTransactionReceipt({ hash, timeout: timeoutMs });
  }

  /** `send` then wait for the receipt; throws when the transaction reverted. */
  async sendAndWait(accountIndex: number, req: SendTxRequest): Promise<TransactionReceipt> {
    const receipt = await this.waitReceipt(await this.send(accountIndex, req));
    if (receipt.status !== "success") throw new Error(`L1 transaction ${receipt.transactionHash} reverted`);
    return receipt;
  }
}
