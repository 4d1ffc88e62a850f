/**
 * One supernode container as an operator would run it: host network, read-only root filesystem with no tmpfs added
 * (`--read-only-tmpfs=false`: /data is the only writable place), a named volume at /data, the files it reads (JWT
 * secrets, rollup configs) bind-mounted read-only at the paths its arguments name. `podman run` stays attached as a
 * child of ours, so the container's exit is the child's exit; `--rm` and a unique name, and `remove()` for the
 * finally block.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { podman, podmanGlobalArgs, removeContainer, ulimitArgs } from "./podman.js";

export interface ContainerSpec {
  readonly name: string;
  readonly image: string;
  /** Named volume mounted at /data. */
  readonly volume: string;
  /** Host files (`source`) mounted read-only at `target` inside. */
  readonly readOnlyFiles: ReadonlyArray<{ readonly source: string; readonly target: string }>;
  readonly args: readonly string[];
  /** Receives the container's standard output and error. */
  readonly log: NodeJS.WritableStream;
}

export interface RunningContainer {
  readonly name: string;
  /** Resolves with the exit code of `podman run` (the container's) when it ends. */
  readonly exited: Promise<number | null>;
  /** The uid the container's main process runs as, read from /proc on the host (rootful podman maps uids 1:1). */
  mainUid(): Promise<number>;
  /** Whether podman set the root filesystem read-only and a write to /app inside fails. */
  rootIsReadOnly(): Promise<boolean>;
  /** Sends SIGTERM and returns the seconds until the container has exited, and its exit code. */
  terminate(): Promise<{ seconds: number; code: number | null }>;
  /** Ends it whatever its state (for finally blocks). */
  remove(): Promise<void>;
}

export function runArgs(spec: ContainerSpec): string[] {
  return [
    ...podmanGlobalArgs(),
    "run",
    "--rm",
    "--name",
    spec.name,
    "--network",
    "host",
    "--read-only",
    "--read-only-tmpfs=false",
    ...ulimitArgs(),
    "--volume",
    `${spec.volume}:/data`,
    ...spec.readOnlyFiles.flatMap((f) => ["--volume", `${f.source}:${f.target}:ro`]),
    spec.image,
    ...spec.args,
  ];
}

export function startContainer(spec: ContainerSpec): RunningContainer {
  spec.log.write(`$ podman ${runArgs(spec).join(" ")}\n`);
  const child: ChildProcess = spawn("podman", runArgs(spec), { stdio: ["ignore", "pipe", "pipe"], detached: true });
  child.stdout?.pipe(spec.log, { end: false });
  child.stderr?.pipe(spec.log, { end: false });
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(null));
  });
  return {
    name: spec.name,
    exited,
    async mainUid() {
      const pid = await podman(["inspect", "--format", "{{.State.Pid}}", spec.name]);
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const m = /^Uid:\s+(\d+)/m.exec(status);
      if (m === null) throw new Error(`no Uid line for pid ${pid}`);
      return Number(m[1]);
    },
    async rootIsReadOnly() {
      const flag = await podman(["inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", spec.name]);
      const write = await podman(["exec", "--user", "0", spec.name, "sh", "-c", "touch /app/probe 2>&1 || true"]);
      return flag === "true" && /Read-only file system/.test(write);
    },
    async terminate() {
      const started = performance.now();
      await podman(["kill", "--signal", "TERM", spec.name]);
      const code = await exited;
      return { seconds: (performance.now() - started) / 1000, code };
    },
    async remove() {
      await removeContainer(spec.name);
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
  };
}
