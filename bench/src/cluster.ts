/**
 * The scale-out benchmark: `pnpm run bench:cluster`
 * (`--quick` for fewer rounds, `--only <word>` for the sections whose title
 * has it). It starts its own throwaway PostgreSQL and runner
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
import * as AdaptiveLimiter from "./AdaptiveLimiter.js"
import * as ClusterScale from "./ClusterScale.js"
import * as Entry from "./Entry.js"
import * as PgOwner from "./PgOwner.js"
import * as RetryAmplification from "./RetryAmplification.js"

Entry.start({
  command: "bench:cluster",
  name: "scale-out benchmark",
  sections: [
    {
      title: "Runner processes",
      run: async (quick) => {
        await ClusterScale.run(quick ? ClusterScale.plans.quick : ClusterScale.plans.full)
        return []
      }
    },
    {
      title: "Postgres owner lock: the cost of fencing",
      run: (quick) => PgOwner.run(quick ? PgOwner.plans.quick : PgOwner.plans.full)
    },
    {
      title: "Retry amplification",
      run: (quick) => RetryAmplification.run(quick ? RetryAmplification.plans.quick : RetryAmplification.plans.full)
    },
    {
      title: "Adaptive rate limiter",
      run: (quick) => AdaptiveLimiter.run(quick ? AdaptiveLimiter.plans.quick : AdaptiveLimiter.plans.full)
    }
  ]
})
