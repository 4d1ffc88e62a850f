// Run counts for fast-check properties. `runs(n)` is n on `npm test`; FC_RUNS=<factor> scales every property's
// count for a local search with more cases (with FC_SEED=random: test/support/property-setup.ts).

/** The factor FC_RUNS asks for (1 when unset). */
export function propertyRunFactor(): number {
  const raw = process.env.FC_RUNS?.trim();
  if (raw === undefined || raw === "") return 1;
  const factor = Number(raw);
  if (!Number.isFinite(factor) || factor <= 0) throw new Error(`FC_RUNS must be a positive number, got ${raw}`);
  return factor;
}

/** `n` runs, scaled by FC_RUNS. */
export function runs(n: number): number {
  return Math.max(1, Math.round(n * propertyRunFactor()));
}
