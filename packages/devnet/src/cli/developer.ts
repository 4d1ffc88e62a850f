import type { Devnet } from "../devnet.js";
import { devAccountsSummary } from "../l1/dev-accounts.js";

/** Execution clients listed one per line in the banner; past this many, `devnet.json` has the rest. */
const LISTED_CLIENTS = 16;

/** The banner's execution-client lines: each chain's JSON-RPC (HTTP, with CORS) and WebSocket URL. */
export function describeExecutionClients(devnet: Pick<Devnet, "chains">, out: (s: string) => void): void {
  for (const c of devnet.chains.slice(0, LISTED_CLIENTS)) {
    out(`chain ${c.chainId} execution client  ${c.el.httpUrl}   WebSocket ${c.el.wsUrl ?? "-"}`);
  }
  const rest = devnet.chains.length - LISTED_CLIENTS;
  if (rest > 0) out(`… and ${rest} more execution clients (<dir>/devnet.json)`);
}

/** The banner's dev accounts: address and private key of each, funded on L1 and on every L2. */
export function describeDevAccounts(out: (s: string) => void, l2BalanceWei = 10n ** 22n): void {
  const s = devAccountsSummary(l2BalanceWei);
  const eth = l2BalanceWei / 10n ** 18n;
  out(`dev accounts      ${eth} ETH each on every L2 (and on L1); mnemonic "${s.mnemonic}"`);
  for (const a of s.accounts) out(`  #${a.index} ${a.address}  key ${a.privateKey}`);
  out(`  (${s.usedByTheDevnet})`);
}
