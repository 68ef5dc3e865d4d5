/**
 * The journaling cost of durable sessions: the same run (a model that asks
 * for one tool call per response, `steps` times, then answers) as a plain
 * in-memory session, as a durable session on effect/workflow's in-memory
 * engine, on the embedded store (the light engine, `SqlEngine`, over a SQLite
 * file through `node:sqlite`), and on effect/cluster's single runner over a
 * SQLite file (the engine of several runners). Each step is two journaled
 * activities (the model call and the tool call). The engines are started
 * once, outside the samples; every sample is a new session.
 *
 * Every contender first runs unmeasured sessions (one for the cluster engine,
 * whose run takes longer), for the JIT: the journal's cost per step falls
 * over the first few dozen runs. The cluster engine is measured on its own,
 * after the others, because its runner polls its tables in the background,
 * which would be counted in their samples. Then the resume time of a 100-turn
 * session on each file engine: a process stopped in its 101st model call, and
 * a new one on the same file replaying the journal until that call answers.
 *
 * @since 0.1.0
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import * as Goal from "./Goal.js"
import * as Measure from "./Measure.js"
import * as Report from "./Report.js"
import * as Script from "./Script.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly steps: number
  /** Unmeasured sessions of every contender but the cluster engine (one of it) before the rounds. */
  readonly warmupRuns: number
  /** Interleaved rounds: a sample of every contender but the cluster engine each. */
  readonly rounds: number
  /** Samples of the cluster engine (each takes seconds), taken alone after the rounds. */
  readonly clusterSamples: number
  /** Turns of the session whose resume is timed. */
  readonly resumeTurns: number
}

/**
 * @since 0.1.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = {
  full: { steps: 50, warmupRuns: 30, rounds: 15, clusterSamples: 3, resumeTurns: 100 },
  quick: { steps: 20, warmupRuns: 30, rounds: 7, clusterSamples: 2, resumeTurns: 100 }
}

const usage: ModelProvider.Usage = { input_tokens: 1, output_tokens: 1 }

/** The scripted model, stateless: the call's number is the count of assistant messages so far. */
const provider = (steps: number, last: Effect.Effect<ModelProvider.ModelResponse> | undefined = undefined) =>
  ModelProvider.fromGenerate("bench", (request) => {
    const call = request.messages.filter((message) => message.role === "assistant").length
    if (Script.wantsTool(call, steps))
      return Effect.succeed({
        model: "bench",
        content: [Content.toolUse(Script.callId(call), Script.toolName, Script.input(call))],
        stop_reason: "tool_use",
        usage
      })
    return (
      last ??
      Effect.succeed({ model: "bench", content: [Content.text(Script.finalText)], stop_reason: "end_turn", usage })
    )
  })

const toolbox: Toolbox.Service = {
  definitions: Effect.succeed([
    { name: Script.toolName, description: Script.toolDescription, input_schema: Script.inputJsonSchema }
  ]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
}

const settingsFor = (steps: number): Settings.Settings => ({ ...Settings.defaults, max_turns: steps + 2 })

/**
 * The durable sessions of the benchmark on `engine`: the scripted model (a
 * tool call per response, `steps` times, then an answer) and its tool.
 *
 * @since 0.2.0
 * @category layers
 */
export const durable = (
  engine: Layer.Layer<Engine.Engine, Engine.StoreError>,
  steps: number,
  model: ModelProvider.Service = provider(steps)
) =>
  DurableSessions.layer({ model: "bench", settings: settingsFor(steps), metrics: false }).pipe(
    Layer.provideMerge(engine),
    Layer.provide(Layer.succeed(ModelProvider.ModelProvider, model)),
    Layer.provide(Toolbox.layer(toolbox))
  )

/**
 * Throws unless a benchmark run `name` ended `completed`.
 *
 * @since 0.2.0
 * @category running
 */
export const check = (name: string, status: string) => {
  if (status !== "completed") throw new Error(`${name}: the run ended ${status}`)
}

const temporaryStore = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-journal-")), "agent.db")

type FileEngine = (file: string) => Layer.Layer<Engine.Engine, Engine.StoreError>

/** Resume time: run `turns` turns, stop the process in the next model call, reopen and time the replay. */
const resumeTime = async (
  engine: FileEngine,
  turns: number
): Promise<{ readonly replayMs: number; readonly startMs: number }> => {
  const file = temporaryStore()
  const reached = Effect.runSync(Deferred.make<void>())
  const first = durable(
    engine(file),
    turns,
    provider(turns, Effect.andThen(Deferred.succeed(reached, undefined), Effect.never))
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(first, scope))
  // A fiber of its own that nobody interrupts: a dying process's caller does not end its run (a Ctrl-C would).
  Effect.runFork(
    Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("r", "go")).pipe(
      Effect.provideContext(context)
    )
  )
  await Effect.runPromise(Deferred.await(reached))
  // The process dies: its engine stops under the run, which stays unfinished in the journal.
  await Effect.runPromise(Scope.close(scope, Exit.void))
  const startedAt = performance.now()
  const second = ManagedRuntime.make(durable(engine(file), turns))
  await second.runPromise(Effect.void)
  const readyAt = performance.now()
  const outcome = await second.runPromise(
    Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("r"))
  )
  const doneAt = performance.now()
  await second.dispose()
  if (outcome._tag !== "Some") throw new Error("resume: nothing to resume")
  check("resume", outcome.value.status)
  if (outcome.value.turns !== turns + 1) throw new Error(`resume: ${outcome.value.turns} turns`)
  return { replayMs: doneAt - readyAt, startMs: readyAt - startedAt }
}

