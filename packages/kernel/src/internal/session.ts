import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Metric from "effect/Metric"
import * as MutableRef from "effect/MutableRef"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import * as ContextProvider from "../ContextProvider.js"
import * as Decision from "../Decision.js"
import * as EventBus from "../EventBus.js"
import * as KernelEvent from "../KernelEvent.js"
import * as Metrics from "../Metrics.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as Pricing from "../Pricing.js"
import * as RetryBudget from "../RetryBudget.js"
import * as RetryPolicy from "../RetryPolicy.js"
import type * as RunOutcome from "../RunOutcome.js"
import type * as SessionApi from "../Session.js"
import * as Settings from "../Settings.js"
import * as TokenEstimate from "../TokenEstimate.js"
import * as Toolbox from "../Toolbox.js"
import * as Effects from "./effects.js"
import * as Log from "./log.js"
import * as ToolIds from "./toolIds.js"

/**
 * The session's state as the interpreter keeps it: `Session.State`, with the
 * history and the working context as append-only logs (a step appends in
 * O(1) and never copies the conversation) and a running token estimate of
 * the working context (a step never rescans it).
 */
interface State {
  readonly history: Log.Log<Content.Message>
  readonly context: Log.Log<Content.Message>
  readonly contextTokens: number
  readonly budget: RetryBudget.State
  readonly runs: number
  readonly run: SessionApi.RunState | null
}

/** How a run ends, on the error channel of the loop: caught once, where the run ends. */
class Ended extends Data.TaggedError("Ended")<{ readonly ending: Decision.End }> {}

const end = (status: RunOutcome.RunStatus, error?: ModelError.ModelError): Effect.Effect<never, Ended> =>
  Effect.fail(new Ended({ ending: Decision.End({ status, error }) }))

const PREVIEW_CHARS = 2_000

const pendingReasons: Partial<Record<RunOutcome.RunStatus, string>> = {
  interrupted: "The run was interrupted before this tool returned.",
  content_filtered: "The provider's content filter stopped the response; this tool was not run.",
  wall_clock_exceeded: "The run's wall-clock bound was reached before this tool returned."
}
const pendingReason = (status: RunOutcome.RunStatus): string =>
  pendingReasons[status] ?? "The run failed before this tool returned."

/** Everything a session holds that does not change between runs. */
interface Env {
  readonly id: string
  readonly model: string
  readonly models: ReadonlyArray<string>
  readonly settings: Settings.Settings
  readonly options: SessionApi.Options
  readonly provider: ModelProvider.Service
  readonly toolbox: Toolbox.Service
  readonly contextProvider: ContextProvider.Service
  readonly bus: EventBus.Service
  readonly budget: RetryBudget.Budget
  readonly state: Ref.Ref<State>
  readonly hub: PubSub.PubSub<KernelEvent.KernelEvent>
  /** Live subscribers of `hub`: when there are none and no observer, the loop builds no event. */
  readonly subscribers: MutableRef.MutableRef<number>
}

const fromHistory = (history: Content.History): Pick<State, "history" | "context" | "contextTokens"> => ({
  history: Log.fromArray(history),
  context: Log.fromArray(history),
  contextTokens: TokenEstimate.messages(history)
})

const initialState = (options: SessionApi.Options, budget: RetryBudget.Budget): State =>
  options.state !== undefined
    ? {
        ...fromHistory(options.state.history),
        context: Log.fromArray(options.state.context),
        contextTokens: TokenEstimate.messages(options.state.context),
        budget: options.state.budget,
        runs: options.state.runs,
        run: options.state.run
      }
    : { ...fromHistory(options.history ?? []), budget: budget.initial, runs: 0, run: null }

/** @internal */
export const toPublic = (state: State): SessionApi.State => ({
  history: Log.toArray(state.history),
  context: Log.toArray(state.context),
  budget: state.budget,
  runs: state.runs,
  run: state.run
})

