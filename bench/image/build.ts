/**
 * `podman build` of the repository's Dockerfile on the local base (base.ts).
 *
 * - `--network host`: the build stage's `apt-get` (Debian mirror) and `npm ci` (npm registry) need the network.
 * - Layer cache (`--layers`, podman's default): an unchanged package-lock.json reuses the `npm ci` layer, an
 *   unchanged tree the whole image. The host's npm cache (`npm config get cache`, filled by the host's own `npm ci`)
 *   is mounted at /root/.npm for the build only (not part of the image), so `npm ci` in the image downloads only what
 *   the host has not.
 * - The host's npm registry and CA file (a TLS-inspecting proxy's CA, for example) are mounted for the build only.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BASE_RECIPE } from "./base.js";
import { podman, podmanGlobalArgs, ulimitArgs } from "./podman.js";

const exec = promisify(execFile);

export const IMAGE_TAG = "localhost/supernode:local";
export const CACHE_DIR = join(homedir(), ".cache/supernode-image");

async function hostNpmConfig(key: string): Promise<string | undefined> {
  const { stdout } = await exec("npm", ["config", "get", key]).catch(() => ({ stdout: "" }));
  const v = stdout.trim();
  return v === "" || v === "null" || v === "undefined" ? undefined : v;
}

/** Build-only mounts: npm's cache, and the host's registry and CA file when it has them. */
async function buildVolumes(): Promise<string[]> {
  const npmCache = (await hostNpmConfig("cache")) ?? join(homedir(), ".npm");
  mkdirSync(npmCache, { recursive: true });
  mkdirSync(CACHE_DIR, { recursive: true });
  const vols = ["-v", `${npmCache}:/root/.npm`];
  const rc: string[] = [];
  const registry = await hostNpmConfig("registry");
  if (registry !== undefined) rc.push(`registry=${registry}`);
  const cafile = await hostNpmConfig("cafile");
  if (cafile !== undefined) {
    vols.push("-v", `${cafile}:/etc/ssl/certs/build-host-ca.crt:ro`);
    rc.push("cafile=/etc/ssl/certs/build-host-ca.crt");
  }
  const npmrc = join(CACHE_DIR, "build.npmrc");
  writeFileSync(npmrc, `${rc.join("\n")}\n`);
  vols.push("-v", `${npmrc}:/root/.npmrc:ro`);
  return vols;
}

/** Builds the image from `root`'s Dockerfile on `base`; build output goes to `log`. Returns the seconds it took. */
export async function buildImage(root: string, base: string, log: NodeJS.WritableStream): Promise<number> {
  const args = [
    ...podmanGlobalArgs(),
    "build",
    "--network",
    "host",
    "--layers",
    ...ulimitArgs(),
    ...(await buildVolumes()),
    "--build-arg",
    `BASE_IMAGE=${base}`,
    "--build-arg",
    `BUILD_PACKAGES=${BASE_RECIPE.buildPackages.join(" ")}`,
    "--tag",
    IMAGE_TAG,
    "--file",
    join(root, "Dockerfile"),
    root,
  ];
  log.write(`$ podman ${args.join(" ")}\n`);
  const started = performance.now();
  const child = spawn("podman", args, { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (c) => resolve(c));
  }).finally(() => {
    if (child.exitCode === null) child.kill("SIGTERM");
  });
  if (code !== 0) throw new Error(`podman build failed (exit ${code})`);
  return (performance.now() - started) / 1000;
}

/** The image's size in MB (10^6 bytes), as podman reports it (all layers, uncompressed). */
export async function imageMegabytes(tag = IMAGE_TAG): Promise<number> {
  const bytes = Number(await podman(["image", "inspect", "--format", "{{.Size}}", tag]));
  return Math.round(bytes / 1e5) / 10;
}
