/**
 * Fixed loopback ports of the devnet's execution clients, so that a developer's scripts and wallets keep working
 * across restarts: from a base `B` (`--el.port`, default 9000), the `k`-th chain (0-based; chain 901 is the first)
 * serves HTTP JSON-RPC on `B + 10·(k+1)`, WebSocket on `+1` and the Engine API on `+2` — chain 901 on 9010, 9011,
 * 9012, chain 902 on 9020, 9021, 9022, … A base of 0 takes any free ports.
 */
export const DEFAULT_EL_PORT_BASE = 9000;

export interface ElPorts {
  readonly http: number;
  readonly ws: number;
  readonly auth: number;
}

export const ANY_PORTS: ElPorts = { http: 0, ws: 0, auth: 0 };

export function elPorts(base: number, chainIndex: number): ElPorts {
  if (base === 0) return ANY_PORTS;
  const http = base + 10 * (chainIndex + 1);
  if (http + 2 > 65_535) throw new Error(`--el.port ${base} leaves no ports for chain #${chainIndex + 1}`);
  return { http, ws: http + 1, auth: http + 2 };
}

function addressInUse(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "EADDRINUSE";
}

/**
 * Starts something on `ports`; when one of them is taken (another devnet, another program), starts it on free ports
 * instead and tells `onBusy` (the banner prints the ports actually used).
 */
export async function startOnPorts<T>(
  ports: ElPorts,
  start: (p: ElPorts) => Promise<T>,
  onBusy: (err: Error) => void,
): Promise<T> {
  try {
    return await start(ports);
  } catch (err) {
    if (ports === ANY_PORTS || !addressInUse(err)) throw err;
    onBusy(err as Error);
    return start(ANY_PORTS);
  }
}