/** @internal */
export const make = (
  options: SessionApi.Options
): Effect.Effect<SessionApi.Service, never, ModelProvider.ModelProvider> =>
  Effect.gen(function* () {
    const settings = options.settings ?? Settings.defaults
    const budget = (yield* RetryBudget.RetryBudget).budgetFor(settings)
    const env: Env = {
      id: options.id ?? `session-${crypto.randomUUID()}`,
      model: options.model,
      models: [options.model, ...settings.fallback_models.filter((model) => model !== options.model)],
      settings,
      options,
      provider: yield* ModelProvider.ModelProvider,
      toolbox: yield* Toolbox.Toolbox,
      contextProvider: yield* ContextProvider.ContextProvider,
      bus: yield* EventBus.EventBus,
      budget,
      state: yield* Ref.make(initialState(options, budget)),
      hub: yield* PubSub.unbounded<KernelEvent.KernelEvent>(),
      subscribers: MutableRef.make(0)
    }
    const semaphore = yield* Effect.makeSemaphore(1)
    const subscribe = Effect.acquireRelease(
      Effect.sync(() => MutableRef.increment(env.subscribers)),
      () => Effect.sync(() => MutableRef.decrement(env.subscribers))
    ).pipe(Effect.zipRight(Stream.fromPubSub(env.hub, { scoped: true })))
    return {
      id: env.id,
      settings,
      run: (input) => semaphore.withPermits(1)(runOnce(env, input)),
      history: Effect.map(Ref.get(env.state), (state) => Log.toArray(state.history)),
      context: Effect.map(Ref.get(env.state), (state) => Log.toArray(state.context)),
      state: Effect.map(Ref.get(env.state), toPublic),
      // Built on demand: an idle session holds no stream.
      get events() {
        return Stream.unwrapScoped(subscribe)
      },
      subscribe,
      retryBudget: Effect.map(Ref.get(env.state), (state) => budget.snapshot(state.budget))
    } satisfies SessionApi.Service
  })

const freshRun = (runId: string, startedAt: number): SessionApi.RunState => ({
  run_id: runId,
  started_at: startedAt,
  turns: 0,
  attempt: 0,
  model_index: 0,
  retries: 0,
  max_per_call: 0,
  usage: ModelProvider.emptyUsage,
  cost_usd: null,
  reductions: 0,
  final_text: "",
  unpriced: []
})

const withRun = (state: State, run: Partial<SessionApi.RunState>): State => ({
  ...state,
  run: { ...(state.run as SessionApi.RunState), ...run }
})

const appendMessage = (state: State, message: Content.Message): State => ({
  ...state,
  history: Log.append(state.history, message),
  context: Log.append(state.context, message),
  contextTokens: state.contextTokens + TokenEstimate.message(message)
})

/** Gives every tool_use of a trailing assistant message an error tool_result. */
const answerPending = (state: State, reason: string): State => {
  const last = Log.last(state.history)
  const pending = last?.role === "assistant" ? Content.toolUses(last) : []
  return pending.length === 0
    ? state
    : appendMessage(state, { role: "user", content: pending.map((call) => Content.toolResult(call.id, reason, true)) })
}

/**
 * A request whose messages are the working context as it was when the
 * request was made. The log is append-only, so its first `length` messages
 * never change: the array is made only when someone reads it (a provider
 * encoding the request), never by the loop.
 */
const requestOf = (
  model: string,
  context: Log.Log<Content.Message> | Content.History,
  tools: ReadonlyArray<ModelProvider.ToolDefinition>,
  options: SessionApi.Options
): ModelProvider.ModelRequest => {
  let messages: Content.History | undefined = Array.isArray(context) ? context : undefined
  const request = {
    model,
    tools,
    get messages(): Content.History {
      if (messages === undefined) messages = Log.toArray(context as Log.Log<Content.Message>)
      return messages
    }
  }
  if (options.system !== undefined) Object.assign(request, { system: options.system })
  if (options.maxOutputTokens !== undefined) Object.assign(request, { max_output_tokens: options.maxOutputTokens })
  return request
}

/** What a run's bookkeeping needs: the session, the run's id, its clock and its spans. */
interface Ambient {
  readonly env: Env
  readonly runId: string
  /** The run's number in the session, from 1. */
  readonly runNumber: number
  readonly clock: Clock.Clock
  readonly spans: Effects.Spans
  readonly runSpan: Tracer.Span | undefined
}

