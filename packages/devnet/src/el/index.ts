export {
  SimulatedExecutionClient,
  type SimulatedElOptions,
  type SimulatedElDeps,
  DEFAULT_HTTP_API,
} from "./simulated-el.js";
export { mintEngineJwt, parseJwtSecret, verifyEngineJwt } from "./jwt-auth.js";
export { forksFromRollupConfig } from "./forks.js";
export { CROSS_L2_INBOX, CROSS_L2_INBOX_ABI, LOG_EMITTER_ABI, LOG_EMITTER_ADDRESS } from "./interop-predeploys.js";
export type { ElForks, Eip1559Constants, Variant } from "./types.js";
