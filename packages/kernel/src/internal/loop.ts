import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as Metric from "effect/Metric"
import * as MutableRef from "effect/MutableRef"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import * as ContextProvider from "../ContextProvider.js"
import * as Decision from "../Decision.js"
import type * as EventBus from "../EventBus.js"
import type * as KernelEvent from "../KernelEvent.js"
import * as Metrics from "../Metrics.js"
import type * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as Pricing from "../Pricing.js"
import type * as ResponsePart from "../ResponsePart.js"
import type * as RetryBudget from "../RetryBudget.js"
import * as RetryPolicy from "../RetryPolicy.js"
import * as RetryQuota from "../RetryQuota.js"
import type * as RunOutcome from "../RunOutcome.js"
import * as Settings from "../Settings.js"
import * as TokenEstimate from "../TokenEstimate.js"
import type * as Toolbox from "../Toolbox.js"
import type * as Effects from "./effects.js"
import * as EventBusInternal from "./eventBus.js"
import * as Log from "./log.js"
import type * as Meter from "./meter.js"
import * as responsePart from "./responsePart.js"
import * as SessionState from "./sessionState.js"
import * as Telemetry from "./telemetry.js"
import * as ToolIds from "./toolIds.js"

/**
 * How a run ends, on the error channel of the loop. The loop never catches
 * it: it is caught once, where the run ends. Not an `Error`: an ending is an
 * outcome, and a stack trace per run would cost more than a step.
 *
 * @internal
 */
export class Ended extends Data.TaggedClass("Ended")<{ readonly ending: Decision.End }> {}

/**
 * What a session holds that does not change between runs.
 *
 * @internal
 */
export interface Env {
  readonly id: string
  readonly model: string
  readonly models: ReadonlyArray<string>
  readonly settings: Settings.Settings
  readonly policy: RetryPolicy.RetryPolicy | undefined
  readonly system: string | undefined
  readonly maxOutputTokens: number | undefined
  /** The session's request options, applied to every call. */
  readonly request: ModelProvider.RequestOptions | undefined
  readonly toolConcurrency: number
  /** Whether runs update the kernel's global metrics. */
  readonly metrics: boolean
  /** Records the GenAI metrics of the session's calls (when `metrics`). */
  readonly meter: Meter.Meter
  readonly toolbox: Toolbox.Service
  readonly contextProvider: ContextProvider.Service
  readonly bus: EventBus.Service
  readonly budget: RetryBudget.Budget
  /** The session's state as of the last commit: written synchronously by the loop, read by the session's accessors. */
  readonly state: MutableRef.MutableRef<SessionState.State>
  /** The call timeouts of the settings, given to every call of every run. */
  readonly callTimeouts: ModelProvider.CallTimeouts
  readonly listeners: Listeners
}

/**
 * The session's own event stream.
 *
 * @internal
 */
export interface Listeners {
  /** Made at the first subscription: an idle session, or one nobody subscribes to, holds none. */
  hub: PubSub.PubSub<KernelEvent.KernelEvent> | undefined
  /** Live subscribers of `hub`: with none and no observer, the loop builds no event. */
  subscribers: number
}

/**
 * Offers events, in order, to the session's stream, if anyone ever subscribed
 * to it. The stream's buffer is bounded: what does not fit waits (the
 * returned effect suspends) until every subscriber has read enough to make
 * room, so a slow subscriber holds up the run and never loses an event.
 * `Effect.void` when everything fit at once.
 *
 * @internal
 */
export const offer = (env: Env, events: ReadonlyArray<KernelEvent.KernelEvent>): Effect.Effect<void> => {
  const hub = env.listeners.hub
  if (hub === undefined) return Effect.void
  for (let i = 0; i < events.length; i++)
    // Uninterruptible: an interrupted wait would drop the events still queued, while the session's state
    // already holds what they describe. A subscriber that goes away releases the wait.
    if (!hub.unsafeOffer(events[i]!))
      return Effect.uninterruptible(Effect.asVoid(PubSub.publishAll(hub, events.slice(i))))
  return Effect.void
}

/**
 * A run: the session, and what the run reads once (its clock, its spans, the
 * effects it performs).
 *
 * @internal
 */
export interface Run {
  readonly env: Env
  readonly runId: string
  /** The run's number in the session, from 1. */
  readonly runNumber: number
  readonly clock: Clock.Clock
  readonly spans: Effects.Spans
  readonly runSpan: Tracer.Span | undefined
  readonly effects: Effects.Effects
  /** The provider-wide retry quota in the run's context, read once: a run's context does not change. */
  readonly quota: RetryQuota.Service
}

/**
 * The run's working copy of the session state, and the events not yet
 * delivered. The loop updates it synchronously and commits it (to the
 * session's state, and the events to subscribers and observers) before every
 * effect it performs, so an interruption or a reader always sees the state of
 * the last completed step, and an observer sees each event before what
 * follows it happens. A step with one tool call delivers its events in four
 * batches: the turn's start and the model request before the call, what a
 * one-shot response shows within the call (a stream's parts go out one by
 * one), the response and the tool call's start before the tool runs, and the
 * result and the turn's end when the turn ends.
 *
 * @internal
 */