/** A live run: its bookkeeping, and the effects it performs. */
interface Run extends Ambient {
  readonly effects: Effects.Effects
}

const defaultPolicy = RetryPolicy.fromSettings(Settings.defaults)

/** The session's policy; the settings' own, built when a call first needs it (an idle session holds none). */
const policyOf = (env: Env): RetryPolicy.RetryPolicy =>
  env.options.policy ?? (env.settings === Settings.defaults ? defaultPolicy : RetryPolicy.fromSettings(env.settings))

const listening = (env: Env): boolean => env.bus.observed || MutableRef.get(env.subscribers) > 0

/** Delivers an event to the session's subscribers and the bus's observers. */
const emit = (env: Env, event: KernelEvent.KernelEvent): Effect.Effect<void> => {
  env.hub.unsafeOffer(event)
  return env.bus.deliver(event)
}

/**
 * Publishes the event `build` makes, stamped with the Clock's time, when
 * anyone listens; when nobody does, the event is never built.
 */
const publish = (run: Ambient, build: (at: number) => KernelEvent.KernelEvent): Effect.Effect<void> =>
  Effect.suspend(() => (listening(run.env) ? emit(run.env, build(run.clock.unsafeCurrentTimeMillis())) : Effect.void))

/** The bus the run's services publish to (a plugin's breaker): the session's stream and observers. */
const runBus = (env: Env): EventBus.Service => ({
  observed: true,
  publish: (event) =>
    Effect.flatMap(Effect.clock, (clock) =>
      emit(env, { ...event, at: clock.unsafeCurrentTimeMillis() } as KernelEvent.KernelEvent)
    ),
  deliver: (event) => Effect.suspend(() => emit(env, event)),
  modelResponded: env.bus.modelResponded
})

const runOnce = (env: Env, input: string | Content.Message): Effect.Effect<RunOutcome.RunOutcome> =>
  Effect.gen(function* () {
    const clock = yield* Effect.clock
    const startedAt = clock.unsafeCurrentTimeMillis()
    const message = typeof input === "string" ? Content.userText(input) : input
    const started = yield* Ref.modify(env.state, (state) => {
      const next = appendMessage(
        { ...state, runs: state.runs + 1, run: freshRun(`${env.id}/run-${state.runs + 1}`, startedAt) },
        message
      )
      return [next, next] as const
    })
    const spans = yield* Effects.spans
    const runSpan = spans.start("agent_kernel.run", undefined, { session: env.id })
    const ambient: Ambient = { env, runId: started.run!.run_id, runNumber: started.runs, clock, spans, runSpan }
    // The run's services, provided once for the whole run: its span as the parent of every span
    // inside it, the bus that carries a plugin's events to the session's stream and observers,
    // and the call timeouts of the session's settings.
    const services = (context: Context.Context<never>) =>
      Context.add(
        Context.add(
          runSpan === undefined ? context : Context.add(context, Tracer.ParentSpan, runSpan),
          EventBus.EventBus,
          runBus(env)
        ),
        ModelProvider.CurrentCallTimeouts,
        ModelProvider.callTimeoutsFrom(env.settings)
      )
    return yield* Effect.gen(function* () {
      const run: Run = {
        ...ambient,
        effects: Effects.make({
          provider: env.provider,
          toolbox: env.toolbox,
          attemptTimeout: Duration.millis(env.settings.model_attempt_timeout_ms),
          runtime: yield* Effect.runtime<never>(),
          spans
        })
      }
      yield* publish(run, (at) => ({
        type: "run_started",
        at,
        run_id: run.runId,
        model: env.model,
        input: Content.textOf(message)
      }))
      const ending = yield* turns(run).pipe(
        Effect.catchAllCause((cause) => {
          const ended = Cause.failureOption(cause)
          if (Option.isSome(ended)) return Effect.succeed(ended.value.ending)
          // An interrupted run is closed by `onInterrupt` below.
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          // A defect in a plugged-in service (a toolbox's definitions, a context provider) still
          // ends the run with a status, a run_ended event and a valid history.
          return Effect.succeed(
            Decision.End({
              status: "failed",
              error: new ModelError.Unknown({
                provider: "agent-kernel",
                model: env.model,
                message: `the run failed unexpectedly: ${Effects.describeDefect(Cause.squash(cause))}`
              })
            })
          )
        })
      )
      return yield* finish(run, ending)
    }).pipe(
      Effect.onInterrupt(() =>
        // An interrupted run still leaves a valid history: every tool_use gets a tool_result.
        // The toolbox first releases what the run may have left running.
        Effect.zipRight(
          env.toolbox.onRunInterrupted ?? Effect.void,
          finish(ambient, Decision.End({ status: "interrupted" }))
        )
      ),
      Effect.mapInputContext(services)
    )
  })

