export function assertNever(value: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${String(value)}`);
}

export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`invariant failed: ${message}`);
}
