/**
 * The cost of one loop step: time, CPU and bytes allocated per step, at 20
 * steps and in one 2,000-step run, for the plain loop, agent-kernel (with
 * nobody listening, and with one observer and spans on Effect's default
 * tracer), the last kernel on Effect 3 (`Effect3Kernel.ts`) the same two
 * ways, the Vercel AI SDK, effect/ai's `LanguageModel` and Effect's own floor;
 * then how flat each stays as history grows, and the kernel against its
 * Effect 3 predecessor.
 *
 * A sample is a batch of runs (several at 20 steps, one at 2,000) after a
 * young-generation collection; its time includes the collections the runs
 * caused.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as AiSdk6Loop from "./AiSdk6Loop.js"
import * as AiSdkLoop from "./AiSdkLoop.js"
import * as Effect3Kernel from "./Effect3Kernel.js"
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
   * 20-step runs of every loop before anything is measured, for the JIT: a
   * kernel's per-step time keeps falling for its first runs, the plain loop's
   * settles at once; the figures are the steady state of a process that runs
   * many sessions, for every loop alike.
   */
  readonly warmupRuns: number
  readonly shortRounds: number
  readonly runsPerShortSample: number
  readonly longRounds: number
  /** Samples of the AI SDK and effect/ai at 2,000 steps (each takes seconds to a minute); 0 skips them. */
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

type Role = "baseline" | "kernel" | "effect3" | "comparison" | "floor"

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
const effect3Loops = (effect3: Effect3Kernel.Effect3Kernel): readonly [Loop, Loop] => [
  {
    name: "Effect 3 kernel, nobody listening",
    role: "effect3",
    run: (steps) => effect3.run(steps, { observed: false })
  },
  {
    name: "Effect 3 kernel, one observer + spans",
    role: "effect3",
    run: (steps) => effect3.run(steps, { observed: true })
  }
]
const aiSdk: Loop = {
  name: `Vercel AI SDK ${Package.version("ai")}`,
  role: "comparison",
  run: (steps) => AiSdkLoop.run(steps)
}
const aiSdk6: Loop = {
  name: `Vercel AI SDK ${Package.version("ai-v6")}`,
  role: "comparison",
  run: (steps) => AiSdk6Loop.run(steps)
}
const effectAi: Loop = {
  name: `effect/ai ${Package.version("effect")}`,
  role: "comparison",
  run: (steps) => EffectAiLoop.run(steps)
}
// Context rows, not goals: what a loop on Effect costs before any of the kernel's work (EffectFloor.ts).
const floor = (variant: EffectFloor.Variant, name: string): Loop => ({
  name: `Effect floor: ${name}`,
  role: "floor",
  run: (steps) => Effect.runPromise(EffectFloor.run(steps, { variant }))
})
const floors: ReadonlyArray<Loop> = [
  floor("bare", "bare Effect.gen"),
  floor("traced", "+ a fiber and a span per call"),
  floor("idiomatic", "Effect's own tools (fiber, timeout, span, Ref, Semaphore)")
]

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
  loops: ReadonlyArray<Loop>,
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

const print = (title: string, loops: ReadonlyArray<Loop>, figures: ReadonlyMap<Loop, Figures>): void => {
  const base = figures.get(plain)
  console.log(`\n${title}`)
  console.log(
    Report.table(
      ["loop", "µs/step", "CPU µs/step", "x plain", "KB/step", "x plain", "samples"],
      loops.map((loop) => {
        const own = figures.get(loop)
        return [
          loop.name,
          Report.figure(own?.micros),
          Report.figure(own?.cpuMicros),
          Report.times(Goal.ratio(own?.cpuMicros, base?.cpuMicros)),
          Report.figure(own?.kilobytes),
          Report.times(Goal.ratio(own?.kilobytes, base?.kilobytes)),
          own === undefined || own.samples === 0 ? "skipped" : String(own.samples)
        ]
      })
    )
  )
}

interface Scenario {
  readonly steps: number
  readonly figures: ReadonlyMap<Loop, Figures>
}

/** The current kernel against the Effect 3 kernel, per scenario and listener. */
const printAgainstEffect3 = (pairs: ReadonlyArray<readonly [Loop, Loop]>, scenarios: ReadonlyArray<Scenario>) => {
  console.log("\nagent-kernel ÷ the Effect 3 kernel, same run (CPU and KB per step; below 1.00x is better)")
  console.log(
    Report.table(
      ["steps", "kernel", "CPU µs/step", "Effect 3", "ratio", "KB/step", "Effect 3", "ratio"],
      scenarios.flatMap(({ steps, figures }) =>
        pairs.map(([current, old]) => {
          const now = figures.get(current)
          const then = figures.get(old)
          return [
            steps.toLocaleString("en-US"),
            current.name.replace("agent-kernel, ", ""),
            Report.figure(now?.cpuMicros),
            Report.figure(then?.cpuMicros),
            Report.times(Goal.ratio(now?.cpuMicros, then?.cpuMicros)),
            Report.figure(now?.kilobytes),
            Report.figure(then?.kilobytes),
            Report.times(Goal.ratio(now?.kilobytes, then?.kilobytes))
          ]
        })
      )
    )
  )
}

