import { devnetProgram } from "./command.js";

/** Entry point of the `supernode-devnet` binary (`bin/supernode-devnet.js` imports this module). */
await devnetProgram().parseAsync(process.argv);
