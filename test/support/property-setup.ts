// Vitest setup file (vitest.config.ts `setupFiles`): every fast-check property runs with a pinned seed, so that
// `npm test` checks the same generated cases on every run and a property cannot turn CI red by drawing a new
// counterexample (see docs/adr/0092-pinned-property-seeds.md). To explore locally:
//   FC_SEED=random FC_RUNS=30 npx vitest run test/unit/protocol   # fresh seeds, 30× the runs
//   FC_SEED=-621488359 npx vitest run <file>                       # replay a seed a failure reported
// A counterexample found that way becomes an example-based test next to its property.
import fc from "fast-check";
import { propertyRunFactor } from "./property.js";

/** The seed `npm test` runs every property with (any 32-bit integer; changing it is a deliberate act). */
export const PINNED_PROPERTY_SEED = 20_261_125;

const requested = process.env.FC_SEED?.trim();
let seed: number | undefined = PINNED_PROPERTY_SEED;
if (requested === "random") seed = undefined;
else if (requested !== undefined && requested !== "") {
  seed = Number(requested);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got ${requested}`);
}
// Properties that name no numRuns run fast-check's default 100, scaled like runs() scales the others.
fc.configureGlobal({
  ...(seed === undefined ? {} : { seed }),
  numRuns: Math.max(1, Math.round(100 * propertyRunFactor())),
});
