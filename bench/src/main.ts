/**
 * The loop benchmark (issue 9): agent-kernel against a plain async loop, the
 * Vercel AI SDK 6 and @effect/ai 0.37, side by side in one process, with the
 * goals printed beside the figures and judged from them.
 *
 * Run: `npx -y pnpm@12.4.2 bench` (about 2 minutes on a 2-core machine at
 * load 6, nearly 4 at load 12), or `npx -y pnpm@12.4.2 bench --quick` (under
 * a minute: fewer rounds, and no 2,000-step run of the AI SDK or @effect/ai).
 * `--only <word>` (repeatable) runs only the sections whose title has the
 * word, e.g. `bench --only concurrent --only idle`. The concurrent section
 * warms its loops up itself; the timed sections after it rely on the step
 * section's warm-up, so read their times from a full run.
 *
 * What every loop does (`Script.ts`): a zero-latency model asks for one call
 * of one tool per response, `steps` times, then answers with text; the tool
 * echoes its input. Each loop counts the model and tool calls it really made
 * and a run with the wrong count fails the benchmark.
 *
 * How it measures (`Measure.ts`): every loop first runs 200 times (150 with
 * `--quick`) so that the JIT has settled for each alike (the kernel's step
 * time keeps falling for ~150 runs); then samples are taken in interleaved rounds
 * (each round runs every contender once, in a rotating order) and medians are
 * printed, with ratios to the plain loop measured in the same run. Each
 * sample starts after a full collection; its allocation is the heap's growth
 * plus the bytes each GC during it freed (`v8.GCProfiler`), so it stays exact
 * when the young generation overflows. Times include the collections a
 * sample caused. The machine is shared: read the ratios, not the absolutes.
 *
 * Fairness of the comparisons, and their caveats:
 * - The same scenario, the same tool, the same number of steps; every model
 *   answers with a newly built response object, as a real provider would.
 * - Per-run state (the mock model, call counters, the session or prompt) is
 *   fresh in every run; stateless definitions (tool schemas) are shared.
 * - AI SDK: `generateText` with `stopWhen: stepCountIs(steps + 1)` and
 *   `MockLanguageModelV3`, whose call log is cleared on every call (it keeps
 *   every request otherwise and would grow across the run). The tool input
 *   schema is `jsonSchema` without a validator. Its per-step time grows with
 *   the history because it converts the whole history on every step: the
 *   2,000-step run takes most of a minute, so it is sampled once.
 * - @effect/ai has no agent loop; the loop is `generateText` with a Toolkit
 *   (the library runs the tool), the response parts appended to the Prompt.
 *   It builds its response Schema anew and decodes with it on every call,
 *   which is most of its cost; that is the library as shipped. Its spans go
 *   to the same default tracer as the kernel's. Its 2,000-step run is also
 *   sampled once.
 * - agent-kernel runs through its public API with its defaults (metrics on,
 *   spans on Effect's default tracer), one `Session.make` and `run` per run.
 *
 * Adding a measurement: write a module like `StepCost.ts` (its own plans,
 * its tables, the verdicts on its goals) and add it to `sections` below.
 * `StreamLatency.ts` measures the stream's time to first delta and cost per
 * delta (issue 12), `Journaling.ts` durable sessions (issue 13).
 *
 * @since 0.1.0
 */
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
    title: "Retry amplification (issue 15)",
    run: (quick) => RetryAmplification.run(quick ? RetryAmplification.plans.quick : RetryAmplification.plans.full)
  },
  {
    title: "Streaming: time to first delta and cost per delta (issue 12)",
    run: (quick) => StreamLatency.run(quick ? StreamLatency.plans.quick : StreamLatency.plans.full)
  }
]

Entry.start({
  command: "bench",
  name: "loop benchmark",
  sections,
  report: (verdicts) => {
    console.log("\n== Goals (issue 9; the journaling goal is issue 13's), judged from the figures above")
    console.log(Report.verdicts(verdicts))
  }
})