/** Ends a run: answers pending tool calls, publishes run_ended, and builds the outcome. */
const finish = (run: Ambient, ending: Decision.End): Effect.Effect<RunOutcome.RunOutcome> =>
  Effect.gen(function* () {
    const { env } = run
    const state = yield* Ref.updateAndGet(env.state, (state) => answerPending(state, pendingReason(ending.status)))
    const figures = state.run!
    const wall = run.clock.unsafeCurrentTimeMillis() - figures.started_at
    const retries = { max_per_call: figures.max_per_call, session_total: env.budget.snapshot(state.budget).used }
    const outcome: RunOutcome.RunOutcome = {
      run_id: figures.run_id,
      status: ending.status,
      ...(ending.error !== undefined ? { error: ending.error } : {}),
      turns: figures.turns,
      retries,
      usage: figures.usage,
      cost_usd: figures.cost_usd,
      wall_ms: wall,
      context_reductions: figures.reductions,
      final_text: figures.final_text,
      history: Log.toArray(state.history)
    }
    yield* publish(run, (at) => ({
      type: "run_ended",
      at,
      run_id: figures.run_id,
      status: ending.status,
      turns: figures.turns,
      retries,
      usage: figures.usage,
      cost_usd: figures.cost_usd,
      wall_ms: wall,
      error: ending.error === undefined ? null : KernelEvent.summarize(ending.error)
    }))
    if (env.options.metrics ?? true) yield* Metric.increment(Metric.tagged(Metrics.runs, "status", ending.status))
    run.spans.end(run.runSpan, ending.status === "interrupted" ? Exit.interrupt(FiberId.none) : Exit.succeed(outcome))
    return outcome
  })

/** The turns of a run, until one ends it. */
const turns = (run: Run): Effect.Effect<never, Ended> =>
  Effect.gen(function* () {
    const { env } = run
    while (true) {
      const state = yield* Ref.get(env.state)
      const figures = state.run!
      const bound = Decision.beforeTurn(figures.turns, env.settings)
      if (Option.isSome(bound)) return yield* new Ended({ ending: bound.value })
      const turn = figures.turns + 1
      yield* Ref.set(env.state, withRun(state, { turns: turn, attempt: 0, model_index: 0, retries: 0 }))
      if (env.options.metrics ?? true) yield* Metric.increment(Metrics.turns)
      const span = run.spans.start("agent_kernel.turn", run.runSpan, { turn })
      const exit = yield* Effect.exit(oneTurn(run, turn, span))
      run.spans.end(span, exit)
      if (Exit.isFailure(exit)) return yield* Effect.failCause(exit.cause)
    }
  })

