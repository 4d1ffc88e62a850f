/**
 * A real small filesystem (tmpfs) for disk-full faults: mounted on a directory, unmounted after. Needs root (or
 * CAP_SYS_ADMIN); `mountTmpfs` throws with the system's reason where the machine refuses, so the caller can say so.
 */
import { execFileSync } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";

export function mountTmpfs(dir: string, sizeKiB: number): void {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKiB}k`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`cannot mount a ${sizeKiB} KiB tmpfs on ${dir}: ${e.stderr?.toString().trim() || e.message}`);
  }
}

export function unmount(dir: string): void {
  execFileSync("umount", [dir], { stdio: "pipe" });
}

/** Fills the filesystem holding `path` with one file until it refuses another byte. */
export function fillUp(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(4096, 7);
  try {
    for (;;) {
      try {
        writeSync(fd, chunk);
      } catch {
        try {
          for (;;) writeSync(fd, chunk, 0, 1);
        } catch {
          return;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}
