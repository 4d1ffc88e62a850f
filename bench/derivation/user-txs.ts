/**
 * User transactions for the derivation benchmark: OP Mainnet density (a mid-2024 OP Mainnet span batch holds 1,766
 * transactions in 143 blocks, about 12 per block), every signed type the simulated EL accepts (legacy with EIP-155,
 * EIP-2930, EIP-1559, EIP-7702; no blob transactions on L2), calldata of varying length, from several senders.
 */
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "supernode/core";

export const TXS_PER_BLOCK = 12;
const SENDERS = Array.from({ length: 16 }, (_, i) =>
  privateKeyToAccount(`0x${(i + 1).toString(16).padStart(2, "0").repeat(32)}`),
);
const DELEGATE = privateKeyToAccount(`0x${"cd".repeat(32)}`);
// Per block: 8 EIP-1559, 2 legacy, 1 EIP-2930, 1 EIP-7702 (roughly OP Mainnet's mix, every type present).
const MIX = [
  "eip1559",
  "eip1559",
  "legacy",
  "eip1559",
  "eip1559",
  "eip2930",
  "eip1559",
  "eip1559",
  "legacy",
  "eip1559",
  "eip1559",
  "eip7702",
] as const;

/** `--alloc` entries funding every sender. */
export const userTxAlloc = (): string[] => SENDERS.map((a) => `${a.address}=${10n ** 24n}`);
export const userTxAllocRecord = (): Record<string, bigint> =>
  Object.fromEntries(SENDERS.map((a) => [a.address.toLowerCase(), 10n ** 24n]));

/** Deterministic pseudo-random calldata: 0–600 bytes, a selector and ABI-like words (zero-padded). */
function calldata(seed: number): Hex {
  let x = (seed * 2654435761) >>> 0;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const words = next() % 19; // 0–18 words of 32 bytes, mean ~9 → ~300 bytes
  if (words === 0) return "0x";
  let s = next().toString(16).padStart(8, "0");
  for (let w = 0; w < words; w++) s += (next() % 3 === 0 ? "" : next().toString(16)).padStart(64, "0");
  return `0x${s}`;
}

export class UserTxSource {
  private readonly nonces = new Array<number>(SENDERS.length).fill(0);
  private seq = 0;

  /** Signed raw transactions for one L2 block (chain id 901). */
  async nextBlock(): Promise<Hex[]> {
    const out: Hex[] = [];
    for (const type of MIX) {
      const i = this.seq % SENDERS.length;
      const acct = SENDERS[i]!;
      const nonce = this.nonces[i]!++;
      const seed = this.seq++;
      const to = `0x${(seed * 7919).toString(16).padStart(40, "0").slice(-40)}` as Hex;
      const data = calldata(seed);
      const base = { chainId: 901, nonce, to, value: BigInt(seed % 5) * 10n ** 15n, data, gas: 300_000n };
      const fees = { maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000n };
      const accessList = [
        { address: to, storageKeys: [`0x${"00".repeat(31)}${(seed % 256).toString(16).padStart(2, "0")}` as Hex] },
      ];
      if (type === "legacy") out.push(await acct.signTransaction({ ...base, type, gasPrice: 2_000_000_000n }));
      else if (type === "eip2930")
        out.push(await acct.signTransaction({ ...base, type, gasPrice: 2_000_000_000n, accessList }));
      else if (type === "eip1559")
        out.push(await acct.signTransaction({ ...base, type, ...fees, ...(seed % 3 === 0 ? { accessList } : {}) }));
      else {
        const authorization = await DELEGATE.signAuthorization({ chainId: 901, address: to, nonce: 0 });
        out.push(await acct.signTransaction({ ...base, type, ...fees, authorizationList: [authorization] }));
      }
    }
    return out;
  }
}

/** Sends transactions to an EL's HTTP JSON-RPC in one batch request; throws on any error. */
export async function sendRawBatch(url: string, raws: readonly Hex[]): Promise<void> {
  const body = raws.map((raw, id) => ({ jsonrpc: "2.0", id, method: "eth_sendRawTransaction", params: [raw] }));
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const out = (await res.json()) as { error?: { message: string } }[];
  const bad = out.find((r) => r.error !== undefined);
  if (bad !== undefined) throw new Error(`derivation bench: eth_sendRawTransaction failed: ${bad.error!.message}`);
}
