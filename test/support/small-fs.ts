/**
 * A real small filesystem for disk-full tests: a tmpfs of a few MiB mounted on a fresh temp dir (needs root, or
 * CAP_SYS_ADMIN). Where the machine refuses the mount the suite skips with the reason locally and fails under
 * `CI=true`, like the other tests that need something a plain machine may lack.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { mountTmpfs, unmount } from "../../chaos/small-fs.js";

export interface SmallFs {
  readonly dir: string;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeKiB` on a new temp dir; throws with the system's reason when it cannot. */
export function mountSmallFs(sizeKiB: number): SmallFs {
  const dir = mkdtempSync(join(tmpdir(), "small-fs-"));
  try {
    mountTmpfs(dir, sizeKiB);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    unmount() {
      unmount(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Why a tmpfs cannot be mounted here, or undefined when it can (tries one and removes it). */
export function smallFsUnavailable(): string | undefined {
  try {
    mountSmallFs(64).unmount();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const inCi = process.env.CI === "true" || process.env.CI === "1";

/** `describe` for a suite that needs a small real filesystem (see above). */
export function describeWithSmallFs(name: string, fn: () => void) {
  const why = smallFsUnavailable();
  if (why === undefined) return describe(name, fn);
  if (inCi)
    return describe(name, () =>
      it("needs a mountable tmpfs", () => {
        throw new Error(why);
      }),
    );
  console.warn(`[skip] ${name}: ${why}`);
  return describe.skip(name, fn);
}
