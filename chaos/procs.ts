/**
 * Child processes of the chaos run. Each runs in its own process group (`detached`), so a signal to `-pid` reaches
 * it and anything it started; every group is killed (SIGKILL) when the harness exits, also on failure. Output goes
 * to `<dir>/<name>.log`. An exit the harness did not ask for is counted as a crash.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Set once the process exited. */
  exited: boolean;
  /** The harness ended it (kill -9, stop): not a crash. */
  expectedExit: boolean;
  readonly exit: Promise<void>;
  /** First stdout line (the JSON the simulated EL prints). */
  readonly firstLine: Promise<string>;
}

const live = new Set<Proc>();
let hooked = false;

function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const p of live) if (!p.exited) killGroup(p.pid, "SIGCONT");
    for (const p of live) if (!p.exited) killGroup(p.pid, "SIGKILL");
  };
  process.on("exit", killAll);
  for (const sig of ["SIGINT", "SIGTERM"] as const)
    process.on(sig, () => {
      killAll();
      process.exit(sig === "SIGINT" ? 130 : 143);
    });
}

export class ProcSet {
  /** Unexpected exits of the given processes (by name prefix). */
  readonly crashes: string[] = [];

  constructor(readonly dir: string) {
    hookExit();
  }

  start(name: string, args: readonly string[], env: Record<string, string> = {}): Proc {
    const child = spawn(process.execPath, args, {
      detached: true,
      // the IPC channel ties it to the harness: it stops when the harness ends, however it ends (endWithParent)
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env: { ...process.env, ...env },
    });
    if (child.pid === undefined) throw new Error(`could not start ${name}`);
    const log = createWriteStream(join(this.dir, `${name}.log`), { flags: "a" });
    log.write(`--- start pid ${child.pid} at ${new Date().toISOString()}\n`);
    child.stderr?.pipe(log, { end: false });
    let firstResolve: (s: string) => void = () => {};
    const firstLine = new Promise<string>((r) => {
      firstResolve = r;
    });
    let buf = "";
    let sawFirst = false;
    child.stdout?.on("data", (c: Buffer) => {
      log.write(c);
      if (sawFirst) return;
      buf += c.toString("utf8");
      const i = buf.indexOf("\n");
      if (i >= 0) {
        sawFirst = true;
        firstResolve(buf.slice(0, i));
      }
    });
    const p: Proc = {
      name,
      child,
      pid: child.pid,
      exited: false,
      expectedExit: false,
      firstLine,
      exit: new Promise<void>((resolve) => {
        child.once("exit", (code, signal) => {
          p.exited = true;
          live.delete(p);
          log.write(`--- exit code ${code} signal ${signal}\n`);
          log.end();
          if (!p.expectedExit) this.crashes.push(`${name} (code ${code}, signal ${signal})`);
          resolve();
        });
      }),
    };
    live.add(p);
    return p;
  }

  /** `kill -9` of the process group; resolves once it exited. */
  async kill9(p: Proc): Promise<void> {
    if (p.exited) return;
    p.expectedExit = true;
    killGroup(p.pid, "SIGCONT");
    killGroup(p.pid, "SIGKILL");
    await p.exit;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(p: Proc, graceMs = 5_000): Promise<void> {
    if (p.exited) return;
    p.expectedExit = true;
    killGroup(p.pid, "SIGCONT");
    killGroup(p.pid, "SIGTERM");
    const t = setTimeout(() => killGroup(p.pid, "SIGKILL"), graceMs);
    await p.exit;
    clearTimeout(t);
  }

  freeze(p: Proc): void {
    killGroup(p.pid, "SIGSTOP");
  }

  thaw(p: Proc): void {
    killGroup(p.pid, "SIGCONT");
  }

  async stopAll(): Promise<void> {
    await Promise.all([...live].map((p) => this.stop(p, 3_000)));
  }
}

/** Resident set size of a process in MB (Linux /proc), or NaN. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] === undefined ? Number.NaN : Number(m[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/**
 * A free loopback TCP port below the kernel's ephemeral range (32768+), so that a process restarted on it later
 * does not find it taken by some outgoing connection's local port.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error("no free port in 20000..31999");
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
