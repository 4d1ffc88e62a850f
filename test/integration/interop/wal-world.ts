/** A deterministic two-chain world with messages both ways, and the activity over stores in `dir`. */
import { join } from "node:path";
import { InteropActivity } from "../../../src/activities/interop/activity.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import { VerifiedStore } from "../../../src/io/db/interop/verified-store.js";
import { makeDependencySet } from "../../../src/protocol/interop/dependency-set.js";
import { WorldChain, WorldL1 } from "../../unit/activities/interop-world.js";

export const BLOCKS = 400;

export async function openWorld(dir: string) {
  const l1 = new WorldL1();
  const a = new WorldChain(901n, 1, 1000, l1);
  const b = new WorldChain(902n, 2, 1000, l1);
  for (let n = 1; n <= BLOCKS; n++) {
    a.push([WorldChain.initiating(`a${n}`), ...(n > 2 && n % 2 === 0 ? [b.executing(n / 2 - 1, 0)] : [])]);
    if (n <= BLOCKS / 2) b.push([WorldChain.initiating(`b${n}`), ...(n > 1 ? [a.executing(n - 1, 0)] : [])]);
  }
  a.localSafe = BLOCKS;
  b.localSafe = BLOCKS / 2;
  const verified = await VerifiedStore.open(join(dir, "verified"));
  const logs = new Map([
    ["901", await verified.logsStore("901")], // sublevels: each round is one atomic batch
    ["902", await verified.logsStore("902")],
  ]);
  const activity = new InteropActivity(
    { activationTimestamp: 1000, dependencySet: makeDependencySet([901n, 902n]) },
    { chains: [a, b], logs, verified, l1, clock: systemClock, logger: silentLogger },
  );
  const close = async () => {
    await verified.close();
    for (const s of logs.values()) await s.close();
  };
  return { activity, verified, logs, chains: [a, b], close };
}
