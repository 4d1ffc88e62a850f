import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["./src/core/polyfill.ts", "./test/support/property-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