export interface Cursor {
  state: SessionState.State
  /** The events not yet delivered, a new array a batch (see `note`): a delivery may still hold the last one. */
  events: ReadonlyArray<KernelEvent.KernelEvent>
  /** The open turn span, ended where the run ends if the turn does not end it. */
  turnSpan: Tracer.Span | undefined
  /**
   * The request's token estimate without its messages, for the last tool
   * definitions seen (a copy, compared one by one: see `overheadOf`): they
   * rarely change, and the system prompt never does within a run.
   */
  tools: { readonly definitions: ReadonlyArray<unknown>; readonly tokens: number } | undefined
  /**
   * The turn's tool calls while they run, and each result at its call's index
   * once it is back: a run that ends meanwhile (an interrupt) keeps every
   * result that came back, and answers only the others.
   */
  running: Running | undefined
}

/** @internal */
export interface Running {
  readonly calls: ReadonlyArray<Content.ToolUseBlock>
  readonly results: Array<Content.ToolResultBlock | undefined>
}

/** @internal */
export const listening = (env: Env): boolean => env.bus.observed || env.listeners.subscribers > 0

const now = (run: Run): number => run.clock.unsafeCurrentTimeMillis()

/**
 * No events queued: shared, as nothing writes into a cursor's array.
 *
 * @internal
 */
export const noEvents: ReadonlyArray<KernelEvent.KernelEvent> = []

/**
 * Queues an event; call it only when `listening`, so that nobody's event is
 * ever built for nothing. A batch's array is made at its size: a step's
 * batches hold two events each, and a push into an empty array reserves 17.
 *
 * @internal
 */
export const note = (cursor: Cursor, event: KernelEvent.KernelEvent): void => {
  const events = cursor.events
  cursor.events = events.length === 0 ? [event] : events.length === 1 ? [events[0]!, event] : [...events, event]
}

/**
 * Writes the state to the session at once, and returns the delivery of the
 * queued events, in order (`Effect.void` when there are none, or nobody
 * listens). The loop calls it from its own code as the run performs it, to
 * perform what it returns at once, never to build an effect to run later: the
 * write and the offer to the stream are synchronous, so a commit costs a step
 * no effect of its own.
 *
 * @internal
 */
export const commit = (env: Env, cursor: Cursor): Effect.Effect<void> => {
  MutableRef.set(env.state, cursor.state)
  if (cursor.events.length === 0) return Effect.void
  const events = cursor.events
  cursor.events = noEvents
  // The state is set before the stream's buffer may make the run wait, so a reader sees this step meanwhile.
  return deliver(env, events)
}

/**
 * Offers events to the stream at once and returns their delivery to the
 * observers (`Effect.void` when nothing is left to do). It writes no state:
 * a commit's, a concurrent tool call's or a one-shot response's events go out
 * through it. Every caller performs what it returns as it asks for it, so
 * when nothing waits before the delivery its first observer is called now.
 */
const deliver = (env: Env, events: ReadonlyArray<KernelEvent.KernelEvent>): Effect.Effect<void> => {
  const offered = offer(env, events)
  if (!env.bus.observed) return offered
  return offered === Effect.void
    ? EventBusInternal.deliverStarted(env.bus, events)
    : Effect.zipRight(offered, env.bus.deliver(events))
}

/** Commits, then ends the run. */
const end = (run: Run, cursor: Cursor, ending: Decision.End): Effect.Effect<never, Ended> => {
  // Failed with its cause made here: `Effect.fail` would wrap the ending in a Proxy carrying the
  // fiber's span, for an error that never leaves the kernel.
  const ended = Effect.failCause(Cause.fail(new Ended({ ending })))
  const committed = commit(run.env, cursor)
  return committed === Effect.void ? ended : Effect.flatMap(committed, () => ended)
}

const defaultPolicy = RetryPolicy.fromSettings(Settings.defaults)

/** The session's policy; the settings' own is built when a call first needs it (an idle session holds none). */
const policyOf = (env: Env): RetryPolicy.RetryPolicy =>
  env.policy ?? (env.settings === Settings.defaults ? defaultPolicy : RetryPolicy.fromSettings(env.settings))

const PREVIEW_CHARS = 2_000

/** @internal */
export const pendingReasons: Partial<Record<RunOutcome.RunStatus, string>> = {
  interrupted: "The run was interrupted before this tool returned.",
  content_filtered: "The provider's content filter stopped the response; this tool was not run.",
  wall_clock_exceeded: "The run's wall-clock bound was reached before this tool returned."
}

/** Why a tool_use left without a result gets an error result, by how the run ended. @internal */
export const pendingReason = (status: RunOutcome.RunStatus): string =>
  pendingReasons[status] ?? "The run failed before this tool returned."

