/**
 * A durable session for the kernel's `Agent`. `DurableAgent.layer("agent.db",
 * config)` is `Agent.layer(config)` with the session kept in a store file;
 * `Agent.layer({ ..., sessions: DurableAgent.sqlite("agent.db", { session:
 * "demo" }) })` says the same, and `sessions(engine)` takes any store
 * (Postgres through `Engine.layerSql()`). The session's runs are `AgentRun`
 * workflows: a process killed mid-run leaves its run unfinished in the
 * journal, and the session's next run finishes it first: no completed model
 * call is sent again, no completed tool call is run again, and the retry
 * budget carries on.
 *
 * Running the same input again is how a program finishes the run a crash
 * cut short: when the session's unfinished run has the very input `run` is
 * given, that run is finished and its outcome is the answer (its remaining
 * events stream to the run's callbacks); another input runs next, after the
 * unfinished run is finished. So a program that crashed is run again as it
 * is. An input whose run completed, run again, is a new run of the
 * conversation.
 *
 * The store's engine resumes unfinished runs when the workflow is
 * registered, which this Layer does at the agent's first run (with the run's
 * callbacks already listening), not when it is built.
 *
 * @example
 * ```ts
 * import { DurableAgent } from "@agent-kernel/durable"
 * import { Agent } from "@agent-kernel/kernel"
 * import { Anthropic } from "@agent-kernel/providers"
 * import { Effect } from "effect"
 *
 * const agent = DurableAgent.layer("agent.db", { model: "claude-sonnet-4-5", provider: Anthropic.layerFetch() })
 * const run = Agent.run("Plan my week", { onText: (text) => process.stdout.write(text) })
 * Effect.runPromise(Effect.provide(run, agent)).then((outcome) => console.log(`\n${outcome.status}`))
 * ```
 *
 * @since 0.5.0
 */
import { Agent, Content, type ModelProvider, type RunOutcome, type Settings } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as AgentRun from "./AgentRun.js"
import * as DurableSessions from "./DurableSessions.js"
import * as Engine from "./Engine.js"

/**
 * Which session of the store is the agent's, and which tools may run again
 * after a crash.
 *
 * @example
 * ```ts
 * import type { DurableAgent } from "@agent-kernel/durable"
 *
 * const options: DurableAgent.Options = { session: "support-42", idempotentTools: ["read_file"] }
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface Options {
  /** The session's id in the store. Default: `defaultSession`. */
  readonly session?: string | undefined
  /** As `AgentRun.Config.idempotentTools`: tools that may run again when a crash cut them short. Default: none. */
  readonly idempotentTools?: ReadonlyArray<string> | undefined
}

/**
 * The session id used when `Options.session` is not given.
 *
 * @example
 * ```ts
 * import { DurableAgent } from "@agent-kernel/durable"
 *
 * console.log(DurableAgent.defaultSession) // "main"
 * ```
 *
 * @since 0.5.0
 * @category constants
 */
export const defaultSession = "main"

const sameMessage = Schema.toEquivalence(Content.Message)

/** A durable failure as the agent's, the store's error kept as its cause. */
const sessionError = (error: { readonly message: string }): Agent.SessionError =>
  new Agent.SessionError({ message: error.message, cause: error })

/** The `AgentRun` config of the agent's session. */
const runConfig = (options: Agent.SessionOptions, durable: Options | undefined): AgentRun.Config => ({
  model: options.model,
  system: options.system,
  settings: options.settings,
  policy: options.policy,
  request: options.request,
  toolConcurrency: options.toolConcurrency,
  maxOutputTokens: options.maxOutputTokens,
  idempotentTools: durable?.idempotentTools
})

/**
 * The outcome of the unfinished run `payload` once it is finished: a run
 * the engine is still running (or has not resumed) is joined; one it has
 * finished meanwhile is read from the engine's journal, or from the store
 * when its caller stopped it.
 */
const finish = (
  sessions: DurableSessions.Service,
  payload: AgentRun.Payload
): Effect.Effect<RunOutcome.RunOutcome, Agent.SessionError, Engine.Engine> =>
  Effect.flatMap(Effect.mapError(sessions.resume(payload.session_id), sessionError), (resumed) =>
    Option.isSome(resumed) ? Effect.succeed(resumed.value) : finished(payload)
  )

const finished = (payload: AgentRun.Payload): Effect.Effect<RunOutcome.RunOutcome, Agent.SessionError, Engine.Engine> =>
  Effect.gen(function* () {
    const result = yield* AgentRun.AgentRun.poll(yield* AgentRun.AgentRun.executionId(payload))
    if (Option.isSome(result) && result.value._tag === "Complete" && Exit.isSuccess(result.value.exit)) {
      return result.value.exit.value
    }
    const over = yield* Effect.mapError(AgentRun.outcomeIfOver(payload), sessionError)
    if (Option.isSome(over)) return over.value
    return yield* new Agent.SessionError({
      message: `the unfinished run ${payload.run} of the session "${payload.session_id}" was resumed but its outcome cannot be read`
    })
  })