const oneTurn = (run: Run, turn: number, span: Tracer.Span | undefined): Effect.Effect<void, Ended> =>
  Effect.gen(function* () {
    const { env } = run
    yield* publish(run, (at) => ({ type: "turn_started", at, turn }))
    const { request, response } = yield* callModel(run, turn, span)
    // Ids are made unique before any tool runs, so history, events and the next request agree.
    const content = ToolIds.unique(response.content, `${run.runNumber}.${turn}`)
    const message: Content.Message = { role: "assistant", content }
    const text = Content.textOf(message)
    yield* Ref.update(env.state, (state) =>
      withRun(appendMessage(state, message), text.length > 0 ? { final_text: text } : {})
    )
    yield* env.bus.modelResponded(content === response.content ? response : { ...response, content }, {
      runId: run.runId,
      turn,
      request
    })
    const calls = Content.toolUses(message)
    const after = Decision.afterResponse(response.stop_reason, calls.length)
    if (Option.isSome(after)) {
      const filtered = after.value.status === "content_filtered"
      if (filtered)
        yield* publish(run, (at) => ({
          type: "content_filtered",
          at,
          turn,
          model: request.model,
          message: "the provider's content filter stopped the response",
          partial_text: text
        }))
      yield* publish(run, (at) => ({
        type: "turn_ended",
        at,
        turn,
        stop_reason: response.stop_reason,
        tool_calls: filtered ? 0 : calls.length
      }))
      // A filtered response's tool calls are never run; the run's end answers them.
      return yield* new Ended({ ending: after.value })
    }
    yield* runTools(run, turn, span, calls)
    yield* publish(run, (at) => ({
      type: "turn_ended",
      at,
      turn,
      stop_reason: response.stop_reason,
      tool_calls: calls.length
    }))
  })

/** Runs the calls of a turn and appends their results, in the calls' order, as one message. */
const runTools = (
  run: Run,
  turn: number,
  span: Tracer.Span | undefined,
  calls: ReadonlyArray<Content.ToolUseBlock>
): Effect.Effect<void, Ended> =>
  Effect.gen(function* () {
    const { env } = run
    // Each result sits at its call's index: two calls never share a slot, whatever their ids.
    const results: Array<Content.ToolResultBlock | undefined> = calls.map(() => undefined)
    const invoke = (call: Content.ToolUseBlock, index: number) =>
      Effect.gen(function* () {
        yield* publish(run, (at) => ({ type: "tool_call_started", at, turn, id: call.id, name: call.name }))
        const startedAt = run.clock.unsafeCurrentTimeMillis()
        const result = yield* run.effects.tool(call, { turn, parent: span })
        results[index] = result
        yield* publish(run, (at) => ({
          type: "tool_result",
          at,
          turn,
          id: call.id,
          name: call.name,
          is_error: result.is_error,
          duration_ms: at - startedAt,
          preview: result.content.slice(0, PREVIEW_CHARS)
        }))
      })
    const all = Effect.forEach(calls, invoke, { concurrency: env.options.toolConcurrency ?? 1, discard: true })
    const finished = yield* withinDeadline(run, all)
    const message: Content.Message = {
      role: "user",
      content: calls.map(
        (call, i) => results[i] ?? Content.toolResult(call.id, pendingReason("wall_clock_exceeded"), true)
      )
    }
    yield* Ref.update(env.state, (state) => appendMessage(state, message))
    if (Option.isNone(finished)) return yield* end("wall_clock_exceeded")
  })

/** Runs an effect within the run's wall-clock bound, if one is set; `None` when the bound cut it short. */
const withinDeadline = <A, E>(run: Ambient, effect: Effect.Effect<A, E>): Effect.Effect<Option.Option<A>, E> => {
  const bound = run.env.settings.max_wall_clock_ms
  if (bound === undefined) return Effect.map(effect, Option.some)
  return Effect.flatMap(Ref.get(run.env.state), (state) => {
    const left = state.run!.started_at + bound - run.clock.unsafeCurrentTimeMillis()
    return left <= 0 ? Effect.succeedNone : Effect.timeoutOption(effect, Duration.millis(left))
  })
}

/** Adds a call's usage (and its cost, when the model has a price) to the run's figures. */
const account = (run: Ambient, usage: ModelProvider.Usage, model: string): Effect.Effect<void> =>
  Effect.flatMap(
    Ref.modify(run.env.state, (state) => {
      const figures = state.run!
      const cost = Pricing.costFor(run.env.settings.prices, model, usage)
      const warn =
        Option.isNone(cost) && run.env.settings.max_cost_usd !== undefined && !figures.unpriced.includes(model)
      const next = withRun(state, {
        usage: ModelProvider.addUsage(figures.usage, usage),
        cost_usd: Option.isSome(cost) ? (figures.cost_usd ?? 0) + cost.value : figures.cost_usd,
        unpriced: warn ? [...figures.unpriced, model] : figures.unpriced
      })
      return [warn, next] as const
    }),
    (warn) =>
      warn
        ? publish(run, (at) => ({
            type: "warning",
            at,
            message: `no price for model "${model}" in settings.prices: max_cost_usd does not count its calls`
          }))
        : Effect.void
  )

