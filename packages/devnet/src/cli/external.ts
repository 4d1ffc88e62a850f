import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Devnet } from "../devnet.js";
import { dependencySetPath } from "./supernode.js";

/**
 * `supernode-devnet --supernode-process external`: the devnet runs without a supernode of its own, for one started
 * elsewhere (a container: `npm run image`). What that supernode needs goes to `<dir>/supernode.json`: its arguments
 * (the child mode's, without `--data-dir`: the data directory is the caller's) and the files they name, which a
 * container mounts read-only at the same paths.
 */
export interface ExternalSupernodeFile {
  readonly chains: readonly number[];
  /** The JSON-RPC and metrics base URLs the arguments give the supernode (loopback). */
  readonly rpc: string;
  readonly metrics: string;
  readonly args: readonly string[];
  /** JWT secrets, rollup configs and the dependency set (with Interop). */
  readonly files: readonly string[];
}

/** `args` without `--data-dir <dir>`. */
function withoutDataDir(args: readonly string[]): string[] {
  const i = args.indexOf("--data-dir");
  return i < 0 ? [...args] : [...args.slice(0, i), ...args.slice(i + 2)];
}

/** Writes `<dir>/supernode.json` and returns its path. */
export function writeExternalSupernodeFile(
  dir: string,
  devnet: Devnet,
  args: readonly string[],
  ports: { rpc: number; metrics: number },
): string {
  const files = devnet.chains.flatMap((c) => [c.jwtSecretPath, c.rollupConfigPath]);
  if (args.includes("--dependency-set")) files.push(dependencySetPath(dir));
  const file: ExternalSupernodeFile = {
    chains: devnet.chains.map((c) => Number(c.chainId)),
    rpc: `http://127.0.0.1:${ports.rpc}`,
    metrics: `http://127.0.0.1:${ports.metrics}`,
    args: withoutDataDir(args),
    files,
  };
  const path = join(dir, "supernode.json");
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  return path;
}
