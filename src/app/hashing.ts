import type { SuperRootHashing } from "../activities/superroot.js";
import { outputRootV0 } from "../protocol/output-root.js";
import { superRootV1 } from "../protocol/super-root.js";

/** Output root v0 and super root v1 from the protocol layer, for the superroot activity. */
export const protocolHashing: SuperRootHashing = {
  outputRoot: (o) => outputRootV0(o),
  superRoot: (timestamp, chains) =>
    superRootV1({ timestamp, chains: chains.map((c) => ({ chainId: c.chainId, output: c.outputRoot })) }),
};
