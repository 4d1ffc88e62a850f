import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** `bin/supernode-devnet.js` of this package, for running the devnet (or `supernode-devnet el`) as a process. */
export function devnetBin(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "supernode-devnet.js");
}
