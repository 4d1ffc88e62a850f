import { defineConfig } from "vitest/config";

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
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
