/**
 * The scale-out benchmark (issue 15): `npx -y pnpm@12.4.2 bench:cluster`
 * (or `--quick`). It starts its own throwaway PostgreSQL and runner
 * processes, so it is kept apart from the loop benchmark (`bench`):
 *
 * - `ClusterScale.ts`: sessions per second and turn latency of the example
 *   service at 1, 2 and 3 runner processes, interleaved, against the fake
 *   provider with a fixed model latency.
 * - `PgOwner.ts`: the cost of `Engine.layerSql`'s fencing on Postgres (every
 *   statement on the connection holding the owner lock, issue 13) against
 *   the unfenced pool and a per-write `pg_locks` check.
 * - `RetryAmplification.ts`: attempts per success against a capacity-limited
 *   fake provider, per-session budgets against the shared quota and limiter
 *   (also a section of `bench`).
 *
 * @since 0.1.0
 */
import * as ClusterScale from "./ClusterScale.js"
import * as Entry from "./Entry.js"
import * as PgOwner from "./PgOwner.js"
import * as RetryAmplification from "./RetryAmplification.js"

Entry.start({
  command: "bench:cluster",
  name: "scale-out benchmark",
  run: async (quick) => {
    console.log("\n== Runner processes (issue 15)")
    await ClusterScale.run(quick ? ClusterScale.plans.quick : ClusterScale.plans.full)
    console.log("\n== Postgres owner lock: the cost of fencing (issue 13)")
    await PgOwner.run(quick ? PgOwner.plans.quick : PgOwner.plans.full)
    console.log("\n== Retry amplification (issue 15)")
    await RetryAmplification.run(quick ? RetryAmplification.plans.quick : RetryAmplification.plans.full)
  }
})