const goals = (short: Scenario, long: Scenario, observedEffect3: Loop): ReadonlyArray<Goal.Verdict> => {
  const kernelShort = short.figures.get(observed)
  const kernelLong = long.figures.get(observed)
  const label = "agent-kernel (observer + spans)"
  const [shortName, longName] = [short.steps, long.steps].map((steps) => steps.toLocaleString("en-US"))
  const againstEffect3 = (scenario: Scenario, field: "cpuMicros" | "kilobytes") =>
    Goal.ratio(scenario.figures.get(observed)?.[field], scenario.figures.get(observedEffect3)?.[field])
  const faster = (scenario: Scenario, loop: Loop) =>
    Goal.ratio(scenario.figures.get(loop)?.cpuMicros, scenario.figures.get(observed)?.cpuMicros)
  const issue22 = (name: string, comparison: Goal.Comparison, limit: number, figure: number | undefined) =>
    Goal.judge(Goal.make(name, comparison, limit, "x", "issue 22"), figure)
  return [
    issue22(
      `${label} CPU/step ÷ Effect 3 kernel's, ${shortName} steps`,
      "at most",
      1,
      againstEffect3(short, "cpuMicros")
    ),
    issue22(
      `${label} CPU/step ÷ Effect 3 kernel's, ${longName} steps`,
      "at most",
      1,
      againstEffect3(long, "cpuMicros")
    ),
    issue22(
      `${label} KB/step ÷ Effect 3 kernel's, ${shortName} steps`,
      "at most",
      1,
      againstEffect3(short, "kilobytes")
    ),
    issue22(`${label} KB/step ÷ Effect 3 kernel's, ${longName} steps`, "at most", 1, againstEffect3(long, "kilobytes")),
    issue22(`AI SDK 7 CPU ÷ agent-kernel's, ${shortName} steps`, "at least", 5, faster(short, aiSdk)),
    issue22(`AI SDK 7 CPU ÷ agent-kernel's, ${longName} steps`, "at least", 50, faster(long, aiSdk)),
    issue22(`AI SDK 6 CPU ÷ agent-kernel's, ${shortName} steps`, "at least", 5, faster(short, aiSdk6)),
    issue22(`AI SDK 6 CPU ÷ agent-kernel's, ${longName} steps`, "at least", 50, faster(long, aiSdk6)),
    issue22(`effect/ai CPU ÷ agent-kernel's, ${shortName} steps`, "more than", 1, faster(short, effectAi)),
    issue22(`effect/ai CPU ÷ agent-kernel's, ${longName} steps`, "more than", 1, faster(long, effectAi)),
    Goal.judge(Goal.make(`${label} µs/step, ${shortName} steps`, "at most", 30, "µs", "issue 9"), kernelShort?.micros),
    Goal.judge(Goal.make(`${label} µs/step, ${longName} steps`, "at most", 30, "µs", "issue 9"), kernelLong?.micros),
    Goal.judge(
      Goal.make(`${label} KB/step, ${shortName} steps`, "at most", 20, "KB", "issue 9"),
      kernelShort?.kilobytes
    ),
    Goal.judge(Goal.make(`${label} KB/step, ${longName} steps`, "at most", 20, "KB", "issue 9"), kernelLong?.kilobytes),
    Goal.judge(
      Goal.make(`flat: ${longName}-step ÷ ${shortName}-step CPU time`, "at most", 1.2, "x", "issue 9"),
      Goal.ratio(kernelLong?.cpuMicros, kernelShort?.cpuMicros)
    ),
    Goal.judge(
      Goal.make(`flat: ${longName}-step ÷ ${shortName}-step allocation`, "at most", 1.2, "x", "issue 9"),
      Goal.ratio(kernelLong?.kilobytes, kernelShort?.kilobytes)
    )
  ]
}

/**
 * Measures, prints the tables and returns the verdicts on the step goals.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const [quietEffect3, observedEffect3] = effect3Loops(await Effect3Kernel.load())
  const loops = [plain, quiet, observed, quietEffect3, observedEffect3, aiSdk, aiSdk6, effectAi, ...floors]
  for (let warm = 0; warm < plan.warmupRuns; warm++) for (const loop of loops) await loop.run(shortSteps)

  const short = await measureScenario(
    loops,
    shortSteps,
    plan.shortRounds,
    plan.runsPerShortSample,
    () => plan.shortRounds
  )
  print(
    `Per step, ${shortSteps}-step runs (median of interleaved samples of ${plan.runsPerShortSample} runs each; ` +
      "CPU of the whole process; KB from v8.GCProfiler)",
    loops,
    short
  )
  const long = await measureScenario(loops, longSteps, plan.longRounds, 1, (loop) =>
    loop.role === "comparison" ? plan.longComparisonSamples : plan.longRounds
  )
  print(
    `Per step, one ${longSteps.toLocaleString("en-US")}-step run (median of interleaved runs` +
      `${plan.longComparisonSamples === 0 ? "; the comparisons are skipped with --quick" : ""})`,
    loops,
    long
  )

  console.log(`\nFlat in history: the ${longSteps.toLocaleString("en-US")}-step figure ÷ the ${shortSteps}-step figure`)
  console.log(
    Report.table(
      ["loop", "time", "CPU time", "allocation"],
      loops.map((loop) => [
        loop.name,
        Report.times(Goal.ratio(long.get(loop)?.micros, short.get(loop)?.micros)),
        Report.times(Goal.ratio(long.get(loop)?.cpuMicros, short.get(loop)?.cpuMicros)),
        Report.times(Goal.ratio(long.get(loop)?.kilobytes, short.get(loop)?.kilobytes))
      ])
    )
  )
  const scenarios = [
    { steps: shortSteps, figures: short },
    { steps: longSteps, figures: long }
  ]
  printAgainstEffect3(
    [
      [quiet, quietEffect3],
      [observed, observedEffect3]
    ],
    scenarios
  )
  return goals(scenarios[0]!, scenarios[1]!, observedEffect3)
}
