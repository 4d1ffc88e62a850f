import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../support/property.js";
import { PINNED_PROPERTY_SEED } from "../../support/property-setup.js";

// npm test must check the same generated cases every run (docs/adr/0092-pinned-property-seeds.md).
describe.runIf(process.env.FC_SEED === undefined && process.env.FC_RUNS === undefined)("property test set-up", () => {
  it("pins fast-check's seed and keeps each property's own run count", () => {
    expect(fc.readConfigureGlobal()).toMatchObject({ seed: PINNED_PROPERTY_SEED, numRuns: 100 });
    expect(runs(300)).toBe(300);
  });

  it("draws the same cases on every run", () => {
    const draw = (): number[] => {
      const seen: number[] = [];
      fc.assert(
        fc.property(fc.integer(), (n) => {
          seen.push(n);
        }),
        { numRuns: 20 },
      );
      return seen;
    };
    expect(draw()).toEqual(draw());
  });
});
