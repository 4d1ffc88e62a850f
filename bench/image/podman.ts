/**
 * Podman as `npm run image` drives it: one place for the flags this kind of machine needs, and for ending what was
 * started (containers by their unique name, volumes by theirs).
 *
 * - `--runtime runc` when runc is installed: crun (podman's usual default) refuses hybrid cgroup v1/v2 hosts.
 * - `--ulimit nofile=H:H`, `nproc=4096:4096`: podman asks for nofile 1048576 by default, which fails ("error setting
 *   rlimits") where the hard limit is lower; H is this process's own hard limit.
 */
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Absolute path of `name` on the PATH, or undefined. */
export function which(name: string): string | undefined {
  try {
    const out = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
    return out === "" ? undefined : out;
  } catch {
    return undefined;
  }
}

/** This process's hard limit for `resource` ("Max open files", "Max processes") from /proc/self/limits, capped. */
function hardLimit(resource: string, cap: number): number {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((l) => l.startsWith(resource));
  const hard = line?.slice(resource.length).trim().split(/\s+/)[1];
  return hard === undefined || hard === "unlimited" ? cap : Math.min(cap, Number(hard));
}

/** Arguments every podman call gets (before the subcommand). */
export function podmanGlobalArgs(): string[] {
  return which("runc") === undefined ? [] : ["--runtime", "runc"];
}

/** `--ulimit` arguments for `podman build` and `podman run`. */
export function ulimitArgs(): string[] {
  const nofile = hardLimit("Max open files", 1_048_576);
  const nproc = hardLimit("Max processes", 4096);
  return ["--ulimit", `nofile=${nofile}:${nofile}`, "--ulimit", `nproc=${nproc}:${nproc}`];
}

/** Runs `podman <args>` and returns its standard output (trimmed); throws with its standard error on failure. */
export async function podman(args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  const { stdout } = await exec("podman", [...podmanGlobalArgs(), ...args], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 120_000,
  });
  return stdout.trim();
}

/** Removes a container (running or not) and waits for it; no error when it is already gone. */
export async function removeContainer(name: string): Promise<void> {
  await podman(["rm", "--force", "--ignore", "--time", "2", name]).catch(() => undefined);
}

/** Removes a volume; no error when it is already gone. */
export async function removeVolume(name: string): Promise<void> {
  await podman(["volume", "rm", "--force", name]).catch(() => undefined);
}

/** A name no other run on this machine uses (pid and random bytes). */
export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid}-${randomBytes(4).toString("hex")}`;
}
