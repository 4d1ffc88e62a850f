import { endWithParent, terminateSelf } from "supernode";
import { devnetProgram } from "./command.js";

// Spawned by the chaos suite or a bench (with an IPC channel): end when that parent ends, however it ends.
endWithParent(() => terminateSelf());

/** Entry point of the `supernode-devnet` binary (`bin/supernode-devnet.js` imports this module). */
await devnetProgram().parseAsync(process.argv);
