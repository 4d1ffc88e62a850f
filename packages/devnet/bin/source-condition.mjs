// Module resolution hook: adds the "supernode-source" export condition, under which the supernode package's exports name
// its TypeScript sources instead of the compiled dist/ (the same condition vitest and tsc use).
export async function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes("supernode-source")
    ? context.conditions
    : [...context.conditions, "supernode-source"];
  return nextResolve(specifier, { ...context, conditions });
}
