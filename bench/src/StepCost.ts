/**
 * The cost of one loop step: time and bytes allocated per step, at 20 steps
 * and in one 2,000-step run, for the plain loop, agent-kernel (with nobody
 * listening, and with one observer and spans on the default tracer), the
 * Vercel AI SDK and @effect/ai; then how flat each stays as history grows.
 *
 * A sample is a batch of runs (several at 20 steps, one at 2,000) after a
 * full collection; its time includes the collections the runs caused.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as AiSdkLoop from "./AiSdkLoop.js"
import * as EffectFloor from "./EffectFloor.js"
import * as EffectAiLoop from "./EffectAiLoop.js"
import * as Goal from "./Goal.js"
import * as KernelLoop from "./KernelLoop.js"
import * as Measure from "./Measure.js"
import * as Package from "./Package.js"
import * as PlainLoop from "./PlainLoop.js"
import * as Report from "./Report.js"

/**
 * How much to measure.
 *
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  /**
   * 20-step runs of every loop before anything is measured, for the JIT: the
   * kernel's per-step time falls for its first ~150 runs (from ~300 µs to ~30
   * µs at 20 steps, in one study), the plain loop's at once; the figures are
   * the steady state of a process that runs many sessions, for every loop alike.
   */
  readonly warmupRuns: number
  readonly shortRounds: number
  readonly runsPerShortSample: number
  readonly longRounds: number
  /** Samples of the AI SDK and @effect/ai at 2,000 steps (each takes seconds to a minute); 0 skips them. */
  readonly longComparisonSamples: number
}

/**
 * @since 0.1.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = {
  full: { warmupRuns: 200, shortRounds: 15, runsPerShortSample: 4, longRounds: 5, longComparisonSamples: 1 },
  quick: { warmupRuns: 150, shortRounds: 7, runsPerShortSample: 4, longRounds: 3, longComparisonSamples: 0 }
}

/**
 * The short and the long run's step counts.
 *
 * @since 0.1.0
 * @category constants
 */
export const shortSteps = 20

/**
 * @since 0.1.0
 * @category constants
 */
export const longSteps = 2_000

type Role = "baseline" | "kernel" | "comparison" | "floor"

interface Loop {
  readonly name: string
  readonly role: Role
  readonly run: (steps: number) => Promise<unknown>
}

const plain: Loop = { name: "plain async loop (baseline)", role: "baseline", run: (steps) => PlainLoop.run(steps) }
const quiet: Loop = {
  name: "agent-kernel, nobody listening",
  role: "kernel",
  run: (steps) => KernelLoop.run(steps, { observed: false })
}
const observed: Loop = {
  name: "agent-kernel, one observer + spans",
  role: "kernel",
  run: (steps) => KernelLoop.run(steps, { observed: true })
}
const aiSdk: Loop = {
  name: `Vercel AI SDK ${Package.version("ai")}`,
  role: "comparison",
  run: (steps) => AiSdkLoop.run(steps)
}
const effectAi: Loop = {
  name: `@effect/ai ${Package.version("@effect/ai")}`,
  role: "comparison",
  run: (steps) => EffectAiLoop.run(steps)
}
// Context rows, not goals: what a loop on Effect costs before any of the kernel's work (EffectFloor.ts).
const bareEffect: Loop = {
  name: "Effect floor: bare Effect.gen",
  role: "floor",
  run: (steps) => Effect.runPromise(EffectFloor.run(steps, { variant: "bare" }))
}
const tracedEffect: Loop = {
  name: "Effect floor: + a fiber and a span per call",
  role: "floor",
  run: (steps) => Effect.runPromise(EffectFloor.run(steps, { variant: "traced" }))
}
const loops: ReadonlyArray<Loop> = [plain, quiet, observed, aiSdk, effectAi, bareEffect, tracedEffect]

/**
 * Per-step figures of one loop in one scenario; `NaN` when not measured.
 *
 * @since 0.1.0
 * @category models
 */
export interface Figures {
  readonly micros: number
  /** CPU time of the whole process (GC threads included): less disturbed than wall time on a busy machine. */
  readonly cpuMicros: number
  readonly kilobytes: number
  readonly samples: number
}

const measureScenario = async (
  steps: number,
  rounds: number,
  runsPerSample: number,
  samplesOf: (loop: Loop) => number
): Promise<ReadonlyMap<Loop, Figures>> => {
  const perSample = steps * runsPerSample
  const samples = await Measure.interleave(
    loops.map((loop) => ({
      name: loop.name,
      samples: samplesOf(loop),
      measure: () =>
        Measure.sample(async () => {
          for (let run = 0; run < runsPerSample; run++) await loop.run(steps)
        })
    })),
    rounds
  )
  return new Map(
    loops.map((loop, index) => {
      const taken = samples[index] ?? []
      return [
        loop,
        {
          micros: Measure.median(taken.map((sample) => (sample.millis * 1_000) / perSample)),
          cpuMicros: Measure.median(taken.map((sample) => sample.cpuMicros / perSample)),
          kilobytes: Measure.median(taken.map((sample) => sample.bytes / 1_024 / perSample)),
          samples: taken.length
        }
      ]
    })
  )
}

