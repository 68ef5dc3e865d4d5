import { defineConfig } from "vitest/config"

/** Test files that need the throwaway PostgreSQL of the `postgres` project: `*.pg.test.ts`. */
const postgresTests = ["packages/*/test/**/*.pg.test.ts", "examples/**/*.pg.test.ts", "bench/test/**/*.pg.test.ts"]

export default defineConfig({
  test: {
    // A ceiling, not a measurement: subprocess and loopback tests spawn real processes,
    // and a shared 2-core machine running other test files at once can be slow.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Under CI, also write a JSON report: .ci/run derives its "N passed, N failed" line from it.
    reporters: process.env["CI"] ? ["default", "json"] : ["default"],
    outputFile: { json: ".vitest-results.json" },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts", "bench/test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...postgresTests],
          // Two files at once (vitest's default on 2 cores is one): most files wait on child processes,
          // sockets and timers, and none shares a port, a directory or a database with another.
          maxWorkers: 2,
          globalSetup: ["examples/cli/bundle.setup.ts"]
        }
      },
      {
        // A project's global setup runs only when one of its files is in the run, so the
        // database starts only for the tests that need it.
        extends: true,
        test: {
          name: "postgres",
          include: postgresTests,
          globalSetup: ["packages/cluster/test/postgres.setup.ts"],
          // Two files at once: they spend most of their time waiting on runner processes, timers and the
          // database, and each works in databases of its own on free ports. A maxWorkers of its own needs a
          // sequence group of its own.
          maxWorkers: 2,
          sequence: { groupOrder: 1 }
        }
      }
    ]
  }
})
