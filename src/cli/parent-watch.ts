/**
 * A child process ends with its parent, however the parent ends (a clean exit, SIGTERM, SIGHUP, `kill -9`): a
 * parent that spawns it with an IPC channel (`stdio: [..., "ipc"]`) holds the channel's end, and the kernel closes
 * it when the parent is gone, so the child sees `disconnect`. (Linux's PR_SET_PDEATHSIG is not reachable from
 * Node.) The channel is unref'd: it never keeps the child alive by itself.
 */
export function endWithParent(end: () => void, proc: NodeJS.Process = process): void {
  if (proc.channel === undefined || proc.channel === null) return;
  proc.channel.unref();
  proc.once("disconnect", end);
}

/** For a spawned program that stops on SIGTERM: stops it like a SIGTERM, then forces it out after `graceMs`. */
export function terminateSelf(graceMs = 10_000): void {
  setTimeout(() => process.exit(143), graceMs).unref();
  process.kill(process.pid, "SIGTERM");
}
