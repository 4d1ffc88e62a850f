/**
 * Process of the `p2p` benchmark that hosts follower execution clients: on each `start` message over IPC it starts
 * a simulated execution client of that chain from the chain's genesis and answers `started` with its URLs; it
 * reports every head change of its clients ({@link HeadReport}, timed with {@link machineMs}) and answers `loop`
 * with its event-loop delay. The bench runs one per chain, as an operator runs one execution client per chain.
 * Usage: node --import tsx bench/p2p/el-proc.ts (prints `READY {}`, then serves IPC until SIGTERM)
 */
// First: the product entry installs the Promise.withResolvers polyfill libp2p needs on Node 20.
import "supernode";
import { silentLogger, systemClock } from "supernode/core";
import { type SimulatedElOptions, SimulatedExecutionClient } from "supernode-devnet/el";
import { fromJson, type HeadReport, machineMs, serveHostProcess } from "./procs.js";

/** `start`: the chain (bigints kept by `toJson`) and its JWT secret in hex. */
export interface StartEl {
  readonly kind: "start";
  readonly json: string;
}

export interface StartedEl {
  readonly kind: "started";
  readonly chainId: string;
  readonly httpUrl?: string;
  readonly authUrl?: string;
  readonly genesisHash?: string;
  readonly error?: string;
}

const els: SimulatedExecutionClient[] = [];
serveHostProcess(async () => {
  for (const el of els) await el.stop().catch(() => {});
});
process.on("message", (m) => {
  if ((m as StartEl).kind !== "start") return;
  const spec = fromJson<{
    chainId: bigint;
    variant: "a" | "b";
    genesis: SimulatedElOptions["genesis"];
    jwtHex: string;
  }>((m as StartEl).json);
  void (async () => {
    try {
      const el = await SimulatedExecutionClient.start(
        {
          variant: spec.variant,
          chainId: spec.chainId,
          genesis: spec.genesis,
          http: { port: 0, api: ["eth", "net", "web3", "txpool", "debug"] },
          authrpc: { port: 0, jwtSecret: new Uint8Array(Buffer.from(spec.jwtHex, "hex")) },
        },
        { logger: silentLogger, clock: systemClock },
      );
      els.push(el);
      const chain = Number(spec.chainId);
      el.core.chain.onHeadChange((h) => {
        const t = machineMs();
        for (const b of h.added) {
          const r: HeadReport = { kind: "head", chain, number: b.header.number, hash: b.hash, t };
          process.send?.(r);
        }
      });
      const r: StartedEl = {
        kind: "started",
        chainId: spec.chainId.toString(10),
        httpUrl: el.httpUrl,
        authUrl: el.authUrl,
        genesisHash: el.genesisHash,
      };
      process.send?.(r);
    } catch (err) {
      process.send?.({ kind: "started", chainId: spec.chainId.toString(10), error: String(err) } satisfies StartedEl);
    }
  })();
});
process.stdout.write("READY {}\n");