/**
 * The turns of a run, until one ends it (on the error channel).
 *
 * @internal
 */
export const turns = (run: Run, cursor: Cursor): Effect.Effect<never, Ended> => Effect.gen(() => eachTurn(run, cursor))

/** A turn's end at `at`: its event queued, its span ended, its duration counted. */
const turnEnded = (
  run: Run,
  cursor: Cursor,
  turn: number,
  span: Tracer.Span | undefined,
  startedAt: number,
  at: number,
  stopReason: ModelProvider.ModelResponse["stop_reason"],
  toolCalls: number
): void => {
  if (listening(run.env)) note(cursor, { type: "turn_ended", at, turn, stop_reason: stopReason, tool_calls: toolCalls })
  run.spans.end(span, Exit.void)
  cursor.turnSpan = undefined
  if (run.env.metrics) run.env.meter.turn(at - startedAt)
}

/**
 * The turns, one after the other, each with its model call and its tool
 * calls, in one generator: a generator per turn, or per model call, cost a
 * frame a turn, and a level of `yield*` that every effect in it went through.
 */
function* eachTurn(run: Run, cursor: Cursor) {
  const { env } = run
  while (true) {
    const bound = Decision.beforeTurn(SessionState.figures(cursor.state).turns, env.settings)
    if (Option.isSome(bound)) return yield* end(run, cursor, bound.value)
    const turn = SessionState.figures(cursor.state).turns + 1
    cursor.state = SessionState.turnStarted(cursor.state, turn)
    const span = run.spans.enabled ? Telemetry.turn(run.spans, run.runSpan, turn) : undefined
    const turnStartedAt = now(run)
    cursor.turnSpan = span
    if (listening(env)) note(cursor, { type: "turn_started", at: turnStartedAt, turn })
    // The model call, with everything that can happen to it: bounds, retries under the policy and the session
    // budget, fallback along the chain, and context reduction. `Decision` decides; this performs what it returns.
    // Retries never advance the turn counter. In this generator: one of its own cost ~0.5 KB a turn (its frame,
    // and a level of `yield*` that each of its effects went through).
    let called: Called
    let retrying: Retrying | undefined
    while (true) {
      const figures = SessionState.figures(cursor.state)
      const callBound = Decision.beforeCall({
        now: now(run),
        startedAt: figures.started_at,
        bounds: env.settings,
        cost: figures.cost_usd
      })
      if (Option.isSome(callBound)) return yield* end(run, cursor, callBound.value)
      if (retrying?.overflow !== undefined) {
        yield* reduceContext(run, cursor, turn, retrying.overflow)
        retrying.overflow = undefined
      }
      const model = env.models[figures.model_index] ?? env.model
      const assembled =
        env.contextProvider.assemble === undefined
          ? undefined
          : yield* env.contextProvider.assemble(Log.toArray(cursor.state.context))
      const tools = yield* env.toolbox.definitions
      const request = requestOf(model, cursor.state.context, assembled, tools, env)
      const attempt = figures.attempt + 1
      cursor.state = SessionState.attempting(cursor.state, attempt)
      if (listening(env))
        note(cursor, {
          type: "model_request",
          at: now(run),
          turn,
          model,
          attempt,
          messages: assembled === undefined ? cursor.state.context.length : assembled.length,
          estimated_tokens:
            overheadOf(cursor, request) +
            (assembled === undefined ? cursor.state.contextTokens : TokenEstimate.messages(assembled)),
          tools: tools.length
        })
      const committed = commit(env, cursor)
      if (committed !== Effect.void) yield* committed
      const sentAt = now(run)
      const shown: Shown = { textChars: 0, ids: undefined, content: undefined }
      const attempted = run.effects.model(
        request,
        listening(env)
          ? {
              turn,
              attempt,
              parent: span,
              observe: observer(run, turn, model, attempt, shown),
              observeResponse: responseObserver(run, turn, model, attempt, shown)
            }
          : { turn, attempt, parent: span }
      )
      // Without a wall-clock bound the call is performed as it is: no Option, no generator, a step.
      let result: Either.Either<ModelProvider.ModelResponse, ModelError.ModelError>
      if (env.settings.max_wall_clock_ms === undefined) result = yield* attempted
      else {
        const bounded = yield* withinDeadline(run, cursor, attempted)
        if (Option.isNone(bounded)) return yield* end(run, cursor, Decision.pastDeadline)
        result = bounded.value
      }
      // One reading of the clock for the call's end: its metric, its event and the retry decision.
      const returnedAt = now(run)
      if (env.metrics) env.meter.modelCall(model, returnedAt - sentAt, result)
      if (Either.isRight(result)) {
        const response = result.right
        // The default quota grants everything: it is not worth an effect a call.
        if (run.quota !== RetryQuota.unlimited) yield* run.quota.recordSuccess
        if (listening(env))
          note(cursor, {
            type: "model_response",
            at: returnedAt,
            turn,
            model,
            stop_reason: response.stop_reason,
            usage: response.usage,
            duration_ms: returnedAt - sentAt
          })
        // Ids are made unique before any tool runs, so history, events and the next request agree.
        const content =
          shown.content?.of === response ? shown.content.content : ToolIds.unique(response.content, run.runNumber, turn)
        called = { request, response, content }
        break
      }
      retrying ??= { stepper: undefined, overflow: undefined }
      yield* afterFailure(run, cursor, turn, span, model, attempt, shown, returnedAt, result.left, retrying)
    }
    const { request, response, content } = called
    const message: Content.Message = { role: "assistant", content }
    const text = Content.textOf(message)
    cursor.state = SessionState.answered(
      cursor.state,
      message,
      env.budget.recordSuccess(cursor.state.budget),
      accounted(run, cursor, response.usage, request.model),
      text
    )
    if (env.bus.responseObserved) {
      yield* commit(env, cursor)
      yield* env.bus.modelResponded(content === response.content ? response : { ...response, content }, {
        runId: run.runId,
        turn,
        request
      })
    }
    const calls = Content.toolUses(message)
    const after = Decision.afterResponse(response.stop_reason, calls.length)
    if (Option.isSome(after)) {
      const filtered = after.value.status === "content_filtered"
      // One reading of the clock for the turn's end: its event and its duration.
      const at = now(run)
      if (filtered && listening(env))
        note(cursor, {
          type: "content_filtered",
          at,
          turn,
          model: request.model,
          message: "the provider's content filter stopped the response",
          partial_text: text
        })
      turnEnded(run, cursor, turn, span, turnStartedAt, at, response.stop_reason, filtered ? 0 : calls.length)
      // A filtered response's tool calls never run: the run's end answers each of them.
      return yield* end(run, cursor, after.value)
    }
    // The calls, in this generator: a generator of their own cost a frame and a level of `yield*` a step.
    const results = toolsStarting(cursor, calls)
    let finished = true
    // Without a wall-clock bound the calls in order are performed as they are: no Option, no effect of their own.
    if (env.toolConcurrency === 1 && env.settings.max_wall_clock_ms === undefined)
      yield* toolsInOrder(run, cursor, turn, span, calls, results)
    else
      finished = Option.isSome(
        yield* withinDeadline(
          run,
          cursor,
          env.toolConcurrency === 1
            ? Effect.gen(() => toolsInOrder(run, cursor, turn, span, calls, results))
            : toolsAtOnce(run, cursor, turn, span, calls, results)
        )
      )
    toolsDone(cursor, calls, results)
    if (!finished) return yield* end(run, cursor, Decision.pastDeadline)
    turnEnded(run, cursor, turn, span, turnStartedAt, now(run), response.stop_reason, calls.length)
    // The turn's end goes out on its own, before the next turn's bounds are checked and its state made: an
    // observer of turn_ended sees the turn that ended, and the time it takes counts before a call is announced.
    const ended = commit(env, cursor)
    if (ended !== Effect.void) yield* ended
  }
}

