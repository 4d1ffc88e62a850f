/** Child process of the kill -9 test: verifies the world into `argv[2]`, printing each committed timestamp. */
import { openWorld } from "./wal-world.js";

const w = await openWorld(process.argv[2] as string);
while (await w.activity.round()) process.stdout.write(`ts ${w.verified.last()?.timestamp}\n`);
await w.close();
process.stdout.write("done\n");
