/**
 * agent-kernel running the scenario through its public API only
 * (`Session.make` and `run`, `ModelProvider.make`, `Toolbox`, `EventBus.make`,
 * `Settings`), so the benchmark measures what an embedder gets and keeps
 * working while the loop inside changes.
 *
 * Everything a run changes (the model's call count, the tool's, the session)
 * is made fresh for each run; only the tool definitions are shared.
 *
 * @since 0.1.0
 */
import { Content, EventBus, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Script from "./Script.js"

/**
 * Options of one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Attach one observer to the event bus. Spans go to Effect's default tracer
   * either way; without an observer nobody listens to the events.
   */
  readonly observed: boolean
  /** How long each model call sleeps on the live clock; 0 answers at once. */
  readonly latencyMs?: number | undefined
}

const definitions = Effect.succeed([
  { name: Script.toolName, description: Script.toolDescription, input_schema: Script.inputJsonSchema }
])

const usage: ModelProvider.Usage = { input_tokens: 1, output_tokens: 1 }

interface Counted extends Script.Counted {
  events: number
}

const response = (call: number, steps: number): ModelProvider.ModelResponse =>
  Script.wantsTool(call, steps)
    ? {
        model: "bench",
        content: [Content.toolUse(Script.callId(call), Script.toolName, Script.input(call))],
        stop_reason: "tool_use",
        usage
      }
    : { model: "bench", content: [Content.text(Script.finalText)], stop_reason: "end_turn", usage }

// Checked by hand rather than decoded with a Schema: the AI SDK loop validates
// no tool input either, so a decode here would be a cost only the kernel pays.
const echo = (call: Content.ToolUseBlock): string => {
  const input = call.input
  return typeof input === "object" && input !== null && "i" in input && typeof input.i === "number"
    ? Script.echo({ i: input.i })
    : "bad input"
}

const makeSession = (steps: number, options: Options, counted: Counted) =>
  Effect.gen(function* () {
    const latency = Duration.millis(options.latencyMs ?? 0)
    const answer = Effect.sync(() => response(counted.model++, steps))
    const provider = ModelProvider.fromGenerate(
      "bench",
      Duration.isZero(latency) ? () => answer : () => Effect.andThen(Effect.sleep(latency), answer)
    )
    const toolbox = Toolbox.Toolbox.of({
      definitions,
      invoke: (call) =>
        Effect.sync(() => {
          counted.tool++
          return Content.toolResult(call.id, echo(call))
        })
    })
    const bus = yield* EventBus.make(
      options.observed ? [{ onEvent: () => Effect.sync(() => void counted.events++) }] : []
    )
    return yield* Session.make({ model: "bench", settings: { ...Settings.defaults, max_turns: steps + 1 } }).pipe(
      Effect.provideService(ModelProvider.ModelProvider, provider),
      Effect.provideService(Toolbox.Toolbox, toolbox),
      Effect.provideService(EventBus.EventBus, bus)
    )
  })

/**
 * A session ready for a run of `steps` steps that has not run yet.
 *
 * @since 0.1.0
 * @category constructors
 */
export const idle = (steps: number, options: Options): Effect.Effect<Session.Service> =>
  makeSession(steps, options, { model: 0, tool: 0, events: 0 })

/**
 * One run of the scenario in a new session; returns the session, which then
 * holds the run's history.
 *
 * @since 0.1.0
 * @category running
 */
export const runEffect = (steps: number, options: Options): Effect.Effect<Session.Service> =>
  Effect.gen(function* () {
    const counted: Counted = { model: 0, tool: 0, events: 0 }
    const session = yield* makeSession(steps, options, counted)
    const outcome = yield* session.run(Script.prompt)
    if (outcome.status !== "completed")
      return yield* Effect.die(new Error(`agent-kernel: the run ended ${outcome.status}`))
    if (options.observed && counted.events === 0)
      return yield* Effect.die(new Error("agent-kernel: the observer saw nothing"))
    yield* Effect.sync(() => Script.check("agent-kernel", steps, counted))
    return session
  })

/**
 * One run of the scenario, as a promise.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (steps: number, options: Options): Promise<Session.Service> =>
  Effect.runPromise(runEffect(steps, options))