/** Runs the effect within the run's wall-clock bound, if one is set; `None` when the bound cut it short. */
function* withinDeadline<A, E>(run: Run, cursor: Cursor, effect: Effect.Effect<A, E>) {
  const left = Decision.timeLeft(run.env.settings, SessionState.figures(cursor.state).started_at, now(run))
  if (left === undefined) return Option.some(yield* effect)
  return left <= 0 ? Option.none<A>() : yield* Effect.timeoutOption(effect, Duration.millis(left))
}

/**
 * The results of a turn's calls as they start, each to sit at its call's
 * index (two calls never share a slot, whatever their ids), kept on the
 * cursor while the calls run. Made at its size: the first store into an
 * empty array gives it room for 17.
 */
const toolsStarting = (
  cursor: Cursor,
  calls: ReadonlyArray<Content.ToolUseBlock>
): Array<Content.ToolResultBlock | undefined> => {
  const results: Array<Content.ToolResultBlock | undefined> = new Array(calls.length)
  cursor.running = { calls, results }
  return results
}

/**
 * Appends a turn's results, in the calls' order, as one message, once its
 * calls are done or the wall-clock bound cut them short (a call not back is
 * answered with an error result).
 */
const toolsDone = (
  cursor: Cursor,
  calls: ReadonlyArray<Content.ToolUseBlock>,
  results: ReadonlyArray<Content.ToolResultBlock | undefined>
): void => {
  cursor.running = undefined
  cursor.state = SessionState.append(cursor.state, {
    role: "user",
    content: SessionState.resultsFor(calls, results, pendingReason("wall_clock_exceeded"))
  })
}

/**
 * The calls of a turn at once, up to the session's `toolConcurrency`, each
 * result at its call's index; each call delivers its own events as they
 * happen. The queue is committed when the calls start, not when this is
 * built: past the deadline it never runs, and the run's end commits it.
 */
