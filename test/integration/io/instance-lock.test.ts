/**
 * A second supernode on the same data dir refuses to start (issue 26, defect 9): the data dir lock is held by
 * another process (a real child process here), and a `kill -9` of that process leaves no stale lock.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lockDataDir } from "../../../src/io/db/instance-lock.js";

const root = mkdtempSync(join(tmpdir(), "instance-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const SRC = join(import.meta.dirname, "..", "..", "..", "src", "io", "db", "instance-lock.ts");

describe("data dir lock", () => {
  it("a second taker gets DATA_DIR_LOCKED while another process holds it; kill -9 of the holder frees it", async () => {
    const dataDir = join(root, "data");
    const holder = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import(${JSON.stringify(SRC)}).then((m) => m.lockDataDir(${JSON.stringify(dataDir)})).then(() => { console.log("locked"); setInterval(() => {}, 1000); });`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on("data", (c: Buffer) => {
          if (c.toString().includes("locked")) resolve();
        });
        holder.once("exit", (code) => reject(new Error(`holder exited with ${code}`)));
      });
      await expect(lockDataDir(dataDir)).rejects.toMatchObject({
        code: "DATA_DIR_LOCKED",
        severity: "critical",
        message: expect.stringContaining(`data dir ${dataDir} is in use by another supernode`),
      });
    } finally {
      const gone = new Promise((r) => holder.once("exit", r));
      holder.kill("SIGKILL");
      await gone;
    }
    const mine = await lockDataDir(dataDir);
    await expect(lockDataDir(dataDir)).rejects.toMatchObject({ code: "DATA_DIR_LOCKED" });
    await mine.release();
    await (await lockDataDir(dataDir)).release();
  });
});
