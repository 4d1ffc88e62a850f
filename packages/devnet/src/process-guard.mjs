// Runs a foreign binary (argv[2], with the arguments after it: anvil, op-geth, op-node…) tied to the process that
// started this guard: that parent holds the guard's IPC channel, and when the parent ends, however it ends (kill -9
// too), the channel closes and the guard kills the binary and exits. SIGTERM/SIGINT/SIGHUP are passed on; the guard
// exits as the binary does. Its first IPC message names the binary's PID (for /proc readings of the binary itself).
import { spawn } from "node:child_process";

const [bin, ...args] = process.argv.slice(2);
const child = spawn(bin, args, { stdio: ["ignore", "inherit", "inherit"] });
const end = () => {
  child.kill("SIGKILL");
  process.exit(137);
};
if (process.channel) {
  if (child.pid !== undefined) process.send({ pid: child.pid });
  process.channel.unref();
  process.once("disconnect", end);
}
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.once("error", (err) => {
  process.stderr.write(`${bin}: ${err.message}\n`);
  process.exit(127);
});
child.once("exit", (code, signal) => process.exit(code ?? (signal === "SIGKILL" ? 137 : 143)));