const toolsAtOnce = (
  run: Run,
  cursor: Cursor,
  turn: number,
  span: Tracer.Span | undefined,
  calls: ReadonlyArray<Content.ToolUseBlock>,
  results: Array<Content.ToolResultBlock | undefined>
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const indexes = runIndexes(calls)
    return Effect.flatMap(commit(run.env, cursor), () =>
      Effect.forEach(
        calls,
        (call, index) => {
          const startedAt = now(run)
          return Effect.flatMap(
            publishNow(run, { type: "tool_call_started", at: startedAt, turn, id: call.id, name: call.name }),
            () =>
              Effect.flatMap(invoke(run, call, turn, indexes[index]!, span), (result) => {
                results[index] = result
                return publishNow(run, toolResulted(turn, call, result, startedAt, now(run)))
              })
          )
        },
        { concurrency: run.env.toolConcurrency, discard: true }
      )
    )
  })

/** The calls of a turn one after the other, each result at its call's index. */
function* toolsInOrder(
  run: Run,
  cursor: Cursor,
  turn: number,
  span: Tracer.Span | undefined,
  calls: ReadonlyArray<Content.ToolUseBlock>,
  results: Array<Content.ToolResultBlock | undefined>
) {
  const { env } = run
  // The calls' `runIndexes`, counted as they go: in order, a call's index is the number of calls run before it.
  let ran = 0
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!
    const startedAt = now(run)
    if (listening(env)) note(cursor, { type: "tool_call_started", at: startedAt, turn, id: call.id, name: call.name })
    const committed = commit(env, cursor)
    if (committed !== Effect.void) yield* committed
    const result = yield* invoke(run, call, turn, ran, span)
    if (call.invalid_input === undefined) ran++
    results[index] = result
    if (listening(env)) note(cursor, toolResulted(turn, call, result, startedAt, now(run)))
  }
}

/**
 * Each call's `ToolInfo.index`: its place among the calls of the turn that
 * are run, in the model's order (a call whose input was not valid JSON is
 * not run, see `invoke`). A journal names a call by it, so it must not
 * depend on the order concurrent calls start in.
 */
const runIndexes = (calls: ReadonlyArray<Content.ToolUseBlock>): ReadonlyArray<number> => {
  const indexes: Array<number> = []
  let next = 0
  for (const call of calls) {
    indexes.push(next)
    if (call.invalid_input === undefined) next++
  }
  return indexes
}

/**
 * Runs one call, unless its input was not valid JSON: such a call is never
 * invoked, and the model is told why, so the history stays valid.
 */
const invoke = (
  run: Run,
  call: Content.ToolUseBlock,
  turn: number,
  index: number,
  parent: Tracer.Span | undefined
): Effect.Effect<Content.ToolResultBlock> =>
  call.invalid_input === undefined
    ? run.effects.tool(call, { turn, index, parent })
    : Effect.succeed(
        Content.toolResult(
          call.id,
          `The input of this call to "${call.name}" was not a valid JSON object, so the tool was not run. Input received: ${call.invalid_input.slice(0, PREVIEW_CHARS)}`,
          true
        )
      )

const toolResulted = (
  turn: number,
  call: Content.ToolUseBlock,
  result: Content.ToolResultBlock,
  startedAt: number,
  at: number
): KernelEvent.KernelEvent => ({
  type: "tool_result",
  at,
  turn,
  id: call.id,
  name: call.name,
  is_error: result.is_error,
  duration_ms: at - startedAt,
  preview: result.content.slice(0, PREVIEW_CHARS)
})

/** Delivers one event at once (the concurrent tool path, where there is no single order to queue in). */
const publishNow = (run: Run, event: KernelEvent.KernelEvent): Effect.Effect<void> =>
  Effect.suspend(() => (listening(run.env) ? deliver(run.env, [event]) : Effect.void))

/**
 * A call's usage added to the run's figures, and its cost when the model has
 * a price; the first unpriced call of a model under `max_cost_usd` gets a
 * warning.
 */
const accounted = (run: Run, cursor: Cursor, usage: ModelProvider.Usage, model: string): SessionState.Spent => {
  const { settings } = run.env
  const figures = SessionState.figures(cursor.state)
  const cost = Pricing.costFor(settings.prices, model, usage)
  const warn = Option.isNone(cost) && settings.max_cost_usd !== undefined && !figures.unpriced.includes(model)
  if (warn && listening(run.env))
    note(cursor, {
      type: "warning",
      at: now(run),
      message: `no price for model "${model}" in settings.prices: max_cost_usd does not count its calls`
    })
  return {
    usage: ModelProvider.addUsage(figures.usage, usage),
    cost_usd: Option.isSome(cost) ? (figures.cost_usd ?? 0) + cost.value : figures.cost_usd,
    unpriced: warn ? [...figures.unpriced, model] : figures.unpriced
  }
}

/**
 * A request whose messages are the working context as it was when the
 * request was made. The log is append-only, so its first `length` messages
 * never change: their array is made when someone reads it (a provider
 * encoding the request), never by the loop.
 */
