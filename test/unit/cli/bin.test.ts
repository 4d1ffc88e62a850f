import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const BIN = resolve(process.cwd(), "bin", "supernode.js");

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
}

describe("bin/supernode.js (real process)", () => {
  it("a bad configuration prints all of its problems on stderr and exits 1", () => {
    const r = run(["--chains", "10,10,x", "--vn.11.l2", "http://127.0.0.1:1", "--rpc.port", "70000"], {
      SUPERNODE_LOG_FORMAT: "nope",
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    const problems = r.stderr.split("\n").filter((l) => l.startsWith("  - "));
    expect(r.stderr).toMatch(/^supernode: invalid configuration \(\d+ problems\):/m);
    expect(problems.length).toBeGreaterThanOrEqual(6);
    expect(r.stderr).toContain("--chains: duplicate chain ID 10");
    expect(r.stderr).toContain('--chains: invalid chain ID "x"');
    expect(r.stderr).toContain("--vn.11.l2 (chain 11): chain 11 is not in --chains (10)");
    expect(r.stderr).toContain("--rpc.port: invalid port 70000");
    expect(r.stderr).toContain("SUPERNODE_LOG_FORMAT: invalid value");
    expect(r.stderr).toContain("--l1: required");
  });
});
