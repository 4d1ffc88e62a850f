/**
 * The `engine-build` benchmark's execution client process (replay-el.mjs beside this file) and the L1-info deposit
 * its blocks start with; shared by the figures (engine-build.bench.ts) and the in-process A/B (ab.ts).
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Hex } from "supernode/core";
import { benchHash } from "../derivation/rollup-config.js";

/** Starts the replaying EL on 127.0.0.1 (`env`: its REPLAY_EL_* options); `stop` ends it and waits for its exit. */
export async function startReplayEl(
  env: Record<string, string> = {},
): Promise<{ url: string; stop: () => Promise<void> }> {
  const here = dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, [join(here, "replay-el.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`replay EL exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${line.split(" ")[1]}`,
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A realistic L1-info deposit (Isthmus format, 0x7e envelope) that differs per block. */
export function l1InfoDeposit(n: number): Hex {
  const body = benchHash(`deposit-${n}`)
    .slice(2)
    .repeat(8)
    .slice(0, 2 * 250);
  return `0x7ef8f8${body}`;
}