/**
 * One model call with everything that can happen to it: bounds, retries
 * under the policy and the session budget, fallback along the chain, and
 * context reduction. The decisions are `Decision.decide`'s; this performs
 * them. Retries never advance the turn counter.
 */
const callModel = (
  run: Run,
  turn: number,
  span: Tracer.Span | undefined
): Effect.Effect<
  { readonly request: ModelProvider.ModelRequest; readonly response: ModelProvider.ModelResponse },
  Ended
> =>
  Effect.gen(function* () {
    const { env } = run
    // The policy's schedule for the call's current model: made at its first error, dropped at a fallback.
    let stepper: { readonly policy: RetryPolicy.RetryPolicy; state: unknown } | undefined
    let overflow: ModelError.ModelError | undefined
    while (true) {
      const now = run.clock.unsafeCurrentTimeMillis()
      let state = yield* Ref.get(env.state)
      const bound = Decision.beforeCall({
        now,
        startedAt: state.run!.started_at,
        bounds: env.settings,
        cost: state.run!.cost_usd
      })
      if (Option.isSome(bound)) return yield* new Ended({ ending: bound.value })
      if (overflow !== undefined) {
        yield* reduceContext(run, turn, overflow)
        overflow = undefined
        state = yield* Ref.get(env.state)
      }
      const figures = state.run!
      const model = env.models[figures.model_index] ?? env.model
      const assembled =
        env.contextProvider.assemble === undefined
          ? undefined
          : yield* env.contextProvider.assemble(Log.toArray(state.context))
      const tools = yield* env.toolbox.definitions
      const request = requestOf(model, assembled ?? state.context, tools, env.options)
      const attempt = figures.attempt + 1
      yield* Ref.set(env.state, withRun(state, { attempt }))
      yield* publish(run, (at) => ({
        type: "model_request",
        at,
        turn,
        model,
        attempt,
        messages: assembled === undefined ? state.context.length : assembled.length,
        estimated_tokens:
          TokenEstimate.requestOverhead(request) +
          (assembled === undefined ? state.contextTokens : TokenEstimate.messages(assembled)),
        tools: tools.length
      }))
      const sentAt = run.clock.unsafeCurrentTimeMillis()
      const called = yield* withinDeadline(run, run.effects.model(request, { turn, attempt, parent: span }))
      if (Option.isNone(called)) return yield* end("wall_clock_exceeded")
      const result = called.value
      if (Either.isRight(result)) {
        const response = result.right
        yield* Ref.update(env.state, (state) => ({ ...state, budget: env.budget.recordSuccess(state.budget) }))
        yield* account(run, response.usage, model)
        yield* publish(run, (at) => ({
          type: "model_response",
          at,
          turn,
          model,
          stop_reason: response.stop_reason,
          usage: response.usage,
          duration_ms: at - sentAt
        }))
        return { request, response }
      }
      const error = result.left
      // A failed attempt's usage (a stream cut mid-way) is spent too, and counts towards max_cost_usd.
      if (error.usage !== undefined) yield* account(run, error.usage, model)
      const failedAt = run.clock.unsafeCurrentTimeMillis()
      let delay: Option.Option<Duration.Duration> = Option.none()
      let scheduleState: unknown
      if (Decision.stepsPolicy(error)) {
        if (stepper === undefined) {
          const policy = policyOf(env)
          stepper = { policy, state: policy.initial }
        }
        const step = yield* RetryPolicy.step(stepper.policy, failedAt, error, stepper.state)
        delay = step.delay
        scheduleState = step.state
      }
      const current = yield* Ref.get(env.state)
      const decision = Decision.decide(error, delay, {
        now: failedAt,
        startedAt: current.run!.started_at,
        bounds: env.settings,
        cost: current.run!.cost_usd,
        reductions: current.run!.reductions,
        fallback: env.models[current.run!.model_index + 1],
        budget: env.budget,
        budgetState: current.budget
      })
      switch (decision._tag) {
        case "End": {
          const reductions = decision.reductions
          if (reductions !== undefined) yield* Ref.update(env.state, (state) => withRun(state, { reductions }))
          if (decision.status === "content_filtered")
            yield* publish(run, (at) => ({
              type: "content_filtered",
              at,
              turn,
              model,
              message: error.message,
              partial_text: ""
            }))
          return yield* new Ended({ ending: decision })
        }
        case "Reduce": {
          yield* Ref.update(env.state, (state) => withRun(state, { reductions: decision.reductions }))
          overflow = decision.error
          continue
        }
        case "Fallback": {
          // Each model of the chain gets its own retries; the session budget is the shared ceiling.
          const next = yield* Ref.updateAndGet(env.state, (state) =>
            withRun({ ...state, budget: decision.budget }, { model_index: state.run!.model_index + 1, retries: 0 })
          )
          stepper = undefined
          const spent = env.budget.snapshot(next.budget)
          yield* publish(run, (at) => ({
            type: "fallback",
            at,
            turn,
            from: model,
            to: decision.to,
            category: error.category,
            session_retries_used: spent.used,
            session_retries_left: spent.remaining
          }))
          continue
        }
        case "Retry": {
          const before = current
          const next = yield* Ref.updateAndGet(env.state, (state) => {
            const retries = state.run!.retries + 1
            return withRun(
              { ...state, budget: decision.budget },
              { retries, max_per_call: Math.max(state.run!.max_per_call, retries) }
            )
          })
          if (stepper !== undefined) stepper.state = scheduleState
          if (error.midStream === true)
            yield* publish(run, (at) => ({ type: "stream_restarted", at, turn, model, category: error.category }))
          const delayMs = Duration.toMillis(decision.delay)
          const spent = env.budget.snapshot(next.budget)
          yield* publish(run, (at) => ({
            type: "retry_scheduled",
            at,
            turn,
            model,
            category: error.category,
            message: error.message,
            attempt: next.run!.retries,
            session_retries_used: spent.used,
            session_retries_left: spent.remaining,
            delay_ms: delayMs,
            retry_after_ms: error.retryAfter === undefined ? null : Duration.toMillis(error.retryAfter),
            source: decision.source
          }))
          if (env.options.metrics ?? true)
            yield* Metric.increment(Metric.tagged(Metrics.retries, "category", error.category))
          // The charge belongs to the decision (the events show it); a retry interrupted in its
          // sleep never runs, so its charge is given back.
          yield* run.effects
            .sleep(decision.delay)
            .pipe(
              Effect.onInterrupt(() =>
                Ref.update(env.state, (state) =>
                  withRun(
                    { ...state, budget: before.budget },
                    { retries: before.run!.retries, max_per_call: before.run!.max_per_call }
                  )
                )
              )
            )
        }
      }
    }
  })

const reduceContext = (run: Run, turn: number, error: ModelError.ModelError): Effect.Effect<void, Ended> =>
  Effect.gen(function* () {
    const { env } = run
    const state = yield* Ref.get(env.state)
    const before = state.contextTokens
    const target = ContextProvider.targetFor(before, error._tag === "ContextLengthExceeded" ? error : {})
    const reduced = yield* env.contextProvider.reduce(Log.toArray(state.context), {
      estimatedTokens: before,
      targetTokens: target
    })
    if (Option.isNone(reduced)) return yield* end("context_exhausted", error)
    const after = TokenEstimate.messages(reduced.value)
    // Only a strictly smaller context may be sent: the same request again would overflow again.
    if (after >= before) return yield* end("context_exhausted", error)
    yield* Ref.update(env.state, (state) => ({ ...state, context: Log.fromArray(reduced.value), contextTokens: after }))
    yield* publish(run, (at) => ({
      type: "context_reduced",
      at,
      turn,
      before,
      after,
      target,
      reductions: state.run!.reductions
    }))
  })
