import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts", "bench/test/**/*.test.ts"],
    // A ceiling, not a measurement: subprocess and loopback tests spawn real processes,
    // and a shared 2-core machine running other test files at once can be slow.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Under CI, also write a JSON report: .ci/run derives its "N passed, N failed" line from it.
    reporters: process.env["CI"] ? ["default", "json"] : ["default"],
    outputFile: { json: ".vitest-results.json" }
  }
})
