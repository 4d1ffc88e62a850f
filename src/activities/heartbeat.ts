import { randomBytes } from "node:crypto";
import { isAborted } from "../core/errors/supernode-error.js";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import type { Hex } from "../core/types/primitives.js";

/** `heartbeat_check`: 4 random bytes from a CSPRNG as `0x` + 8 hex digits (different on every call). */
export function heartbeatCheck(): Hex {
  return `0x${randomBytes(4).toString("hex")}`;
}

export const HEARTBEAT_INTERVAL_MS = 10_000;

/** The runnable part: a DEBUG `heartbeat` line every interval until `signal` aborts (interval ≤ 0 → 1 s). */
export async function runHeartbeat(deps: {
  logger: Logger;
  clock: Clock;
  signal: AbortSignal;
  intervalMs?: number;
}): Promise<void> {
  const interval = (deps.intervalMs ?? HEARTBEAT_INTERVAL_MS) > 0 ? (deps.intervalMs ?? HEARTBEAT_INTERVAL_MS) : 1_000;
  for (let beat = 1; !deps.signal.aborted; beat++) {
    try {
      await deps.clock.sleep(interval, deps.signal);
    } catch (err) {
      if (isAborted(err, deps.signal)) return;
      throw err;
    }
    deps.logger.debug({ beat }, "heartbeat");
  }
}
