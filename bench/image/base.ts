/**
 * The image's base where no container registry is reachable: Debian trixie (its own `nodejs`, 20.19) made with
 * debootstrap from Debian's package mirror, plus npm from the npm registry (Debian's `npm` package would pull in
 * hundreds of packages), imported into podman. Tagged with a hash of this recipe, so it is made once and reused until
 * the recipe changes (`podman image exists`).
 *
 * The Dockerfile takes it as `--build-arg BASE_IMAGE=<tag>`; elsewhere the default public `node:20` image is used.
 * What differs from that image, and how the build copes:
 * - Debian's node has no bundled headers to download: `npm_config_nodedir=/usr` is set in the base and the build
 *   stage installs `libnode-dev` (through `BUILD_PACKAGES`), so node-gyp compiles c-kzg against /usr/include/node.
 * - There is no `node` user; the Dockerfile makes its own user either way.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { podman } from "./podman.js";

const exec = promisify(execFile);

export const BASE_RECIPE = {
  suite: "trixie",
  mirror: process.env.SUPERNODE_IMAGE_DEBIAN_MIRROR ?? "http://deb.debian.org/debian",
  packages: ["nodejs", "ca-certificates"],
  npm: "10.9.9",
  /** Build-stage packages for this base: the compilers, and Node's headers from Debian. */
  buildPackages: ["python3", "make", "g++", "libnode-dev"],
  env: ["npm_config_nodedir=/usr"],
  /** Bump when the steps below change in a way the fields above do not show. */
  version: 2,
} as const;

/** The tag the base is imported under: the recipe's hash makes a changed recipe a new image. */
export function baseImageTag(): string {
  const hash = createHash("sha256").update(JSON.stringify(BASE_RECIPE)).digest("hex").slice(0, 12);
  return `localhost/supernode-base:node20-${BASE_RECIPE.suite}-${hash}`;
}

/**
 * Returns the base image's tag, making it first when it does not exist yet (about a minute and a half: debootstrap
 * downloads and unpacks ~100 packages). Needs root (debootstrap, chroot).
 */
export async function ensureBaseImage(log: (m: string) => void): Promise<{ tag: string; made: boolean }> {
  const tag = baseImageTag();
  const exists = await podman(["image", "exists", tag]).then(
    () => true,
    () => false,
  );
  if (exists) return { tag, made: false };
  const dir = mkdtempSync(join(tmpdir(), "supernode-base-"));
  try {
    const rootfs = join(dir, "rootfs");
    log(`base image: debootstrap ${BASE_RECIPE.suite} (${BASE_RECIPE.packages.join(", ")}) from ${BASE_RECIPE.mirror}`);
    await exec(
      "debootstrap",
      [
        "--variant=minbase",
        `--include=${BASE_RECIPE.packages.join(",")}`,
        BASE_RECIPE.suite,
        rootfs,
        BASE_RECIPE.mirror,
      ],
      { maxBuffer: 64 * 1024 * 1024, timeout: 900_000 },
    );
    await installNpm(dir, rootfs);
    // Package caches, documentation and translations are not part of a base image.
    await exec("sh", [
      "-c",
      'cd "$1" && rm -rf var/cache/apt/archives/*.deb var/lib/apt/lists/* usr/share/doc/* usr/share/man/* usr/share/locale/*',
      "sh",
      rootfs,
    ]);
    const tar = join(dir, "rootfs.tar");
    await exec("tar", ["-C", rootfs, "-cf", tar, "."], { timeout: 300_000 });
    const changes = [...BASE_RECIPE.env.map((e) => `ENV ${e}`), 'CMD ["node"]'].flatMap((c) => ["--change", c]);
    await podman(["import", ...changes, tar, tag], { timeoutMs: 300_000 });
    log(`base image: ${tag} imported`);
    await removeOlderBases(tag);
    return { tag, made: true };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** npm from the npm registry into /usr/lib/node_modules/npm, with `npm` and `npx` on the PATH. */
async function installNpm(dir: string, rootfs: string): Promise<void> {
  const { stdout } = await exec("npm", ["pack", `npm@${BASE_RECIPE.npm}`, "--pack-destination", dir, "--silent"], {
    timeout: 300_000,
  });
  const tgz = join(dir, stdout.trim().split("\n").pop() as string);
  const target = join(rootfs, "usr/lib/node_modules/npm");
  await exec("mkdir", ["-p", target]);
  await exec("tar", ["-xzf", tgz, "-C", target, "--strip-components=1"]);
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr/bin/npm"));
  symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(rootfs, "usr/bin/npx"));
}

/** Bases of earlier recipes are removed once a new one is made (their build layers go with them later). */
async function removeOlderBases(keep: string): Promise<void> {
  const repo = keep.slice(0, keep.lastIndexOf(":"));
  const tags = (await podman(["images", "--format", "{{.Repository}}:{{.Tag}}", repo])).split("\n");
  for (const t of tags) if (t !== "" && t !== keep) await podman(["rmi", "--force", t]).catch(() => undefined);
}
