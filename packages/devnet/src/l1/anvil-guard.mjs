// Runs anvil (a foreign binary, argv[2] with the arguments after it) tied to the process that started this guard:
// that parent holds the guard's IPC channel, and when the parent ends, however it ends (kill -9 too), the channel
// closes and the guard kills anvil and exits. SIGTERM/SIGINT are passed on to anvil; the guard exits as anvil does.
import { spawn } from "node:child_process";

const [bin, ...args] = process.argv.slice(2);
const anvil = spawn(bin, args, { stdio: ["ignore", "inherit", "inherit"] });
const end = () => {
  anvil.kill("SIGKILL");
  process.exit(137);
};
if (process.channel) {
  process.channel.unref();
  process.once("disconnect", end);
}
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => anvil.kill(sig));
anvil.once("error", (err) => {
  process.stderr.write(`anvil: ${err.message}\n`);
  process.exit(127);
});
anvil.once("exit", (code, signal) => process.exit(code ?? (signal === "SIGKILL" ? 137 : 143)));