/**
 * Measures, prints the tables and returns the verdict on the journaling goal.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const { steps, rounds } = plan
  const memoryEngine = ManagedRuntime.make(durable(Engine.layerMemory, steps))
  const sqliteEngine = ManagedRuntime.make(durable(Engine.layerSqlite(temporaryStore()), steps))
  await memoryEngine.runPromise(Effect.void)
  await sqliteEngine.runPromise(Effect.void)
  let sessions = 0
  const onDurable = (runtime: typeof memoryEngine, name: string) => () =>
    runtime
      .runPromise(Effect.flatMap(DurableSessions.DurableSessions, (all) => all.run(`s${sessions++}`, Script.prompt)))
      .then((outcome) => check(name, outcome.status))
  const contenders = [
    {
      name: "in-memory session (no journal)",
      samples: rounds,
      run: () =>
        Effect.runPromise(
          Effect.gen(function* () {
            const session = yield* Session.make({ model: "bench", settings: settingsFor(steps), metrics: false })
            check("plain", (yield* session.run(Script.prompt)).status)
          }).pipe(
            Effect.provideService(ModelProvider.ModelProvider, provider(steps)),
            Effect.provideService(Toolbox.Toolbox, toolbox)
          )
        )
    },
    {
      name: "durable, in-memory engine",
      samples: rounds,
      run: onDurable(memoryEngine, "memory engine")
    },
    {
      name: "durable, SQLite file (light engine: the embedded default)",
      samples: rounds,
      run: onDurable(sqliteEngine, "sqlite")
    }
  ]
  // Warm-up in rounds too, so that no contender is warmed last, right before the measured rounds.
  for (let warm = 0; warm < plan.warmupRuns; warm++) for (const contender of contenders) await contender.run()
  const interleaved = await Measure.interleave(
    contenders.map((contender) => ({ ...contender, measure: () => Measure.sample(contender.run) })),
    rounds
  )
  await memoryEngine.dispose()
  await sqliteEngine.dispose()
  // The cluster engine alone, after the others: its runner polls its tables in the background, which
  // took about 0.2 ms of CPU a step from the light engine's samples when it ran beside them (the
  // process's CPU time, and the wall time of a busy event loop).
  const clusterEngine = ManagedRuntime.make(durable(Engine.layerClusterSqlite(temporaryStore()), steps))
  await clusterEngine.runPromise(Effect.void)
  const cluster = onDurable(clusterEngine, "cluster")
  await cluster()
  const clusterSamples: Array<Measure.Sample> = []
  for (let sample = 0; sample < plan.clusterSamples; sample++) clusterSamples.push(await Measure.sample(cluster))
  await clusterEngine.dispose()
  const named = [...contenders, { name: "durable, SQLite file (cluster engine, single runner, measured alone)" }]
  const samples = [...interleaved, clusterSamples]
  const medians = named.map((_, i) => ({
    millis: Measure.median((samples[i] ?? []).map((s) => s.millis)),
    cpu: Measure.median((samples[i] ?? []).map((s) => s.cpuMicros / 1_000))
  }))
  const base = medians[0]!
  const perStep = (value: number, baseline: number) => (value - baseline) / steps
  console.log(
    `${steps} steps a run (a model call and a tool call each: ${2 * steps + 2} journaled activities with start and end), ` +
      `medians of ${rounds} interleaved rounds after ${plan.warmupRuns} unmeasured sessions of each ` +
      `(the cluster engine: ${plan.clusterSamples} samples after 1, on its own)`
  )
  console.log(
    Report.table(
      ["", "wall ms/run", "CPU ms/run", "journal wall ms/step", "journal CPU ms/step", "x in-memory"],
      named.map((contender, i) => [
        contender.name,
        Report.figure(medians[i]!.millis),
        Report.figure(medians[i]!.cpu),
        i === 0 ? "-" : Report.figure(perStep(medians[i]!.millis, base.millis)),
        i === 0 ? "-" : Report.figure(perStep(medians[i]!.cpu, base.cpu)),
        Report.times(Goal.ratio(medians[i]!.millis, base.millis))
      ])
    )
  )
  const engines: ReadonlyArray<readonly [string, FileEngine]> = [
    ["light engine", (file) => Engine.layerSqlite(file)],
    ["cluster engine", (file) => Engine.layerClusterSqlite(file)]
  ]
  const resumes: Array<{ readonly replayMs: number; readonly startMs: number }> = []
  for (const [name, engine] of engines) {
    const resume = await resumeTime(engine, plan.resumeTurns)
    resumes.push(resume)
    console.log(
      `Resume of a ${plan.resumeTurns}-turn session on the SQLite file, ${name}: engine start ${Report.figure(resume.startMs)} ms, ` +
        `replay to the interrupted call and its end ${Report.figure(resume.replayMs)} ms`
    )
  }
  const sqlite = medians[2]!
  const clusterEngineFigures = medians[3]!
  return [
    Goal.judge(
      Goal.make("journal CPU per step, embedded store (light engine)", "at most", 0.7, "ms", "issue 22"),
      perStep(sqlite.cpu, base.cpu)
    ),
    Goal.judge(
      Goal.make("journal CPU per step, cluster engine", "at most", 2, "ms", "issue 22"),
      perStep(clusterEngineFigures.cpu, base.cpu)
    ),
    Goal.judge(
      Goal.make(`replay of a ${plan.resumeTurns}-turn session, cluster engine`, "at most", 50, "ms", "issue 22"),
      resumes[1]?.replayMs
    ),
    Goal.judge(
      Goal.make("journal wall time per step, embedded store (light engine)", "less than", 1, "ms", "issue 13"),
      perStep(sqlite.millis, base.millis)
    )
  ]
}
