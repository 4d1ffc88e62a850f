/**
 * Child process of the kill -9 test: verifies the world into `argv[2]`, printing each committed timestamp. With
 * `argv[3]` = N it sends itself SIGKILL once N timestamps are committed, from a timer that fires while the next
 * round is under way (so the kill lands inside a round, however slow or loaded the parent is).
 */
import { openWorld } from "./wal-world.js";

const killAfter = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const w = await openWorld(process.argv[2] as string);
let committed = 0;
while (await w.activity.round()) {
  process.stdout.write(`ts ${w.verified.last()?.timestamp}\n`);
  if (++committed === killAfter) setImmediate(() => process.kill(process.pid, "SIGKILL"));
}
await w.close();
process.stdout.write("done\n");
