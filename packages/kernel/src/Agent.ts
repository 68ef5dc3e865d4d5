/**
 * An agent in one Layer: `Agent.layer` takes a small config — the model, a
 * provider Layer, a toolbox Layer, settings — and assembles the session the
 * kernel runs, with everything it does when a call fails mid-turn (retries
 * under the per-call cap and the session budget, fallback, context
 * reduction, tool failures as error results). `Agent.run` takes an input
 * through it and streams the answer to plain callbacks, with no `EventBus`
 * Layer to build.
 *
 * The kernel names no provider and no plugin: the Layers come from
 * `@agent-kernel/providers` (`Anthropic.layerFetch()`, `OpenAi.layerFetch()`)
 * and `@agent-kernel/plugins` (`InProcessTools.layer([...])`). Where the
 * session lives is a Layer too (`sessions`): in memory by default, or a
 * durable store from `@agent-kernel/durable` (`DurableAgent.sqlite(file)`),
 * whose runs resume after a crash.
 *
 * Casing: settings keys and event fields are wire formats, written as the
 * settings file, `--set` and the JSON events write them (snake_case:
 * `max_retries`, `text_delta`, `discarded_text_chars`); options are
 * TypeScript (camelCase: `onText`, `toolConcurrency`).
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { InProcessTools } from "@agent-kernel/plugins"
 * import { Anthropic } from "@agent-kernel/providers"
 * import { Effect, Schema } from "effect"
 *
 * const weather = InProcessTools.tool({
 *   name: "weather",
 *   description: "Today's weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   handler: ({ city }) => Effect.succeed(`Sunny in ${city}, 21 °C`)
 * })
 * const tools = InProcessTools.layer([weather])
 * const agent = Agent.layer({ model: "claude-sonnet-4-5", provider: Anthropic.layerFetch(), tools })
 *
 * const run = Agent.run("What is the weather in Paris?", { onText: (text) => process.stdout.write(text) })
 * Effect.runPromise(Effect.provide(run, agent)).then((outcome) => console.log(`\n${outcome.status}`))
 * ```
 *
 * @since 0.5.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type * as Content from "./Content.js"
import * as EventBus from "./EventBus.js"
import type * as KernelEvent from "./KernelEvent.js"
import type * as ModelProvider from "./ModelProvider.js"
import type * as RetryPolicy from "./RetryPolicy.js"
import type * as RunOutcome from "./RunOutcome.js"
import * as Session from "./Session.js"
import * as Settings from "./Settings.js"
import type * as Toolbox from "./Toolbox.js"

/**
 * The agent's session store failed under a run (a durable session's
 * database or journal): the run is left unfinished, and running the same
 * input again finishes it. `cause` is the store's own error. An in-memory
 * session never fails.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const answer = Agent.run("Hello").pipe(
 *   Effect.catchTag("SessionError", (error) => Effect.succeed(`try again later: ${error.message}`))
 * )
 * ```
 *
 * @since 0.5.0
 * @category errors
 */
export class SessionError extends Schema.TaggedError<SessionError>("@agent-kernel/kernel/Agent/SessionError")(
  "SessionError",
  { message: Schema.String, cause: Schema.optional(Schema.Defect()) }
) {}

/**
 * What the agent's session is made with: `Config` with its settings
 * decoded. A `Sessions` implementation passes each to the session it makes.
 *
 * @example
 * ```ts
 * import { Agent, Settings } from "@agent-kernel/kernel"
 *
 * const options: Agent.SessionOptions = { model: "claude-sonnet-4-5", settings: Settings.defaults }
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface SessionOptions {
  readonly model: string
  readonly settings: Settings.Settings
  readonly system?: string | undefined
  readonly policy?: RetryPolicy.RetryPolicy | undefined
  readonly toolConcurrency?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly request?: ModelProvider.RequestOptions | undefined
}

/**
 * The agent's session as a `Sessions` implementation made it: where its
 * runs go, and its history.
 *
 * @example
 * ```ts
 * import { Agent, Session } from "@agent-kernel/kernel"
 *
 * const fromSession = (session: Session.Service): Agent.AgentSession => ({
 *   id: session.id,
 *   run: session.run,
 *   history: session.history
 * })
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface AgentSession {
  readonly id: string
  /** Takes one input through the loop; a run never fails, only its store can. */
  readonly run: (input: string | Content.Message) => Effect.Effect<RunOutcome.RunOutcome, SessionError>
  /** The full history after the last finished run. */
  readonly history: Effect.Effect<Content.History, SessionError>
}

