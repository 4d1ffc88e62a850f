/**
 * The container image, built for real with podman (the same build `npm run image` makes: base made with
 * debootstrap where no registry is reachable, layer cache, so after `npm run image` this takes seconds) and looked
 * into: what it holds, the user it runs as, and that a read-only root leaves /data the only writable place. Running
 * the supernode in it against a devnet, SIGTERM and the restart are `npm run image`'s (`.ci/run` runs it).
 */
import { Writable } from "node:stream";
import { beforeAll, expect, it } from "vitest";
import { ensureBaseImage } from "../../../bench/image/base.js";
import { buildImage, IMAGE_TAG } from "../../../bench/image/build.js";
import { podman, removeContainer, removeVolume, ulimitArgs, uniqueName } from "../../../bench/image/podman.js";
import { describeWithTools } from "../../support/system-tools.js";

const ROOT = new URL("../../..", import.meta.url).pathname;

/** A fresh container of the image (read-only root, no network) with `args`; its output; removed afterwards. */
async function runImage(extra: readonly string[], args: readonly string[]): Promise<string> {
  const name = uniqueName("sn-image-test");
  try {
    const flags = ["--rm", "--name", name, "--network", "none", "--read-only", "--read-only-tmpfs=false"];
    return await podman(["run", ...flags, ...ulimitArgs(), ...extra, IMAGE_TAG, ...args]);
  } finally {
    await removeContainer(name);
  }
}

const shell = (script: string, extra: readonly string[] = []) =>
  runImage([...extra, "--entrypoint", "sh"], ["-c", script]);

describeWithTools(["podman", "debootstrap"], "the container image (podman build, podman run)", () => {
  beforeAll(async () => {
    const { tag } = await ensureBaseImage(() => {});
    const log: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        log.push(String(chunk));
        done();
      },
    });
    await buildImage(ROOT, tag, sink).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${log.join("").slice(-4000)}`);
    });
  }, 1_200_000);

  it("holds the compiled product, its configs and production dependencies only", async () => {
    const out = await shell(
      "cd /app; for p in dist/cli/main.js config/networks node_modules/fastify node_modules/c-kzg src node_modules/vitest node_modules/@biomejs/biome node_modules/@foundry-rs/anvil node_modules/supernode-devnet packages; do if [ -e $p ]; then echo yes $p; else echo no $p; fi; done",
    );
    for (const p of ["dist/cli/main.js", "config/networks", "node_modules/fastify", "node_modules/c-kzg"]) {
      expect(out).toContain(`yes ${p}`);
    }
    for (const p of ["src", "node_modules/vitest", "node_modules/@biomejs/biome"]) expect(out).toContain(`no ${p}`);
    // The devnet (anvil, simulated execution clients, batchers) is a package of its own, not in the image.
    for (const p of ["node_modules/@foundry-rs/anvil", "node_modules/supernode-devnet", "packages"]) {
      expect(out).toContain(`no ${p}`);
    }
  }, 60_000);

  it("runs as uid 10001; with a read-only root, /data is the only place it can write", async () => {
    const volume = uniqueName("sn-image-test-data");
    try {
      const out = await shell(
        "id -u; id -g; for d in /app /tmp /var/tmp /run /data; do touch $d/probe 2>/dev/null && echo writable $d || echo refused $d; done",
        ["--volume", `${volume}:/data`],
      );
      const [uid, gid, ...rest] = out.split("\n");
      expect([uid, gid]).toEqual(["10001", "10001"]);
      expect(rest).toEqual(["refused /app", "refused /tmp", "refused /var/tmp", "refused /run", "writable /data"]);
      // The refusal is the read-only filesystem's, not only the permissions: root inside is refused as well.
      expect(await shell("touch /app/probe 2>&1 || true", ["--user", "0"])).toContain("Read-only file system");
    } finally {
      await removeVolume(volume);
    }
  }, 60_000);

  it("starts `supernode --help` from the read-only image; `supernode devnet` is not in it", async () => {
    const out = await runImage([], ["--help"]);
    expect(out).toContain("--chains");
    expect(out).toContain("supernode config");
    const devnet = await shell("supernode devnet 2>&1; echo exit $?");
    expect(devnet).toContain("not part of the supernode package");
    expect(devnet).toMatch(/exit [1-9]/);
  }, 60_000);
});
