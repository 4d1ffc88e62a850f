/**
 * The devnet outside the container: `supernode-devnet --supernode-process external` (anvil L1, simulated execution
 * clients, batchers; no supernode of its own) in a process group of ours. When it is up it writes
 * `<dir>/supernode.json` (the arguments an external supernode needs and the files they name) and prints its path.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** What the devnet writes for an external supernode (packages/devnet: `--supernode-process external`). */
export interface ExternalSupernode {
  readonly chains: readonly number[];
  /** The supernode's JSON-RPC and metrics base URLs on loopback, as its arguments set them. */
  readonly rpc: string;
  readonly metrics: string;
  /** Arguments for the supernode, without `--data-dir`. */
  readonly args: readonly string[];
  /** Files the arguments name (JWT secrets, rollup configs, dependency set): mount them read-only. */
  readonly files: readonly string[];
}

export interface DevnetProcess {
  readonly ready: Promise<ExternalSupernode>;
  /** SIGINT to its process group, SIGKILL after 20 s; resolves when it has exited. */
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr !== null ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export function startDevnet(
  root: string,
  dir: string,
  o: { chains: number; rpcPort: number; metricsPort: number },
  log: NodeJS.WritableStream,
): DevnetProcess {
  const args = [
    join(root, "packages/devnet/bin/supernode-devnet.js"),
    "--supernode-process",
    "external",
    "--dir",
    dir,
    "--chains",
    String(o.chains),
    "--rpc.port",
    String(o.rpcPort),
    "--metrics.port",
    String(o.metricsPort),
    "--l1-block-time",
    "1",
    "--l2-block-time",
    "1",
  ];
  const child = spawn(process.execPath, args, { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<ExternalSupernode>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      log.write(`devnet: ${line}\n`);
      const m = /^external supernode: (\S+)$/.exec(line);
      if (m !== null) resolve(JSON.parse(readFileSync(m[1] as string, "utf8")) as ExternalSupernode);
    });
    void exited.then(() => reject(new Error("the devnet exited before it was ready")));
  });
  const signal = (s: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, s);
    } catch {
      // already gone
    }
  };
  return {
    ready,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signal("SIGINT");
      const timer = setTimeout(() => signal("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
      signal("SIGKILL"); // anything of the group that outlived its parent
    },
  };
}