/**
 * How the agent makes its session. `make` reads the `Toolbox` and the
 * `EventBus` from context, as `Session.make` does: the agent provides both.
 *
 * @example
 * ```ts
 * import { Agent, Session } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * // What `inMemory` does: a kernel session, kept for the life of the Layer.
 * const sessions: Agent.SessionsService = {
 *   make: (options) =>
 *     Effect.map(Session.make(options), (session) => ({ id: session.id, run: session.run, history: session.history }))
 * }
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface SessionsService {
  readonly make: (
    options: SessionOptions
  ) => Effect.Effect<AgentSession, SessionError, ModelProvider.ModelProvider | Scope.Scope>
}

/**
 * Where the agent's session lives. `Agent.layer` uses `layerInMemory` unless
 * `Config.sessions` gives another (`DurableAgent.sqlite` from
 * `@agent-kernel/durable`).
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const sessionId = Agent.Agent.useSync((agent) => agent.id)
 * const sessionsLive = Agent.layerInMemory // a Layer<Agent.Sessions>
 * ```
 *
 * @since 0.5.0
 * @category tags
 */
export class Sessions extends Context.Service<Sessions, SessionsService>()("@agent-kernel/kernel/Agent/Sessions") {}

/**
 * Sessions kept in memory: a kernel `Session` for the life of the Layer.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 *
 * const sessions = Agent.inMemory
 * ```
 *
 * @since 0.5.0
 * @category constructors
 */
export const inMemory: SessionsService = {
  make: (options) =>
    Effect.map(Session.make(options), (session) => ({ id: session.id, run: session.run, history: session.history }))
}

/**
 * `inMemory` as a Layer: the default of `Config.sessions`.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Anthropic } from "@agent-kernel/providers"
 *
 * const agent = Agent.layer({
 *   model: "claude-sonnet-4-5",
 *   provider: Anthropic.layerFetch(),
 *   sessions: Agent.layerInMemory
 * })
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const layerInMemory: Layer.Layer<Sessions> = Layer.succeed(Sessions, inMemory)

/**
 * The settings of the agent being built, for the Layers built with it: a
 * toolbox Layer reads its tool settings (`tool_timeout_ms`,
 * `max_tool_result_bytes`, the breaker's) here, so that one `settings` in
 * `Config` governs the whole agent. Default: `Settings.defaults`.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const toolTimeout = Effect.map(Effect.service(Agent.CurrentSettings), (settings) => settings.tool_timeout_ms)
 * ```
 *
 * @since 0.5.0
 * @category references
 */
export const CurrentSettings: Context.Reference<Settings.Settings> = Context.Reference<Settings.Settings>(
  "@agent-kernel/kernel/Agent/CurrentSettings",
  { defaultValue: () => Settings.defaults }
)