const print = (title: string, figures: ReadonlyMap<Loop, Figures>): void => {
  const base = figures.get(plain)
  console.log(`\n${title}`)
  console.log(
    Report.table(
      ["loop", "µs/step", "x plain", "CPU µs/step", "KB/step", "x plain", "samples"],
      loops.map((loop) => {
        const own = figures.get(loop)
        return [
          loop.name,
          Report.figure(own?.micros),
          Report.times(Goal.ratio(own?.micros, base?.micros)),
          Report.figure(own?.cpuMicros),
          Report.figure(own?.kilobytes),
          Report.times(Goal.ratio(own?.kilobytes, base?.kilobytes)),
          own === undefined || own.samples === 0 ? "skipped" : String(own.samples)
        ]
      })
    )
  )
}

/**
 * Measures, prints the tables and returns the verdicts on the step goals.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  for (let warm = 0; warm < plan.warmupRuns; warm++) for (const loop of loops) await loop.run(shortSteps)

  const short = await measureScenario(shortSteps, plan.shortRounds, plan.runsPerShortSample, () => plan.shortRounds)
  print(
    `Per step, ${shortSteps}-step runs (median of interleaved samples of ${plan.runsPerShortSample} runs each; ` +
      "KB from v8.GCProfiler)",
    short
  )
  const long = await measureScenario(longSteps, plan.longRounds, 1, (loop) =>
    loop.role === "comparison" ? plan.longComparisonSamples : plan.longRounds
  )
  print(
    `Per step, one ${longSteps.toLocaleString("en-US")}-step run (median of interleaved runs` +
      `${plan.longComparisonSamples === 0 ? "; the comparisons are skipped with --quick" : ""})`,
    long
  )

  console.log(`\nFlat in history: the ${longSteps.toLocaleString("en-US")}-step figure ÷ the ${shortSteps}-step figure`)
  console.log(
    Report.table(
      ["loop", "time", "allocation"],
      loops.map((loop) => [
        loop.name,
        Report.times(Goal.ratio(long.get(loop)?.micros, short.get(loop)?.micros)),
        Report.times(Goal.ratio(long.get(loop)?.kilobytes, short.get(loop)?.kilobytes))
      ])
    )
  )

  const kernelShort = short.get(observed)
  const kernelLong = long.get(observed)
  const label = "agent-kernel (observer + spans)"
  const [shortName, longName] = [shortSteps, longSteps].map((steps) => steps.toLocaleString("en-US"))
  return [
    Goal.judge(Goal.make(`${label} µs/step, ${shortName} steps`, "at most", 30, "µs"), kernelShort?.micros),
    Goal.judge(Goal.make(`${label} µs/step, ${longName} steps`, "at most", 30, "µs"), kernelLong?.micros),
    Goal.judge(Goal.make(`${label} KB/step, ${shortName} steps`, "at most", 20, "KB"), kernelShort?.kilobytes),
    Goal.judge(Goal.make(`${label} KB/step, ${longName} steps`, "at most", 20, "KB"), kernelLong?.kilobytes),
    Goal.judge(
      Goal.make(`flat: ${longName}-step ÷ ${shortName}-step time`, "at most", 1.2, "x"),
      Goal.ratio(kernelLong?.micros, kernelShort?.micros)
    ),
    Goal.judge(
      Goal.make(`flat: ${longName}-step ÷ ${shortName}-step allocation`, "at most", 1.2, "x"),
      Goal.ratio(kernelLong?.kilobytes, kernelShort?.kilobytes)
    ),
    Goal.judge(
      Goal.make(`AI SDK time ÷ agent-kernel's, ${shortName} steps`, "at least", 5, "x"),
      Goal.ratio(short.get(aiSdk)?.micros, kernelShort?.micros)
    ),
    Goal.judge(
      Goal.make(`AI SDK time ÷ agent-kernel's, ${longName} steps`, "at least", 50, "x"),
      Goal.ratio(long.get(aiSdk)?.micros, kernelLong?.micros)
    ),
    Goal.judge(
      Goal.make(`@effect/ai time ÷ agent-kernel's, ${shortName} steps`, "more than", 1, "x"),
      Goal.ratio(short.get(effectAi)?.micros, kernelShort?.micros)
    ),
    Goal.judge(
      Goal.make(`@effect/ai time ÷ agent-kernel's, ${longName} steps`, "more than", 1, "x"),
      Goal.ratio(long.get(effectAi)?.micros, kernelLong?.micros)
    )
  ]
}
