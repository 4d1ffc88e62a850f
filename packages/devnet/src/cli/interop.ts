/** `supernode-devnet --interop`: the status line the command prints beside the per-chain lines. */
import type { InteropTrafficStats } from "../interop-traffic.js";
import { rpcCall } from "../rpc-call.js";

interface InteropStatus {
  readonly state?: string;
  readonly verified_timestamp?: number | null;
  readonly last_decision?: string | null;
  readonly error?: string | null;
}

/** The supernode's `supernode_syncStatus.interop`, or undefined when it cannot be read. */
export async function interopStatus(rpcUrl: string): Promise<InteropStatus | undefined> {
  try {
    return (await rpcCall<{ interop?: InteropStatus } | null>(`${rpcUrl}/`, "supernode_syncStatus", [], 2_000))
      ?.interop;
  } catch {
    return undefined;
  }
}

/** `interop [waiting] verified 1795554012 (advance)  messages 12 valid, 2 invalid (1 replaced)` */
export function interopLine(st: InteropStatus | undefined, traffic: InteropTrafficStats | undefined): string {
  const head =
    st === undefined
      ? "interop [?]"
      : `interop [${st.state ?? "?"}] verified ${st.verified_timestamp ?? "-"} (${st.last_decision ?? "-"})`;
  const err = st?.error ? `  error: ${st.error}` : "";
  if (traffic === undefined) return `${head}${err}`;
  const invalid = Object.values(traffic.invalid).reduce((a, b) => a + b, 0);
  const inv = invalid === 0 ? "" : `, ${invalid} invalid (${traffic.invalidReplaced} replaced)`;
  return `${head}  messages ${traffic.executed} valid${inv}${err}`;
}