/**
 * What a run streams, as plain callbacks (no `EventBus` Layer).
 *
 * - `onText`: each piece of the answer's text as it arrives (the `text` of
 *   every `text_delta`), e.g. `process.stdout.write`. When an attempt fails
 *   mid-stream and is retried, the next attempt's text follows from its
 *   start: `onEvent` sees `stream_restarted` between them, with how many
 *   characters to drop (`discarded_text_chars`).
 * - `onEvent`: every kernel event of the run, in order, each before what
 *   follows it happens; it may return an `Effect`, which is run in line.
 *
 * A callback that throws (or an effect that fails) is logged and never
 * reaches the run.
 *
 * @example
 * ```ts
 * import type { Agent } from "@agent-kernel/kernel"
 *
 * const options: Agent.RunOptions = {
 *   onText: (text) => process.stdout.write(text),
 *   onEvent: (event) => {
 *     if (event.type === "retry_scheduled") console.error(`retry in ${event.delay_ms} ms`)
 *   }
 * }
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface RunOptions {
  readonly onText?: ((text: string) => void) | undefined
  readonly onEvent?: ((event: KernelEvent.KernelEvent) => Effect.Effect<void> | void) | undefined
}

/**
 * What an agent does.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const agent = yield* Agent.Agent
 *   const outcome = yield* agent.run("Hello", { onText: (text) => process.stdout.write(text) })
 *   return { session: agent.id, status: outcome.status, messages: (yield* agent.history).length }
 * })
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface Service {
  /** The session's id. */
  readonly id: string
  /**
   * Takes one input through the loop, streaming to `options`; runs are
   * taken one at a time. A run never fails: every ending is a
   * `RunOutcome` status. Only a durable session's store can fail it
   * (`SessionError`), leaving the run to be finished by running the same
   * input again.
   */
  readonly run: (
    input: string | Content.Message,
    options?: RunOptions | undefined
  ) => Effect.Effect<RunOutcome.RunOutcome, SessionError>
  /** The full history after the last finished run. */
  readonly history: Effect.Effect<Content.History, SessionError>
}

/**
 * The agent service.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const history = Agent.Agent.use((agent) => agent.history)
 * ```
 *
 * @since 0.5.0
 * @category tags
 */
export class Agent extends Context.Service<Agent, Service>()("@agent-kernel/kernel/Agent") {}

/**
 * The config of `layer`. Only `model` and `provider` are required.
 *
 * - `provider`: the model provider's Layer (`Anthropic.layerFetch()`).
 * - `tools`: a toolbox Layer (`InProcessTools.layer([...])`,
 *   `PluginToolbox.layer({ providers })`). Default: no tools.
 * - `settings`: settings keys as the settings file writes them
 *   (`{ max_retries: 3 }`); an unknown key is a compile error, a bad value a
 *   `SettingsError` when the Layer is built. Default: `Settings.defaults`.
 * - `sessions`: where the session lives. Default: `layerInMemory`.
 * - `system`, `policy`, `toolConcurrency`, `maxOutputTokens`, `request`: as
 *   `Session.Options`.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Anthropic } from "@agent-kernel/providers"
 *
 * const agent = Agent.layer({
 *   model: "claude-sonnet-4-5",
 *   provider: Anthropic.layerFetch(),
 *   system: "Answer in one sentence.",
 *   settings: { max_retries: 3, fallback_models: ["claude-haiku-4-5"] }
 * })
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface Config<S extends Settings.Input, EP, RP, ET, RT, ES, RS> {
  readonly model: string
  readonly provider: Layer.Layer<ModelProvider.ModelProvider, EP, RP>
  readonly tools?: Layer.Layer<Toolbox.Toolbox, ET, RT> | undefined
  readonly settings?: Settings.Exact<S> | undefined
  readonly sessions?: Layer.Layer<Sessions, ES, RS> | undefined
  readonly system?: string | undefined
  readonly policy?: RetryPolicy.RetryPolicy | undefined
  readonly toolConcurrency?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly request?: ModelProvider.RequestOptions | undefined
}

/** A run's callbacks for one kernel event. */
const deliver = (options: RunOptions, event: KernelEvent.KernelEvent): Effect.Effect<void> => {
  const { onEvent, onText } = options
  const text = onText !== undefined && event.type === "text_delta" ? Effect.sync(() => onText(event.text)) : Effect.void
  if (onEvent === undefined) return text
  return Effect.andThen(
    text,
    Effect.suspend(() => {
      const effect = onEvent(event)
      return Effect.isEffect(effect) ? effect : Effect.void
    })
  )
}

