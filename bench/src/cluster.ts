/**
 * The scale-out benchmark (issue 15): `npx -y pnpm@12.4.2 bench:cluster`
 * (or `--quick`). It starts its own throwaway PostgreSQL and runner
 * processes, so it is kept apart from the loop benchmark (`bench`):
 *
 * - `ClusterScale.ts`: sessions per second and turn latency of the example
 *   service at 1, 2 and 3 runner processes, interleaved, against the fake
 *   provider with a fixed model latency.
 * - `RetryAmplification.ts`: attempts per success against a capacity-limited
 *   fake provider, per-session budgets against the shared quota and limiter
 *   (also a section of `bench`).
 *
 * @since 0.1.0
 */
import * as os from "node:os"
import { performance } from "node:perf_hooks"
import * as ClusterScale from "./ClusterScale.js"
import * as RetryAmplification from "./RetryAmplification.js"

const usage = "usage: npx -y pnpm@12.4.2 bench:cluster [--quick]"

const main = async (args: ReadonlyArray<string>): Promise<number> => {
  const unknown = args.filter((arg) => arg !== "--quick")
  if (unknown.length > 0) {
    console.error(`unknown argument${unknown.length > 1 ? "s" : ""}: ${unknown.join(" ")}\n${usage}`)
    return 2
  }
  const quick = args.includes("--quick")
  const started = performance.now()
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")
  console.log(
    `agent-kernel scale-out benchmark${quick ? " (--quick)" : ""}: node ${process.version}, ` +
      `${os.availableParallelism()} cores, load average ${load} at start`
  )
  console.log("\n== Runner processes (issue 15)")
  await ClusterScale.run(quick ? ClusterScale.plans.quick : ClusterScale.plans.full)
  console.log("\n== Retry amplification (issue 15)")
  await RetryAmplification.run(quick ? RetryAmplification.plans.quick : RetryAmplification.plans.full)
  console.log(`\nTook ${((performance.now() - started) / 1_000).toFixed(0)} s.`)
  return 0
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