const requestOf = (
  model: string,
  context: Log.Log<Content.Message>,
  assembled: Content.History | undefined,
  tools: ReadonlyArray<ModelProvider.ToolDefinition>,
  env: Pick<Env, "system" | "maxOutputTokens" | "request">
): ModelProvider.ModelRequest => {
  let messages = assembled
  const request = {
    model,
    tools,
    get messages(): Content.History {
      if (messages === undefined) messages = Log.toArray(context)
      return messages
    }
  }
  if (env.system !== undefined) Object.assign(request, { system: env.system })
  if (env.maxOutputTokens !== undefined) Object.assign(request, { max_output_tokens: env.maxOutputTokens })
  if (env.request !== undefined) Object.assign(request, env.request)
  return request
}

/**
 * The request's estimate without its messages, recomputed only when the tool
 * definitions change. The system prompt is the session's, the same in every
 * request of a run: with one, the definitions were written out as JSON for
 * the estimate at every step. The definitions are compared one by one with a
 * copy of the last ones seen, not by the array's identity: a toolbox may hand
 * out the one array it changes (adds a tool it found); a definition object it
 * handed out it does not change (`Toolbox.Service.definitions`).
 */
const overheadOf = (cursor: Cursor, request: ModelProvider.ModelRequest): number => {
  if (cursor.tools === undefined || !sameDefinitions(cursor.tools.definitions, request.tools))
    cursor.tools = { definitions: Array.from(request.tools), tokens: TokenEstimate.requestOverhead(request) }
  return cursor.tools.tokens
}

const sameDefinitions = (seen: ReadonlyArray<unknown>, tools: ReadonlyArray<unknown>): boolean => {
  if (seen.length !== tools.length) return false
  for (let i = 0; i < seen.length; i++) if (seen[i] !== tools[i]) return false
  return true
}

/** A model call that answered: its request, the response, and the response's content with unique tool ids. */
interface Called {
  readonly request: ModelProvider.ModelRequest
  readonly response: ModelProvider.ModelResponse
  readonly content: ReadonlyArray<Content.ContentBlock>
}

/** A model call's state across its failed attempts, made at its first failure. */
interface Retrying {
  /** The policy's schedule for the current model of the call: made at its first error, dropped at a fallback. */
  stepper: { readonly policy: RetryPolicy.RetryPolicy; state: unknown } | undefined
  /** The overflow the next attempt reduces the context for. */
  overflow: ModelError.ModelError | undefined
}

/**
 * What a failed attempt leads to, as `Decision` decides: the run's end, a
 * reduction or a fallback for the next attempt, or a retry after its wait.
 * Apart from the turn's model call, so that one that succeeds (most do)
 * carries none of this in its frame.
 */
