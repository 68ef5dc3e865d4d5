/**
 * The loop benchmark: agent-kernel against the last kernel on Effect 3, a
 * plain async loop, the Vercel AI SDK, effect/ai's `LanguageModel` and
 * Effect's own floor, side by side in one process, with the goals printed
 * beside the figures and judged from them. `bench/README.md` describes every
 * section, its method and its goals.
 *
 * Run: `pnpm run bench` (`main.ts` compiles this module and runs it), or
 * `pnpm run bench --quick` (fewer rounds, and no 2,000-step run of the AI
 * SDK or effect/ai). `--only <word>` (repeatable) runs only the sections
 * whose title has the word, e.g. `pnpm run bench --only concurrent --only idle`.
 *
 * Adding a measurement: write a module like `StepCost.ts` (its own plans,
 * its tables, the verdicts on its goals) and add it to `sections` below.
 *
 * @since 0.1.0
 */
import * as AdaptiveLimiter from "./AdaptiveLimiter.js"
import * as ConcurrentSessions from "./ConcurrentSessions.js"
import * as Entry from "./Entry.js"
import * as IdleSessions from "./IdleSessions.js"
import * as Journaling from "./Journaling.js"
import * as Report from "./Report.js"
import * as RetryAmplification from "./RetryAmplification.js"
import * as StepCost from "./StepCost.js"
import * as StreamLatency from "./StreamLatency.js"

const sections: ReadonlyArray<Entry.Section> = [
  {
    title: "Loop cost per step",
    run: (quick) => StepCost.run(quick ? StepCost.plans.quick : StepCost.plans.full)
  },
  {
    title: "Concurrent sessions",
    run: (quick) => ConcurrentSessions.run(quick ? ConcurrentSessions.plans.quick : ConcurrentSessions.plans.full)
  },
  {
    title: "Idle sessions",
    run: (quick) => IdleSessions.run(quick ? IdleSessions.plans.quick : IdleSessions.plans.full)
  },
  {
    title: "Journaling cost per step (durable sessions)",
    run: (quick) => Journaling.run(quick ? Journaling.plans.quick : Journaling.plans.full)
  },
  {
    title: "Retry amplification",
    run: (quick) => RetryAmplification.run(quick ? RetryAmplification.plans.quick : RetryAmplification.plans.full)
  },
  {
    title: "Adaptive rate limiter",
    run: (quick) => AdaptiveLimiter.run(quick ? AdaptiveLimiter.plans.quick : AdaptiveLimiter.plans.full)
  },
  {
    title: "Streaming: time to first delta and cost per delta",
    run: (quick) => StreamLatency.run(quick ? StreamLatency.plans.quick : StreamLatency.plans.full)
  }
]

Entry.start({
  command: "bench",
  name: "loop benchmark",
  sections,
  report: (verdicts) => {
    console.log("\n== Goals, judged from the figures above")
    console.log(Report.verdicts(verdicts))
  }
})
