/**
 * The container image without a Docker daemon: the Dockerfile's steps are replayed in a temp dir, in the
 * Dockerfile's own order (read from the Dockerfile, so a reordered Dockerfile changes what runs here):
 * build stage — package files, `npm ci` (the project's node_modules hard-linked in place of the download, then the
 * install's own `prepare` script, which must cope with the sources not being there yet), tsconfig, src, config, bin,
 * `npm run build && npm prune --omit=dev`; runtime stage — node_modules, dist, config, bin, package.json only, the
 * `supernode` link, NODE_ENV=production and SUPERNODE_DATA_DIR. From there `supernode --help` runs, and
 * `supernode devnet` starts a chain that produces blocks and stops cleanly on SIGINT.
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

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
    steps.push({ stage, op, args: (m[2] as string).trim() });
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
        const { stdout } = await run("npm", ["run", "prepare"], { cwd: build, env });
        expect(stdout).toContain("nothing to compile here");
        expect(existsSync(join(build, "dist"))).toBe(false);
        done.push("npm ci");
      } else if (s.op === "RUN" && s.args.startsWith("npm run build")) {
        expect(s.args).toBe("npm run build && npm prune --omit=dev");
        await run("npm", ["run", "build"], { cwd: build, env });
        await run("npm", ["prune", "--omit=dev", "--offline", "--no-audit", "--no-fund"], { cwd: build, env });
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
    // The image holds the compiled build, configs and production dependencies only: no sources, no dev tools
    // (TypeScript itself stays: viem declares it as an optional peer dependency, so npm counts it as production).
    expect(existsSync(join(app, "dist/cli/main.js"))).toBe(true);
    expect(existsSync(join(app, "config/networks"))).toBe(true);
    expect(existsSync(join(app, "src"))).toBe(false);
    for (const dev of ["vitest", "@biomejs/biome", "dependency-cruiser", "playwright-core", "yaml"]) {
      expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    }
    for (const prod of ["fastify", "level", "c-kzg", "@foundry-rs/anvil"]) {
      expect(existsSync(join(app, "node_modules", prod)), prod).toBe(true);
    }
  }, 400_000);

  it("runs `supernode --help` from the image", async () => {
    const { stdout } = await run("supernode", ["--help"], { cwd: app, env });
    expect(stdout).toContain("--chains");
    expect(stdout).toContain("devnet");
  });

  it("starts a devnet-backed supernode from the image and stops it cleanly on SIGINT", async () => {
    const child = spawn(
      "supernode",
      [
        "devnet",
        "--chains",
        "1",
        "--rpc.port",
        "0",
        "--metrics.port",
        "0",
        "--l1-block-time",
        "1",
        "--l2-block-time",
        "1",
        "--dir",
        join(dir, "devnet"),
      ],
      { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const lines: string[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no blocks; output:\n${lines.join("\n")}\n${stderr}`)), 90_000);
        createInterface({ input: child.stdout }).on("line", (line) => {
          lines.push(line);
          const m = /^chain 901 \[running\] unsafe (\d+)/.exec(line);
          if (m !== null && Number(m[1]) > 1) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once("exit", () => reject(new Error(`exited early:\n${lines.join("\n")}\n${stderr}`)));
      });
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, "SIGINT");
    }
    expect(await exited).toBe(0);
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