function* afterFailure(
  run: Run,
  cursor: Cursor,
  turn: number,
  span: Tracer.Span | undefined,
  model: string,
  attempt: number,
  shown: Shown,
  returnedAt: number,
  error: ModelError.ModelError,
  retrying: Retrying
) {
  const { env } = run
  // A failed attempt's usage (a stream cut mid-way) was spent too: it counts towards max_cost_usd.
  if (error.usage !== undefined)
    cursor.state = SessionState.withRun(cursor.state, accounted(run, cursor, error.usage, model))
  let delay: Option.Option<Duration.Duration> = Option.none()
  let scheduleState: unknown
  if (Decision.stepsPolicy(error)) {
    if (retrying.stepper === undefined) {
      const policy = policyOf(env)
      retrying.stepper = { policy, state: policy.initial }
    }
    const step = yield* RetryPolicy.step(retrying.stepper.policy, returnedAt, error, retrying.stepper.state)
    delay = step.delay
    scheduleState = step.state
  }
  const current = SessionState.figures(cursor.state)
  const decision = Decision.decide(error, delay, {
    now: returnedAt,
    startedAt: current.started_at,
    bounds: env.settings,
    cost: current.cost_usd,
    reductions: current.reductions,
    fallback: env.models[current.model_index + 1],
    budget: env.budget,
    budgetState: cursor.state.budget
  })
  // The provider-wide quota is asked only for what the session budget was charged for.
  if (Decision.spendsRetry(decision, cursor.state.budget)) {
    const granted = yield* run.quota.acquire({ model, category: error.category })
    const refused = Decision.afterQuota(granted, error)
    if (Option.isSome(refused)) {
      if (listening(env))
        note(cursor, {
          type: "retry_quota_exhausted",
          at: now(run),
          turn,
          model,
          category: error.category,
          message: error.message
        })
      return yield* end(run, cursor, refused.value)
    }
  }
  switch (decision._tag) {
    case "End": {
      if (decision.reductions !== undefined)
        cursor.state = SessionState.withRun(cursor.state, { reductions: decision.reductions })
      if (decision.status === "content_filtered") {
        // A filter that failed the stream mid-way keeps what the model wrote before it, as a refusal at a finish does.
        const partial = error._tag === "ContentFiltered" ? (error.partialText ?? "") : ""
        if (partial.length > 0)
          cursor.state = SessionState.answered(
            cursor.state,
            { role: "assistant", content: [Content.text(partial)] },
            cursor.state.budget,
            SessionState.figures(cursor.state),
            partial
          )
        if (listening(env))
          note(cursor, {
            type: "content_filtered",
            at: now(run),
            turn,
            model,
            message: error.message,
            partial_text: partial
          })
      }
      return yield* end(run, cursor, decision)
    }
    case "Reduce": {
      cursor.state = SessionState.withRun(cursor.state, { reductions: decision.reductions })
      retrying.overflow = decision.error
      return
    }
    case "Fallback": {
      // Each model of the chain gets its own retries; the session budget is the shared ceiling.
      cursor.state = SessionState.withRun(
        { ...cursor.state, budget: decision.budget },
        { model_index: current.model_index + 1, retries: 0 }
      )
      retrying.stepper = undefined
      if (run.spans.enabled)
        run.spans.event(
          span,
          Telemetry.EventName.fallback,
          Telemetry.fallback({
            from: model,
            to: decision.to,
            category: error.category,
            budget: env.budget.snapshot(decision.budget)
          })
        )
      if (listening(env)) {
        // The next model's answer replaces what this attempt showed.
        if (shown.textChars > 0)
          note(cursor, {
            type: "stream_restarted",
            at: now(run),
            turn,
            model,
            attempt,
            category: error.category,
            discarded_text_chars: shown.textChars
          })
        const spent = env.budget.snapshot(decision.budget)
        note(cursor, {
          type: "fallback",
          at: now(run),
          turn,
          from: model,
          to: decision.to,
          category: error.category,
          session_retries_used: spent.used,
          session_retries_left: spent.remaining
        })
      }
      return
    }
    case "Retry": {
      const before = cursor.state
      const retries = current.retries + 1
      cursor.state = SessionState.withRun(
        { ...cursor.state, budget: decision.budget },
        { retries, max_per_call: Math.max(current.max_per_call, retries) }
      )
      if (retrying.stepper !== undefined) retrying.stepper.state = scheduleState
      if (listening(env)) {
        const at = now(run)
        if (error.midStream === true || shown.textChars > 0)
          note(cursor, {
            type: "stream_restarted",
            at,
            turn,
            model,
            attempt,
            category: error.category,
            discarded_text_chars: shown.textChars
          })
        const spent = env.budget.snapshot(decision.budget)
        note(cursor, {
          type: "retry_scheduled",
          at,
          turn,
          model,
          category: error.category,
          message: error.message,
          attempt: retries,
          session_retries_used: spent.used,
          session_retries_left: spent.remaining,
          delay_ms: Duration.toMillis(decision.delay),
          retry_after_ms: error.retryAfter === undefined ? null : Duration.toMillis(error.retryAfter),
          source: decision.source
        })
      }
      // The wait is a span of the turn that carries the decision: category, attempt, delay, source, budget.
      const wait = run.spans.enabled
        ? Telemetry.retry(run.spans, span, {
            error,
            model,
            attempt: retries,
            delayMs: Duration.toMillis(decision.delay),
            source: decision.source,
            budget: env.budget.snapshot(decision.budget)
          })
        : undefined
      const sleep = run.effects.sleep(decision.delay)
      const scheduled = commit(env, cursor)
      const counted = env.metrics
        ? Effect.zipRight(scheduled, Metric.increment(Metrics.retriesOfCategory(error.category)))
        : scheduled
      // The charge belongs to the decision (the events show it); a retry interrupted before it
      // runs (while its event is delivered, or in its sleep) never runs, so its charge is given back.
      yield* Effect.zipRight(counted, sleep).pipe(
        Effect.onInterrupt(() =>
          Effect.sync(() => {
            cursor.state = SessionState.withRun(
              { ...cursor.state, budget: before.budget },
              { retries: current.retries, max_per_call: current.max_per_call }
            )
          })
        ),
        wait === undefined ? identity : Effect.onExit((exit) => Effect.sync(() => run.spans.end(wait, exit)))
      )
    }
  }
}

/** What an attempt has shown observers so far. */
interface Shown {
  textChars: number
  /** The blocks with unique tool ids last worked out, and the accumulator they are of. */
  ids: { readonly of: ResponsePart.Accumulator; readonly blocks: ReadonlyArray<responsePart.Building> } | undefined
  /** A one-shot response's content with unique ids, made when it was observed. */
  content:
    | { readonly of: ModelProvider.ModelResponse; readonly content: ReadonlyArray<Content.ContentBlock> }
    | undefined
}

/** What an attempt shows of a text or thinking delta, or of a tool call that started. */
const shownEvent = (
  run: Run,
  turn: number,
  model: string,
  attempt: number,
  shown: Shown,
  shows:
    | { readonly type: "text_delta" | "thinking_delta"; readonly text: string }
    | { readonly type: "tool_use_started"; readonly id: string; readonly name: string }
): KernelEvent.KernelEvent | undefined => {
  if (shows.type === "tool_use_started")
    return { type: "tool_use_started", at: now(run), turn, id: shows.id, name: shows.name }
  if (shows.text.length === 0) return undefined
  if (shows.type === "text_delta") shown.textChars += shows.text.length
  return { type: shows.type, at: now(run), turn, model, attempt, text: shows.text }
}

