/**
 * vitest's file order for two workers: the long files that mostly wait on block times (the chaos run, the Go
 * reference tests) start first, so that they run beside the rest instead of ending the run alone. A clean clone has
 * no vitest results cache, and vitest's own order (failed, then longest, from that cache; else larger files first)
 * would start the 190 s chaos run wherever its file size puts it. The rest keeps vitest's order.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Path prefixes (from the repository root), longest first: the chaos short run ~200 s, the reference files 25–95 s
 * each, the devnet and deploy files 5–30 s; the integration files before the unit and conformance files (under a
 * second each, they even out the two workers' ends).
 */
export const LONG_FIRST = [
  "test/chaos/",
  "test/reference/derivation-oracle",
  "test/reference/",
  "test/integration/node/l1-finality-reorg",
  "test/integration/app/devnet-",
  "test/integration/deploy/",
  "test/integration/",
  "packages/devnet/test/integration/",
] as const;

function rank(spec: TestSpecification): number {
  const path = spec.moduleId.slice(spec.project.config.root.length + 1);
  const at = LONG_FIRST.findIndex((prefix) => path.startsWith(prefix));
  return at < 0 ? LONG_FIRST.length : at;
}

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return base.sort((a, b) => rank(a) - rank(b));
  }
}
