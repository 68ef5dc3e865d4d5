/**
 * Many sessions at once on a slow model: 1,000 sessions, each one run of 10
 * turns (9 tool steps and the final answer), all started together, with every
 * model call waiting 5 ms on a real timer (`Effect.sleep` on the live clock
 * for the kernels, `setTimeout` for the plain loop). The ideal is 50 ms of
 * wall time; the rest is the loop's own CPU, which the 5 ms waits cannot hide
 * once a thousand sessions share one thread.
 *
 * Beside the goal's two rows (the plain loop and agent-kernel), the Effect 3
 * kernel runs the same sessions (`Effect3Kernel.runMany`), and Effect's own
 * floor for the scenario (`EffectFloor.ts`): a bare `Effect.gen`, then a
 * fiber per call (forked and joined, or started at once as the kernel starts
 * its model calls), a span per call, and the loop written with Effect's own
 * tools. What no loop on Effect avoids is in those rows; the kernel's own
 * share reads as its ratio to them.
 *
 * Every model waits the same way, one 5 ms timer per call (Effect's live
 * clock sleeps with `setTimeout`), so the ratios compare the loops, not their
 * waits. "GC % of wall" is the main thread's collection pauses: what a
 * suspended session holds, the young generation copies at each scavenge.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Effect3Kernel from "./Effect3Kernel.js"
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

interface Contender {
  readonly name: string
  readonly run: () => Promise<unknown>
}

const plain: Contender = {
  name: "plain async loop (baseline)",
  run: () => Promise.all(each.map(() => PlainLoop.run(toolSteps, { latencyMs })))
}
const kernel: Contender = {
  name: "agent-kernel, one observer + spans",
  run: () =>
    Effect.runPromise(
      Effect.forEach(each, () => KernelLoop.runEffect(toolSteps, { observed: true, latencyMs }), {
        concurrency: "unbounded",
        discard: true
      })
    )
}
const effect3 = (kernel: Effect3Kernel.Effect3Kernel): Contender => ({
  name: "Effect 3 kernel, one observer + spans",
  run: () => kernel.runMany(sessions, toolSteps, { observed: true, latencyMs })
})
// Context rows, not goals: what a loop on Effect costs before any of the kernel's work (see EffectFloor.ts).
const floorNames: ReadonlyArray<readonly [EffectFloor.Variant, string]> = [
  ["bare", "bare Effect.gen"],
  ["forked", "+ a fiber per call (fork, join)"],
  ["started", "+ a fiber per call, started as the kernel starts it"],
  ["spanned", "+ a span per call"],
  ["idiomatic", "Effect's own tools (fiber, timeout, span, Ref, Semaphore)"]
]
const floors: ReadonlyArray<Contender> = floorNames.map(([variant, name]) => ({
  name: `Effect floor: ${name}`,
  run: () =>
    Effect.runPromise(
      Effect.forEach(each, () => EffectFloor.run(toolSteps, { variant, latencyMs }), {
        concurrency: "unbounded",
        discard: true
      })
    )
}))

/**
 * Measures, prints the table and returns the verdict on the sessions goal.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const contenders = [plain, kernel, effect3(await Effect3Kernel.load()), ...floors]
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
  const [plainFigures, kernelFigures, effect3Figures, bareFigures] = figures
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
        "x Effect 3 kernel",
        "x bare Effect",
        "x ideal",
        "CPU µs/session-turn",
        "CPU x plain",
        "KB/session-turn",
        "GC % of wall"
      ],
      contenders.map((contender, index) => {
        const own = figures[index]
        return [
          contender.name,
          Report.figure(own?.wall),
          Report.times(Goal.ratio(own?.wall, plainFigures?.wall)),
          Report.times(Goal.ratio(own?.wall, effect3Figures?.wall)),
          Report.times(Goal.ratio(own?.wall, bareFigures?.wall)),
          Report.times(Goal.ratio(own?.wall, ideal)),
          Report.figure(own?.cpu),
          Report.times(Goal.ratio(own?.cpu, plainFigures?.cpu)),
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
        "x",
        "issue 22"
      ),
      Goal.ratio(kernelFigures?.wall, plainFigures?.wall)
    )
  ]
}