/** The agent over the session `Sessions` makes, its events sent to the callbacks of the run in progress. */
const make = (
  options: SessionOptions
): Effect.Effect<Service, SessionError, Sessions | ModelProvider.ModelProvider | Scope.Scope> =>
  Effect.gen(function* () {
    const listening = yield* Ref.make<RunOptions>({})
    const bus = EventBus.of([{ onEvent: (event) => Effect.flatMap(Ref.get(listening), (run) => deliver(run, event)) }])
    const sessions = yield* Sessions
    const session = yield* sessions.make(options).pipe(Effect.provideService(EventBus.EventBus, bus))
    // One run at a time: the callbacks in `listening` are the run's in progress.
    const lock = yield* Semaphore.make(1)
    return {
      id: session.id,
      history: session.history,
      run: (input, runOptions = {}) =>
        lock.withPermit(
          Effect.andThen(Ref.set(listening, runOptions), session.run(input)).pipe(
            Effect.ensuring(Ref.set(listening, {}))
          )
        )
    }
  })

/**
 * The agent from a small config, in one Layer: the provider's, the
 * toolbox's and the session store's Layers are built with it, and the
 * settings decoded (a bad value fails the Layer with `SettingsError`). The
 * toolbox reads the same settings (`CurrentSettings`).
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { InProcessTools } from "@agent-kernel/plugins"
 * import { Anthropic } from "@agent-kernel/providers"
 * import { Effect, Schema } from "effect"
 *
 * const weather = InProcessTools.tool({
 *   name: "weather",
 *   description: "Today's weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   handler: ({ city }) => Effect.succeed(`Sunny in ${city}, 21 °C`)
 * })
 * const agent = Agent.layer({
 *   model: "claude-sonnet-4-5",
 *   provider: Anthropic.layerFetch(),
 *   tools: InProcessTools.layer([weather]),
 *   settings: { max_retries: 3, tool_timeout_ms: 10_000 }
 * })
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = <
  const S extends Settings.Input = {},
  EP = never,
  RP = never,
  ET = never,
  RT = never,
  ES = never,
  RS = never
>(
  config: Config<S, EP, RP, ET, RT, ES, RS>
): Layer.Layer<Agent, EP | ET | ES | Settings.SettingsError | SessionError, RP | RT | RS> => {
  const settingsLive = Layer.effect(CurrentSettings, Settings.decode(config.settings ?? {}, "Agent.layer"))
  const services = Layer.mergeAll(config.provider, config.tools ?? Layer.empty, config.sessions ?? layerInMemory).pipe(
    Layer.provideMerge(settingsLive)
  )
  const agent = Effect.flatMap(Effect.service(CurrentSettings), (settings) =>
    make({
      model: config.model,
      settings,
      system: config.system,
      policy: config.policy,
      toolConcurrency: config.toolConcurrency,
      maxOutputTokens: config.maxOutputTokens,
      request: config.request
    })
  )
  return Layer.effect(Agent, agent).pipe(Layer.provide(services))
}

/**
 * Runs one input through the agent in context (see `Service.run`).
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const outcome = yield* Agent.run("What is the weather in Paris?", {
 *     onText: (text) => process.stdout.write(text),
 *     onEvent: (event) => (event.type === "retry_scheduled" ? Effect.log(`retry in ${event.delay_ms} ms`) : undefined)
 *   })
 *   console.log(`\n${outcome.status}`)
 * })
 * ```
 *
 * @since 0.5.0
 * @category accessors
 */
export const run = (
  input: string | Content.Message,
  options?: RunOptions | undefined
): Effect.Effect<RunOutcome.RunOutcome, SessionError, Agent> => Agent.use((agent) => agent.run(input, options))
