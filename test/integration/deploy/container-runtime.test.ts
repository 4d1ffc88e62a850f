/**
 * The container image without a Docker daemon: the Dockerfile's steps are replayed in a temp dir, in the
 * Dockerfile's own order (read from the Dockerfile, so a reordered Dockerfile changes what runs here):
 * build stage — package files, `npm ci` (the project's node_modules hard-linked in place of the download, then the
 * install's own `prepare` script, which must cope with the sources not being there yet), tsconfig, src, config, bin,
 * `npm run build && npm prune --omit=dev`; runtime stage — node_modules, dist, config, bin, package.json only, the
 * `supernode` link, NODE_ENV=production and SUPERNODE_DATA_DIR. The image holds no part of the devnet (no anvil,
 * no simulated execution client, no batcher: docs/adr/0108). From there `supernode --help` runs, `supernode devnet`
 * says where the devnet went, and the image's supernode sequences a chain of a devnet started here, then stops
 * cleanly on SIGINT.
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Devnet, startDevnet, supernodeArgsFor } from "supernode-devnet";
import { freePort } from "supernode-devnet/cli/child";
import { afterAll, describe, expect, it } from "vitest";
import { call, waitFor } from "../../support/devnet-rpc.js";
import { dependencyClosure, type LockPackages } from "../../support/lock-closure.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../../..");

interface Step {
  readonly stage: number;
  readonly op: string;
  readonly args: string;
}

/** The Dockerfile's instructions (continuation lines joined), each with the index of its stage. */
function dockerfileSteps(text: string): Step[] {
  const steps: Step[] = [];
  let stage = -1;
  for (const line of text.replace(/\\\n/g, " ").split("\n")) {
    const m = /^([A-Z]+)\s+(.*)$/.exec(line.trim());
    if (m === null || line.trim().startsWith("#")) continue;
    const op = m[1] as string;
    if (op === "FROM") stage++;
    // ARGs before the first FROM are build arguments (the base image), not steps of a stage.
    if (stage >= 0) steps.push({ stage, op, args: (m[2] as string).trim() });
  }
  return steps;
}

