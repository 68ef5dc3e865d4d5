/**
 * Many sessions at once on a slow model: 1,000 sessions, each one run of 10
 * turns (9 tool steps and the final answer), all started together, with every
 * model call waiting 5 ms on a real timer (`Effect.sleep` on the live clock
 * for the kernel, `setTimeout` for the plain loop). The ideal is 50 ms of
 * wall time; the rest is the loop's own CPU, which the 5 ms waits cannot hide
 * once a thousand sessions share one thread. Three rows below the goal's two
 * are Effect's own floor for the same scenario (a bare `Effect.gen`, then a
 * fiber per call, then a span per call; `EffectFloor.ts`): what no loop on
 * Effect avoids, so the kernel's own share reads as its ratio to them. One
 * more puts each call on a fiber the way the kernel does (started at once on
 * the caller's stack, waited for only when it suspends): the floor of the
 * kernel's own design, where `Effect.fork` and `Fiber.join` send every call
 * through the scheduler twice.
 *
 * Both models wait the same way, one 5 ms `setTimeout` per call (Effect's
 * live clock sleeps with `setTimeout`), so the ratio compares the loops, not
 * their waits. What an Effect wait costs is the kernel's own: with 1,000
 * fibers waiting, an `Effect.sleep` on the fiber costs 10-20 µs of CPU per
 * wait where an awaited promise costs about 1 µs, and the same wait on a
 * forked fiber (the kernel's model call has its own, for its attempt
 * timeout) 30-45 µs. "GC % of wall" is the main thread's collection pauses:
 * a suspended session holds about 30 KB the young generation copies at each
 * scavenge, the plain loop's about 2.5 KB.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as EffectFloor from "./EffectFloor.js"
import * as Goal from "./Goal.js"
import * as KernelLoop from "./KernelLoop.js"
import * as Measure from "./Measure.js"
import * as PlainLoop from "./PlainLoop.js"
import * as Report from "./Report.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly rounds: number
}

/**
 * @since 0.1.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = { full: { rounds: 3 }, quick: { rounds: 1 } }

/**
 * @since 0.1.0
 * @category constants
 */
export const sessions = 1_000

/**
 * Model calls per session.
 *
 * @since 0.1.0
 * @category constants
 */
export const turns = 10

/**
 * @since 0.1.0
 * @category constants
 */
export const latencyMs = 5

const toolSteps = turns - 1
const each = Array.from({ length: sessions }, (_, index) => index)

const plain = {
  name: "plain async loop (baseline)",
  run: () => Promise.all(each.map(() => PlainLoop.run(toolSteps, { latencyMs })))
}
// Context rows, not goals: what a loop on Effect costs before any of the kernel's work (see EffectFloor.ts).
// `Effect.fork` and `Fiber.join` are the plain Effect way to put a call on a fiber; the kernel starts its
// call fibers at once and waits only for one that suspends, which the last row measures.
const floorNames: Record<"bare" | "forked" | "spanned" | "started", string> = {
  bare: "bare Effect.gen",
  forked: "+ a fiber per call (fork, join)",
  spanned: "+ a span per call",
  started: "+ a fiber per call, as the kernel starts it"
}
const floors = (["bare", "forked", "spanned", "started"] as const).map((variant) => ({
  name: `Effect floor: ${floorNames[variant]}`,
  run: () =>
    Effect.runPromise(
      Effect.forEach(each, () => EffectFloor.run(toolSteps, { variant, latencyMs }), {
        concurrency: "unbounded",
        discard: true
      })
    )
}))
const kernel = {
  name: "agent-kernel, one observer + spans",
  run: () =>
    Effect.runPromise(
      Effect.forEach(each, () => KernelLoop.runEffect(toolSteps, { observed: true, latencyMs }), {
        concurrency: "unbounded",
        discard: true
      })
    )
}

/**
 * Measures, prints the table and returns the verdict on the sessions goal.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const contenders = [plain, kernel, ...floors]
  // One untimed round each: the step section warms both loops up, but not the paths a suspended call
  // takes (timers, a fiber resumed by the scheduler), and the section may run alone (`--only`).
  for (const contender of contenders) await contender.run()
  const samples = await Measure.interleave(
    contenders.map((contender) => ({
      name: contender.name,
      samples: plan.rounds,
      measure: () => Measure.sample(contender.run)
    })),
    plan.rounds
  )
  const sessionTurns = sessions * turns
  const figures = samples.map((taken) => ({
    wall: Measure.median(taken.map((sample) => sample.millis)),
    cpu: Measure.median(taken.map((sample) => sample.cpuMicros / sessionTurns)),
    kilobytes: Measure.median(taken.map((sample) => sample.bytes / 1_024 / sessionTurns)),
    gcShare: Measure.median(taken.map((sample) => sample.gcMicros / 1_000 / sample.millis))
  }))
  const [plainFigures, kernelFigures, bareFigures] = figures
  const ideal = turns * latencyMs
  console.log(
    `\n${sessions.toLocaleString("en-US")} sessions x ${turns} turns at ${latencyMs} ms model latency, all at once ` +
      `(ideal ${ideal} ms; median of ${plan.rounds} interleaved rounds)`
  )
  console.log(
    Report.table(
      [
        "loop",
        "wall ms",
        "x plain",
        "x bare Effect",
        "x ideal",
        "CPU µs/session-turn",
        "KB/session-turn",
        "GC % of wall"
      ],
      contenders.map((contender, index) => {
        const own = figures[index]
        return [
          contender.name,
          Report.figure(own?.wall),
          Report.times(Goal.ratio(own?.wall, plainFigures?.wall)),
          Report.times(Goal.ratio(own?.wall, bareFigures?.wall)),
          Report.times(Goal.ratio(own?.wall, ideal)),
          Report.figure(own?.cpu),
          Report.figure(own?.kilobytes),
          Report.figure(own === undefined ? undefined : own.gcShare * 100)
        ]
      })
    )
  )
  return [
    Goal.judge(
      Goal.make(
        `${sessions.toLocaleString("en-US")} sessions x ${turns} turns: wall ÷ plain loop's`,
        "at most",
        5,
        "x"
      ),
      Goal.ratio(kernelFigures?.wall, plainFigures?.wall)
    )
  ]
}
