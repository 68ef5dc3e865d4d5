/**
 * `pnpm run bench`: the loop benchmark (`LoopBenchmark.ts`), compiled and run
 * as JavaScript (`Compiled.ts`), with the command line passed on.
 *
 * @since 0.1.0
 */
import * as Compiled from "./Compiled.js"

Compiled.run("LoopBenchmark.ts", process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
