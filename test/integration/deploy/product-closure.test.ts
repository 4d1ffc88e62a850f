/**
 * The product package holds no part of the devnet (docs/adr/0108): its production dependency closure, read from
 * package-lock.json the way npm resolves it, reaches no workspace package and nothing only the devnet needs, and
 * the program `npm run build` compiles into dist/ (tsconfig.build.json) has no file of the devnet package.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { dependencyClosure, type LockPackages } from "../../support/lock-closure.js";

const ROOT = join(import.meta.dirname, "../../..");

const DEVNET_ONLY = ["supernode-devnet", "@foundry-rs/anvil", "viem", "ws"];

describe("the product package holds no part of the devnet", () => {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: LockPackages;
  };
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    exports: Record<string, unknown>;
  };

  it("its production dependency closure in package-lock.json has no workspace package and no devnet dependency", () => {
    const closure = dependencyClosure(lock.packages);
    expect(closure.size).toBeGreaterThan(50);
    expect(closure.has("node_modules/fastify")).toBe(true);
    for (const at of closure) {
      expect(lock.packages[at]?.link, `${at} is a workspace link`).not.toBe(true);
      for (const name of DEVNET_ONLY) expect(at.endsWith(`node_modules/${name}`), at).toBe(false);
      expect(at.startsWith("node_modules/@foundry-rs/"), at).toBe(false);
    }
    for (const name of DEVNET_ONLY) expect(pkg.dependencies[name], name).toBeUndefined();
  });

  it("the devnet's closure does reach anvil (the check above reads the lockfile as npm does)", () => {
    const devnet = dependencyClosure(lock.packages, "packages/devnet");
    expect(devnet.has("node_modules/@foundry-rs/anvil")).toBe(true);
    expect(devnet.has("node_modules/supernode")).toBe(true);
  });

  it("dist/ is compiled from src/ only: no file of packages/ and no devnet module in the build program", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.build.json"), "--listFilesOnly"],
      { cwd: ROOT, maxBuffer: 16 << 20 },
    );
    const files = stdout
      .split("\n")
      .filter((f) => f !== "" && !f.includes("/node_modules/"))
      .map((f) => relative(ROOT, f));
    expect(files).toContain("src/cli/main.ts");
    for (const f of files) {
      expect(f.startsWith("src/"), f).toBe(true);
      expect(f, f).not.toMatch(/devnet|anvil|batcher\//);
    }
    for (const target of JSON.stringify(pkg.exports).match(/"\.\/[^"]+"/g) ?? []) {
      expect(target, target).not.toMatch(/packages\//);
    }
  }, 120_000);
});
