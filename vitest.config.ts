import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { LongFirstSequencer } from "./test/support/sequencer.js";

/** The product's tests (test/) and the devnet package's (packages/devnet/test/); see docs/devnet.md. */
const conditions = ["supernode-source", "module", "node", "development"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["supernode-source"] } },
  test: {
    include: ["test/**/*.test.ts", "packages/devnet/test/**/*.test.ts"],
    setupFiles: ["./src/core/polyfill.ts", "./test/support/property-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // At least two files at a time, also on 2 cores (vitest's default there is one): the longest files mostly wait
    // on block times, and they start first (test/support/sequencer.ts). docs/adr/0114-two-test-workers.md.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongFirstSequencer },
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
