/**
 * The interop devnet (`supernode-devnet --interop`): every devnet chain in one dependency set, Interop scheduled
 * (at genesis unless the fork offsets say when), the dependency-set file the supernode reads (`--dependency-set`),
 * and the cross-chain message traffic (`interop-traffic.ts`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Clock, Logger } from "supernode/core";
import { FORKS, type Fork } from "supernode/protocol";
import { devnetForkOffsets } from "./config.js";
import type { Devnet } from "./devnet.js";
import { InteropTraffic } from "./interop-traffic.js";

/**
 * The interop devnet's message expiry window (the dependency set's `overrideMessageExpiryWindow`): 60 s instead of
 * the protocol's 7 days, so the traffic can send a genuinely expired message a minute or two after start.
 */
export const DEVNET_MESSAGE_EXPIRY_WINDOW = 60;

export interface DevnetInteropOptions {
  /** Send cross-chain messages (default true). */
  readonly traffic?: boolean;
  /** Also send an invalid message every `invalidEveryBlocks` blocks (default false). */
  readonly invalidMessages?: boolean;
  /** A valid round every this many blocks (default 3). */
  readonly everyBlocks?: number;
  /** Default 20. */
  readonly invalidEveryBlocks?: number;
  /** Default `DEVNET_MESSAGE_EXPIRY_WINDOW`. */
  readonly messageExpiryWindowSec?: number;
}

type Offsets = Partial<Record<Fork, number | undefined>>;

/**
 * A fork schedule with Interop scheduled: as given when it already is, else at the latest earlier fork's offset
 * (at genesis by default), with Karst alongside when it is off.
 */
export function withInterop(offsets: Offsets | undefined): Offsets {
  if (offsets === undefined) return devnetForkOffsets({ lagoon: 0 });
  if (offsets.lagoon !== undefined) return offsets;
  let at = 0;
  for (const f of FORKS) {
    if (f === "karst" || f === "lagoon") continue;
    const t = offsets[f];
    if (t !== undefined) at = Math.max(at, t);
  }
  return { ...offsets, karst: offsets.karst ?? at, lagoon: Math.max(at, offsets.karst ?? at) };
}

/** The dependency-set document (op-node depset JSON) of the devnet's chains. */
export function dependencySetJson(chainIds: readonly bigint[], expiryWindowSec: number): string {
  const dependencies = Object.fromEntries(chainIds.map((id) => [id.toString(10), {}]));
  return `${JSON.stringify({ dependencies, overrideMessageExpiryWindow: expiryWindowSec }, null, 2)}\n`;
}

export async function writeDependencySet(path: string, chainIds: readonly bigint[], expiryWindowSec: number) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, dependencySetJson(chainIds, expiryWindowSec));
}

/** The interop activation timestamp of a devnet (every chain has the same one). */
export function devnetInteropActivation(devnet: Devnet): number {
  const t = devnet.chains[0]?.rollupConfig.lagoon_time;
  if (t === undefined) throw new Error("interop is not scheduled on this devnet");
  return t;
}

/** Starts the message traffic of an interop devnet (not before Interop is active; see InteropTraffic). */
export function startInteropTraffic(
  devnet: Devnet,
  opts: DevnetInteropOptions,
  deps: { logger: Logger; clock?: Clock },
): InteropTraffic {
  const traffic = new InteropTraffic(
    {
      chains: devnet.chains.map((c) => ({
        chainId: c.chainId,
        rpcUrl: c.el.httpUrl,
        blockTime: c.rollupConfig.block_time,
        genesis: { number: c.rollupConfig.genesis.l2.number, timestamp: c.rollupConfig.genesis.l2_time },
      })),
      activation: devnetInteropActivation(devnet),
      expiryWindow: opts.messageExpiryWindowSec ?? DEVNET_MESSAGE_EXPIRY_WINDOW,
      ...(opts.everyBlocks === undefined ? {} : { everyBlocks: opts.everyBlocks }),
      ...(opts.invalidMessages === true ? { invalidEveryBlocks: opts.invalidEveryBlocks ?? 20 } : {}),
    },
    deps,
  );
  traffic.start();
  return traffic;
}