describe("the Dockerfile's runtime stage, reproduced in a temp dir", () => {
  const dir = mkdtempSync(join(tmpdir(), "sn-image-"));
  const build = join(dir, "build");
  const app = join(dir, "app");
  const data = join(dir, "data");
  const pathDir = join(dir, "usr-local-bin");
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: dir };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds the image's /app following the Dockerfile", async () => {
    const steps = dockerfileSteps(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
    expect(new Set(steps.map((s) => s.stage))).toEqual(new Set([0, 1]));
    mkdirSync(build);
    mkdirSync(app);
    const done: string[] = [];
    for (const s of steps) {
      const root = s.stage === 0 ? build : app;
      if (s.op === "COPY") {
        const parts = s.args.split(/\s+/);
        const from = parts[0]?.startsWith("--from=") ? parts.shift() : undefined;
        const dest = parts.pop() as string;
        for (const src of parts) {
          const source = from === undefined ? join(ROOT, src) : join(build, src.replace(/^\/app\//, ""));
          const target = dest.endsWith("/") ? join(root, dest, src.split("/").pop() as string) : join(root, dest);
          if (src.endsWith("node_modules")) await linkTree(source, target);
          else cpSync(source, target, { recursive: true, verbatimSymlinks: true });
        }
        done.push(`COPY ${parts.join(" ")}`);
      } else if (s.op === "RUN" && s.args.startsWith("npm ci")) {
        // The download is replaced by the project's installed tree; the lifecycle script npm ci would run after
        // it, `prepare`, runs for real (no sources here yet: it must skip, not fail).
        await linkTree(join(ROOT, "node_modules"), join(build, "node_modules"));
        // `--workspaces=false`: npm installs the root package's own dependencies only, not the workspaces' (the
        // devnet package, its link back to this package, anvil); the rest of the project's tree goes.
        expect(s.args).toContain("--workspaces=false");
        const packages = (
          JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: LockPackages }
        ).packages;
        const own = dependencyClosure(packages, "", { dev: true });
        for (const at of Object.keys(packages)) {
          if (at.startsWith("node_modules/") && !own.has(at)) rmSync(join(build, at), { recursive: true, force: true });
        }
        const { stdout } = await run("npm", ["run", "prepare"], { cwd: build, env });
        expect(stdout).toContain("nothing to compile here");
        expect(existsSync(join(build, "dist"))).toBe(false);
        done.push("npm ci");
      } else if (s.op === "RUN" && s.args.startsWith("npm run build")) {
        expect(s.args).toBe("npm run build && npm prune --omit=dev --workspaces=false");
        await run("npm", ["run", "build"], { cwd: build, env });
        const prune = ["prune", "--omit=dev", "--workspaces=false", "--offline", "--no-audit", "--no-fund"];
        await run("npm", prune, { cwd: build, env });
        done.push("build+prune");
      } else if (s.op === "RUN" && s.args.startsWith("ln -s /app/bin/supernode.js")) {
        mkdirSync(pathDir);
        symlinkSync(join(app, "bin/supernode.js"), join(pathDir, "supernode"));
        mkdirSync(data);
        done.push("link");
      } else if (s.op === "ENV" && s.stage === 1) {
        const [k, v] = s.args.split("=") as [string, string];
        env[k] = k === "SUPERNODE_DATA_DIR" ? data : v;
      }
    }
    expect(done).toEqual([
      "COPY package.json package-lock.json",
      "npm ci",
      "COPY tsconfig.json tsconfig.build.json",
      "COPY src",
      "COPY config",
      "COPY bin",
      "build+prune",
      "COPY /app/node_modules",
      "COPY /app/dist",
      "COPY /app/config",
      "COPY /app/bin",
      "COPY /app/package.json",
      "link",
    ]);
    env.PATH = `${pathDir}:${env.PATH}`;
    expect(env.NODE_ENV).toBe("production");
    // The image holds the compiled build, configs and production dependencies only: no sources, no dev tools,
    // nothing of the devnet workspace (its package, anvil, viem, ws).
    expect(existsSync(join(app, "dist/cli/main.js"))).toBe(true);
    expect(existsSync(join(app, "config/networks"))).toBe(true);
    expect(existsSync(join(app, "src"))).toBe(false);
    expect(existsSync(join(app, "packages"))).toBe(false);
    const absent = ["vitest", "@biomejs/biome", "dependency-cruiser", "playwright-core", "yaml", "typescript"];
    for (const dev of [...absent, "supernode-devnet", "supernode", "@foundry-rs/anvil", "viem", "ws"]) {
      expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    }
    for (const prod of ["fastify", "level", "c-kzg"]) {
      expect(existsSync(join(app, "node_modules", prod)), prod).toBe(true);
    }
  }, 400_000);

  it("runs `supernode --help` from the image", async () => {
    const { stdout } = await run("supernode", ["--help"], { cwd: app, env });
    expect(stdout).toContain("--chains");
    expect(stdout).toContain("supernode-devnet");
    const devnet = await run("supernode", ["devnet", "--chains", "1"], { cwd: app, env }).catch((e: unknown) => e);
    expect((devnet as { code?: number }).code).toBe(2);
    expect((devnet as { stderr?: string }).stderr).toContain("npx supernode-devnet");
  });

  it("sequences a chain of a devnet started here from the image, and stops cleanly on SIGINT", async () => {
    const devnetDir = join(dir, "devnet");
    const devnet: Devnet = await startDevnet({
      dir: devnetDir,
      chains: [{ chainId: 901n, variant: "a" }],
      l1BlockTimeSec: 1,
      l2BlockTimeSec: 1,
    });
    const rpcPort = await freePort();
    const args = supernodeArgsFor(devnet, { dir: devnetDir, chains: [], rpcPort, metricsPort: await freePort() });
    const child = spawn("supernode", args, { cwd: app, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await waitFor(
        "the image's supernode to build blocks",
        async () => {
          if (child.exitCode !== null) throw new Error(`exited early:\n${stderr}`);
          const r = await call(`http://127.0.0.1:${rpcPort}/901/`, "stack_syncStatus").catch(() => undefined);
          const unsafe = (r?.result as { unsafe_l2?: { number: number } } | undefined)?.unsafe_l2?.number ?? 0;
          return unsafe > 1 ? unsafe : undefined;
        },
        90_000,
      );
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, "SIGINT");
      const code = await exited;
      await devnet.stop();
      expect(code).toBe(0);
    }
    expect(stderr).not.toMatch(/src\/ is newer than dist|tsx/);
  }, 150_000);
});

/**
 * A copy of a node_modules tree in seconds: hard links (`cp -al`), except npm's own hidden lockfile, which npm
 * rewrites and which is therefore copied (npm replaces package files by unlinking, never edits them in place).
 */
async function linkTree(from: string, to: string): Promise<void> {
  await run("cp", ["-al", from, to]);
  const hidden = join(to, ".package-lock.json");
  if (existsSync(hidden)) {
    rmSync(hidden);
    cpSync(join(from, ".package-lock.json"), hidden);
  }
}
