import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { devnetBin } from "supernode-devnet";
import { afterAll, describe, expect, it } from "vitest";

/**
 * `supernode-devnet --supernode-process external`: the devnet starts no supernode; it writes what one needs to
 * `<dir>/supernode.json` (arguments without `--data-dir`, the files they name). A supernode started from that file
 * (here a plain process of the product's binary; `npm run image` starts it in a container) sequences and derives
 * every chain, which the devnet's own status lines show; both stop on their signals.
 */
const ROOT = join(import.meta.dirname, "../../..");

interface ExternalFile {
  chains: number[];
  rpc: string;
  metrics: string;
  args: string[];
  files: string[];
}

function exitOf(p: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => p.once("exit", (code) => resolve(code)));
}

function killGroup(p: ChildProcess): void {
  if (p.exitCode !== null || p.signalCode !== null || p.pid === undefined) return;
  try {
    process.kill(-p.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

describe("supernode-devnet --supernode-process external", () => {
  const dir = mkdtempSync(join(tmpdir(), "sn-devnet-external-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the supernode's arguments, and a supernode started from them makes every chain safe", async () => {
    const devnet = spawn(
      process.execPath,
      [devnetBin(), "--supernode-process", "external", "--dir", join(dir, "devnet"), "--chains", "2"].concat([
        "--rpc.port",
        "0",
        "--metrics.port",
        "0",
        "--el.port",
        "0",
        "--l1-block-time",
        "1",
        "--l2-block-time",
        "1",
      ]),
      { stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    const devnetExit = exitOf(devnet);
    let supernode: ChildProcess | undefined;
    const lines: string[] = [];
    try {
      const reader = createInterface({ input: devnet.stdout });
      reader.on("line", (l) => lines.push(l));
      const until = (re: RegExp, what: string) =>
        new Promise<RegExpExecArray>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no ${what}:\n${lines.join("\n")}`)), 100_000);
          const check = (l: string) => {
            const m = re.exec(l);
            if (m === null) return;
            clearTimeout(timer);
            reader.off("line", check);
            resolve(m);
          };
          reader.on("line", check);
          void devnetExit.then(() => reject(new Error(`devnet exited:\n${lines.join("\n")}`)));
        });
      const path = (await until(/^external supernode: (\S+)$/, "supernode.json"))[1] as string;
      const ext = JSON.parse(readFileSync(path, "utf8")) as ExternalFile;
      expect(ext.chains).toEqual([901, 902]);
      expect(ext.args).not.toContain("--data-dir");
      expect(ext.args).toContain("--disable-p2p");
      for (const f of ext.files) {
        expect(existsSync(f), f).toBe(true);
        expect(ext.args).toContain(f);
      }
      expect(ext.files.filter((f) => f.endsWith("jwt.hex"))).toHaveLength(2);
      expect(ext.args.join(" ")).toContain(`--rpc.port ${new URL(ext.rpc).port}`);

      supernode = spawn(
        process.execPath,
        [join(ROOT, "bin/supernode.js"), ...ext.args, "--data-dir", join(dir, "data")],
        {
          stdio: ["ignore", "ignore", "pipe"],
          detached: true,
        },
      );
      const supernodeExit = exitOf(supernode);
      // The devnet's own status lines poll the external supernode's RPC.
      await until(/^2\/2 chains serving\s+unsafe \d+…\d+\s+safe [1-9]\d*…\d+/, "safe heads on both chains");
      supernode.kill("SIGTERM");
      expect(await supernodeExit).toBe(0);
      devnet.kill("SIGINT");
      expect(await devnetExit).toBe(0);
      expect(lines.at(-1)).toBe("devnet stopped");
    } finally {
      if (supernode !== undefined) killGroup(supernode);
      killGroup(devnet);
    }
  }, 150_000);
});
