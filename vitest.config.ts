import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    // Subprocess and loopback tests spawn real processes; give a shared, noisy machine room.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Under CI, also write a JSON report: .ci/run derives its "N passed, N failed" line from it.
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: ".vitest-results.json" }
  }
})