/**
 * Publishes a stream's deltas as its parts arrive, at once (not queued):
 * the first delta reaches observers before the stream ends.
 */
const observer =
  (run: Run, turn: number, model: string, attempt: number, shown: Shown) =>
  (part: ResponsePart.ResponsePart, accumulated: ResponsePart.Accumulator): Effect.Effect<void> => {
    const event =
      part.type === "text_delta" || part.type === "thinking_delta"
        ? shownEvent(run, turn, model, attempt, shown, part)
        : part.type === "tool_use_start"
          ? shownEvent(run, turn, model, attempt, shown, {
              type: "tool_use_started",
              id: uniqueIdOf(run, turn, accumulated, part, shown),
              name: part.name
            })
          : undefined
    return event === undefined ? Effect.void : publishNow(run, event)
  }

/**
 * Delivers what a one-shot response's parts show, as `observer` publishes a
 * stream's, with the ids its content gets, in one batch: they all arrived
 * when its call returned. The delivery is part of the attempt (see
 * `AttemptInfo.observeResponse`), so as with a stream's parts the wall-clock
 * bound counts it and an interrupt during it leaves the response untaken.
 * The content with unique ids is kept for the turn.
 */
const responseObserver =
  (run: Run, turn: number, model: string, attempt: number, shown: Shown) =>
  (response: ModelProvider.ModelResponse): Effect.Effect<void> => {
    const content = ToolIds.unique(response.content, run.runNumber, turn)
    shown.content = { of: response, content }
    const events: Array<KernelEvent.KernelEvent> = []
    for (const block of content) {
      const event =
        block.type === "text"
          ? shownEvent(run, turn, model, attempt, shown, { type: "text_delta", text: block.text })
          : block.type === "thinking"
            ? shownEvent(run, turn, model, attempt, shown, { type: "thinking_delta", text: block.thinking })
            : block.type === "tool_use"
              ? shownEvent(run, turn, model, attempt, shown, {
                  type: "tool_use_started",
                  id: block.id,
                  name: block.name
                })
              : undefined
      if (event !== undefined) events.push(event)
    }
    return events.length === 0 ? Effect.void : deliver(run.env, events)
  }

/**
 * The id the kernel will give a tool call that just started: the ids of the
 * response so far, made unique as the whole response's will be. Blocks
 * arrive in index order, so the calls before this one are all known.
 */
const uniqueIdOf = (
  run: Run,
  turn: number,
  accumulated: ResponsePart.Accumulator,
  part: ResponsePart.ToolUseStart,
  shown: Shown
): string => {
  // The blocks in the response's order are renamed as its content will be, their inputs never parsed.
  if (shown.ids?.of !== accumulated)
    shown.ids = {
      of: accumulated,
      blocks: ToolIds.uniqueOf(responsePart.ordered(accumulated), run.runNumber, turn, renamed)
    }
  const block = shown.ids.blocks.find((block) => block.index === part.index)
  return block?.type === "tool_use" ? block.id : part.id
}

const renamed = (block: responsePart.Building, id: string): responsePart.Building =>
  block.type === "tool_use" ? { ...block, id } : block

function* reduceContext(run: Run, cursor: Cursor, turn: number, error: ModelError.ModelError) {
  const before = cursor.state.contextTokens
  const target = ContextProvider.targetFor(before, error._tag === "ContextLengthExceeded" ? error : {})
  yield* commit(run.env, cursor)
  const reduced = yield* run.env.contextProvider.reduce(Log.toArray(cursor.state.context), {
    estimatedTokens: before,
    targetTokens: target
  })
  const after = Option.isSome(reduced) ? TokenEstimate.messages(reduced.value) : undefined
  const exhausted = Decision.afterReduction(error, before, after)
  if (Option.isSome(exhausted)) return yield* end(run, cursor, exhausted.value)
  // `afterReduction` ends the run unless the provider reduced: past it, there is a smaller context.
  if (Option.isNone(reduced) || after === undefined)
    return yield* Effect.dieMessage("Decision.afterReduction let an unreduced context through")
  cursor.state = { ...cursor.state, context: Log.fromArray(reduced.value), contextTokens: after }
  if (run.spans.enabled)
    run.spans.event(
      cursor.turnSpan,
      Telemetry.EventName.contextReduced,
      Telemetry.contextReduced({ before, after, target, reductions: SessionState.figures(cursor.state).reductions })
    )
  if (listening(run.env))
    note(cursor, {
      type: "context_reduced",
      at: now(run),
      turn,
      before,
      after,
      target,
      reductions: SessionState.figures(cursor.state).reductions
    })
}
