/**
 * Metrics registered once per prom-client registry: a second creation on the same registry (a restarted chain, a
 * restarted P2P host) returns the series already there, so their values carry over.
 */
import { Counter, Gauge, type Registry } from "prom-client";

/** The registry's metric of that name, else the one `make` registers there. */
export function reuseOr<T>(register: Registry, name: string, make: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? make();
}

export function registeredGauge<L extends string>(
  register: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Gauge<L> {
  return reuseOr(register, name, () => new Gauge<L>({ name, help, labelNames, registers: [register] }));
}

export function registeredCounter<L extends string>(
  register: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return reuseOr(register, name, () => new Counter<L>({ name, help, labelNames, registers: [register] }));
}