/** The agent's session in the store of `engine` (its `WorkflowEngine` and `SqlClient`). */
const makeSession = (
  engine: Context.Context<Engine.Engine>,
  options: Agent.SessionOptions,
  durable: Options | undefined
): Effect.Effect<Agent.AgentSession, Agent.SessionError, ModelProvider.ModelProvider | Scope.Scope> =>
  Effect.gen(function* () {
    const id = durable?.session ?? defaultSession
    const scope = yield* Scope.Scope
    // The agent's bus and toolbox, and the provider: the workflow's body reads them from the registration's context.
    const context = Context.merge(yield* Effect.context<ModelProvider.ModelProvider>(), engine)
    const registration = DurableSessions.layer(runConfig(options, durable))
    const registered = yield* Ref.make(Option.none<DurableSessions.Service>())
    // Registering resumes every unfinished run of the store: done at the first run, whose callbacks listen by then.
    const sessions = Effect.flatMap(Ref.get(registered), (found) =>
      Option.isSome(found)
        ? Effect.succeed(found.value)
        : Layer.buildWithScope(registration, scope).pipe(
            Effect.map(Context.get(DurableSessions.DurableSessions)),
            Effect.tap((service) => Ref.set(registered, Option.some(service))),
            Effect.provideContext(context)
          )
    )
    const lock = yield* Semaphore.make(1)
    const run = (input: string | Content.Message) =>
      Effect.gen(function* () {
        const message = typeof input === "string" ? Content.userText(input) : input
        // Read before the workflow is registered: the engine may finish the run before `resume` asks.
        const pending = yield* Effect.mapError(DurableSessions.pending(id), sessionError)
        const service = yield* sessions
        if (Option.isSome(pending)) {
          const outcome = yield* finish(service, pending.value)
          if (sameMessage(pending.value.input, message)) return outcome
        }
        return yield* Effect.mapError(service.run(id, message), sessionError)
      }).pipe(Effect.provideContext(engine), lock.withPermit)
    return {
      id,
      run,
      history: DurableSessions.read(id).pipe(
        Effect.map(Option.match({ onNone: () => [], onSome: (state) => state.history })),
        Effect.mapError(sessionError),
        Effect.provideContext(engine)
      )
    }
  })

/**
 * The agent's sessions in the durable store `engine` builds
 * (`Engine.layerSqlite(file)`, `Engine.layerSql()` over Postgres,
 * `Engine.layerMemory`), for `Agent.layer({ sessions })`. The store is
 * opened (and, for a file, locked) for the life of the Layer. The agent's
 * config (model, settings, system, policy, request, ...) governs every run
 * this process executes, a resumed one included.
 *
 * @example
 * ```ts
 * import { DurableAgent, Engine } from "@agent-kernel/durable"
 * import { Agent } from "@agent-kernel/kernel"
 * import { Anthropic } from "@agent-kernel/providers"
 *
 * const sessions = DurableAgent.sessions(Engine.layerMemory, { session: "test" })
 * const agent = Agent.layer({ model: "claude-sonnet-4-5", provider: Anthropic.layerFetch(), sessions })
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const sessions = <E, R>(
  engine: Layer.Layer<Engine.Engine, E, R>,
  options?: Options | undefined
): Layer.Layer<Agent.Sessions, E, R> =>
  Layer.effect(
    Agent.Sessions,
    Effect.map(
      Effect.context<Engine.Engine>(),
      (context): Agent.SessionsService => ({ make: (session) => makeSession(context, session, options) })
    )
  ).pipe(Layer.provide(engine))

/**
 * The agent's sessions in the embedded store `filename` (SQLite through
 * `node:sqlite`, owned by this process alone: see `Engine.layerSqlite`).
 *
 * @example
 * ```ts
 * import { DurableAgent } from "@agent-kernel/durable"
 * import { Agent } from "@agent-kernel/kernel"
 * import { Anthropic } from "@agent-kernel/providers"
 *
 * const sessions = DurableAgent.sqlite("agent.db", { session: "demo" })
 * const agent = Agent.layer({ model: "claude-sonnet-4-5", provider: Anthropic.layerFetch(), sessions })
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const sqlite = (
  filename: string,
  options?: Options | undefined
): Layer.Layer<Agent.Sessions, Engine.StoreError> => sessions(Engine.layerSqlite(filename), options)

/**
 * The config of `layer`: the agent's (`Agent.Config`) with the session's
 * (`Options`).
 *
 * @example
 * ```ts
 * import { DurableAgent } from "@agent-kernel/durable"
 * import { Anthropic } from "@agent-kernel/providers"
 *
 * const config = { model: "claude-sonnet-4-5", provider: Anthropic.layerFetch(), session: "support-42" }
 * const agent = DurableAgent.layer("agent.db", config)
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export interface Config<S extends Settings.Input, EP, RP, ET, RT>
  extends Omit<Agent.Config<S, EP, RP, ET, RT, never, never>, "sessions">,
    Options {}

/**
 * `Agent.layer(config)` with its session in the embedded store `filename`:
 * `Agent.layer({ ...config, sessions: sqlite(filename, config) })`. Swap
 * `Agent.layer(` for `DurableAgent.layer("agent.db", ` and the agent's runs
 * resume after a crash. The session is `config.session`, else
 * `defaultSession`.
 *
 * @example
 * ```ts
 * import { DurableAgent } from "@agent-kernel/durable"
 * import { Agent } from "@agent-kernel/kernel"
 * import { Anthropic } from "@agent-kernel/providers"
 * import { Effect } from "effect"
 *
 * const agent = DurableAgent.layer("agent.db", { model: "claude-sonnet-4-5", provider: Anthropic.layerFetch() })
 * Effect.runPromise(Effect.provide(Agent.run("Plan my week"), agent))
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = <const S extends Settings.Input = {}, EP = never, RP = never, ET = never, RT = never>(
  filename: string,
  config: Config<S, EP, RP, ET, RT>
): Layer.Layer<Agent.Agent, EP | ET | Engine.StoreError | Settings.SettingsError | Agent.SessionError, RP | RT> => {
  const { session, idempotentTools, ...agent } = config
  return Agent.layer({ ...agent, sessions: sqlite(filename, { session, idempotentTools }) })
}
