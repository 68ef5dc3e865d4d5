import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import type * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import * as ContextProvider from "../ContextProvider.js"
import * as Decision from "../Decision.js"
import * as KernelEvent from "../KernelEvent.js"
import type * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as RetryPolicy from "../RetryPolicy.js"
import * as TokenEstimate from "../TokenEstimate.js"
import * as Log from "./log.js"
import * as Meter from "./meter.js"
import * as Observe from "./observe.js"
import * as Request from "./request.js"
import * as Run from "./run.js"
import * as SessionState from "./sessionState.js"
import * as Telemetry from "./telemetry.js"
import * as Tools from "./tools.js"

/**
 * A turn: its number, its span (the parent of its calls' and retries'
 * spans), and when it started.
 */
interface Turn {
  readonly number: number
  readonly span: Tracer.Span
  readonly startedAt: number
}

/**
 * The turns of a run, one after the other, each in its span, until one
 * ends the run: the loop performs what `Decision` decides, writing each step
 * to the session's state as it completes and publishing its events as they
 * happen.
 *
 * @internal
 */
export const turns = Effect.fnUntraced(function* (run: Run.Run) {
  while (true) {
    const next = yield* Ref.modify(run.state, (state) => nextTurn(run, state))
    if (typeof next !== "number") return next
    const ending = yield* Telemetry.useSpan(Telemetry.SpanName.turn, Telemetry.turn(next), (span) =>
      turnOf(run, { number: next, span, startedAt: Run.now(run) })
    )
    if (ending !== undefined) return ending
  }
})

/** The next turn's number, written as started, or the bound that ends the run before it. */
const nextTurn = (run: Run.Run, state: SessionState.State): [number | Decision.End, SessionState.State] => {
  const { turns } = SessionState.figures(state)
  const bound = Decision.beforeTurn(turns, run.env.settings)
  return Option.isSome(bound) ? [bound.value, state] : [turns + 1, SessionState.turnStarted(state, turns + 1)]
}

/** A turn's model call, then its tool calls; it ends the run, or `undefined`. */
const turnOf = Effect.fnUntraced(function* (run: Run.Run, turn: Turn) {
  const called = yield* modelCall(run, turn)
  if (called._tag === "End") return called
  const message = yield* answered(run, turn, called)
  const calls = Content.toolUses(message)
  const after = Decision.afterResponse(called.response.stop_reason, calls.length)
  if (Option.isSome(after)) {
    const filtered = after.value.status === "content_filtered"
    // A filtered response's tool calls never run: the run's end answers each of them.
    if (filtered)
      yield* Run.publish(run, {
        type: "content_filtered",
        at: Run.now(run),
        turn: turn.number,
        model: called.request.model,
        message: "the provider's content filter stopped the response",
        partial_text: Content.textOf(message)
      })
    yield* turnEnded(run, turn, called.response.stop_reason, filtered ? 0 : calls.length)
    return after.value
  }
  if (!(yield* Tools.runTools(run, turn.number, turn.span, calls))) return Decision.pastDeadline
  yield* turnEnded(run, turn, called.response.stop_reason, calls.length)
  return undefined
})

/** A turn's end: `turn_ended` and the turn's duration, at the Clock's time as it is built: build it as it runs. */
const turnEnded = (
  run: Run.Run,
  turn: Turn,
  stopReason: ModelProvider.StopReason,
  toolCalls: number
): Effect.Effect<void> => {
  const at = Run.now(run)
  const ended = Run.publish(run, {
    type: "turn_ended",
    at,
    turn: turn.number,
    stop_reason: stopReason,
    tool_calls: toolCalls
  })
  return run.env.metrics ? Effect.andThen(ended, Meter.turn(at - turn.startedAt)) : ended
}

/** A model call that answered. */
interface Answered {
  readonly _tag: "Answered"
  readonly request: ModelProvider.ModelRequest
  readonly response: ModelProvider.ModelResponse
  /** The response's content with unique tool ids. */
  readonly content: ReadonlyArray<Content.ContentBlock>
  readonly sentAt: number
  readonly returnedAt: number
}

/** A model attempt that failed. */
interface Failed {
  readonly _tag: "Failed"
  readonly error: ModelError.ModelError
  readonly model: string
  readonly attempt: number
  readonly shown: Observe.Shown
  readonly returnedAt: number
}

/**
 * The turn's model call, with everything that can happen to it: bounds,
 * retries under the policy and the session budget, fallback along the
 * chain, and context reduction. Retries never advance the turn counter.
 */
const modelCall = Effect.fnUntraced(function* (run: Run.Run, turn: Turn) {
  // The policy being stepped for the current model (made at its first retryable error), and an overflow to reduce.
  let stepper: RetryPolicy.Stepper | undefined
  let overflow: ModelError.ModelError | undefined
  while (true) {
    let state = yield* Ref.get(run.state)
    const figures = SessionState.figures(state)
    // The turn is announced with its first request (after the context is assembled), or as the run ends before it.
    const announce = figures.attempt === 0 ? announceTurn(run, turn) : Effect.void
    const bound = Decision.beforeCall({
      // A turn's first call is checked as the turn starts: nothing ran in between.
      now: figures.attempt === 0 ? turn.startedAt : Run.now(run),
      startedAt: figures.started_at,
      bounds: run.env.settings,
      cost: figures.cost_usd
    })
    if (Option.isSome(bound)) return yield* Effect.as(announce, bound.value)
    if (overflow !== undefined) {
      const exhausted = yield* reduceContext(run, turn, overflow)
      if (exhausted !== undefined) return exhausted
      overflow = undefined
      state = yield* Ref.get(run.state)
    }
    const model = run.env.models[figures.model_index] ?? run.env.model
    const prepared = yield* Request.prepare(run, state, model)
    yield* announce
    const attempted = yield* attempt(run, turn, model, prepared)
    if (attempted._tag !== "Failed") return attempted
    const next = yield* afterFailure(run, turn, attempted, stepper)
    if (next._tag === "End") return next
    stepper = next.stepper
    overflow = next.overflow
  }
})

const announceTurn = (run: Run.Run, turn: Turn) =>
  Run.publish(run, { type: "turn_started", at: turn.startedAt, turn: turn.number })

/** One attempt: announced, sent through the seam within the wall-clock bound, and timed. */
const attempt = Effect.fnUntraced(function* (run: Run.Run, turn: Turn, model: string, prepared: Request.Prepared) {
  const { request } = prepared
  const state = yield* Ref.updateAndGet(run.state, SessionState.attempting)
  const number = SessionState.figures(state).attempt
  // Asked first: with nobody listening the event is not built, and the clock is read once.
  if (run.listening())
    yield* Run.publish(run, {
      type: "model_request",
      at: Run.now(run),
      turn: turn.number,
      model,
      attempt: number,
      messages: prepared.messages,
      estimated_tokens: prepared.estimatedTokens,
      tools: request.tools.length
    })
  const sentAt = Run.now(run)
  const shown = new Observe.Shown()
  const info = Observe.attemptInfo(run, { turn: turn.number, model, attempt: number }, shown, turn.span)
  const result = yield* Tools.withinDeadline(run, run.effects.model(request, info), Decision.pastDeadline)
  if (result._tag === "End") return result
  // One reading of the clock for the call's end: its metric, its event and the retry decision.
  const returnedAt = Run.now(run)
  if (run.env.metrics) yield* run.env.meter.modelCall(model, returnedAt - sentAt, result)
  if (Result.isFailure(result))
    return { _tag: "Failed", error: result.failure, model, attempt: number, shown, returnedAt } satisfies Failed
  const response = result.success
  return {
    _tag: "Answered",
    request,
    response,
    content: Observe.contentOf(run, turn.number, shown, response),
    sentAt,
    returnedAt
  } satisfies Answered
})

/**
 * A response taken: the success recorded with the provider-wide quota, the
 * assistant message appended with what the call spent (a refilling budget
 * gives a retry back), then `model_response`, then the post-model-response
 * observers, who see the unique tool ids.
 */
const answered = Effect.fnUntraced(function* (run: Run.Run, turn: Turn, called: Answered) {
  const { request, response, content } = called
  yield* run.quota.recordSuccess
  const message: Content.Message = { role: "assistant", content }
  const warning = yield* Ref.modify(run.state, (state) => {
    const { spent, warning } = Run.spent(run, SessionState.figures(state), response.usage, request.model)
    const budget = run.env.budget.recordSuccess(state.budget)
    return [warning, SessionState.answered(state, message, budget, spent, Content.textOf(message))] as const
  })
  yield* Run.publish(run, {
    type: "model_response",
    at: called.returnedAt,
    turn: turn.number,
    model: request.model,
    stop_reason: response.stop_reason,
    usage: response.usage,
    duration_ms: called.returnedAt - called.sentAt
  })
  yield* warning
  if (run.env.bus.responseObserved)
    yield* run.env.bus.modelResponded(content === response.content ? response : { ...response, content }, {
      runId: run.runId,
      turn: turn.number,
      request
    })
  return message
})

/** What the call does after a failed attempt that did not end the run. */
interface Next {
  readonly _tag: "Next"
  readonly stepper: RetryPolicy.Stepper | undefined
  readonly overflow: ModelError.ModelError | undefined
}

/**
 * A failed attempt: its usage counted, the policy stepped when the error may
 * be retried, `Decision.decide` and `Decision.plan` consulted (the
 * provider-wide quota asked for a decision that spends a retry), and the
 * plan performed.
 */
const afterFailure = Effect.fnUntraced(function* (
  run: Run.Run,
  turn: Turn,
  failed: Failed,
  stepper: RetryPolicy.Stepper | undefined
) {
  const { env } = run
  const { error } = failed
  // A failed attempt's usage (a stream cut mid-way) was spent too: it counts towards max_cost_usd.
  if (error.usage !== undefined) {
    const { spent, warning } = Run.spent(
      run,
      SessionState.figures(yield* Ref.get(run.state)),
      error.usage,
      failed.model
    )
    yield* Run.update(run, (state) => SessionState.withRun(state, spent))
    yield* warning
  }
  let next = stepper
  let step = Option.none<Duration.Duration>()
  if (Decision.stepsPolicy(error)) {
    next ??= yield* RetryPolicy.stepper(env.policy())
    step = yield* next(failed.returnedAt, error)
  }
  const state = yield* Ref.get(run.state)
  const figures = SessionState.figures(state)
  const decision = Decision.decide(error, step, {
    now: failed.returnedAt,
    startedAt: figures.started_at,
    bounds: env.settings,
    cost: figures.cost_usd,
    reductions: figures.reductions,
    fallback: env.models[figures.model_index + 1],
    budget: env.budget,
    budgetState: state.budget
  })
  // The provider-wide quota is asked only for what the session budget was charged for.
  const granted = Decision.spendsRetry(decision, state.budget)
    ? yield* run.quota.acquire({ model: failed.model, category: error.category })
    : true
  const plan = Decision.plan(decision, {
    error,
    attempt: {
      turn: turn.number,
      model: failed.model,
      attempt: failed.attempt,
      retries: figures.retries,
      maxPerCall: figures.max_per_call,
      modelIndex: figures.model_index,
      reductions: figures.reductions,
      shownTextChars: failed.shown.textChars
    },
    budget: env.budget,
    budgetState: state.budget,
    granted
  })
  return yield* perform(run, turn, failed, plan, next)
})

/** Performs a failed attempt's plan. */
const perform = Effect.fnUntraced(function* (
  run: Run.Run,
  turn: Turn,
  failed: Failed,
  plan: Decision.Plan,
  stepper: RetryPolicy.Stepper | undefined
) {
  const { decision } = plan
  if (decision._tag === "Retry") {
    yield* retryWait(run, turn, failed, plan, decision)
    return { _tag: "Next", stepper, overflow: undefined } satisfies Next
  }
  yield* Run.update(run, (state) => {
    const planned = SessionState.planned(state, plan.budget, plan.counters)
    // A filter that failed the stream mid-way keeps what the model wrote before it, as a refusal at a finish does.
    return plan.kept === undefined
      ? planned
      : SessionState.answered(
          planned,
          { role: "assistant", content: [Content.text(plan.kept)] },
          planned.budget,
          SessionState.figures(planned),
          plan.kept
        )
  })
  if (decision._tag === "Fallback")
    yield* Telemetry.event(
      turn.span,
      Telemetry.EventName.fallback,
      Telemetry.fallback({
        from: failed.model,
        to: decision.to,
        category: failed.error.category,
        budget: run.env.budget.snapshot(decision.budget)
      })
    )
  yield* published(run, plan)
  switch (decision._tag) {
    case "End": {
      const pause = run.effects.pause
      if (pause === undefined) return decision
      // A pause stays a pause: a replay takes it again, whatever the settings say now, and its resume decides.
      const pauses =
        Decision.pauses(decision, run.env.settings) ||
        (run.effects.pausedBefore !== undefined &&
          (yield* run.effects.pausedBefore({ turn: turn.number, attempt: failed.attempt })))
      return pauses ? yield* paused(run, turn, failed, decision, pause, stepper) : decision
    }
    case "Reduce":
      return { _tag: "Next", stepper, overflow: decision.error } satisfies Next
    case "Fallback":
      // The next model of the chain gets a schedule of its own.
      return { _tag: "Next", stepper: undefined, overflow: undefined } satisfies Next
  }
})

/**
 * A run kept where it would have ended (`on_exhausted: pause`): `run_paused`,
 * then the runtime's pause until it is resumed, then `run_resumed` and the
 * call's next attempt. The budget and the call's retries carry over, used as
 * they are, unless the resume resets them.
 */
const paused = Effect.fnUntraced(function* (
  run: Run.Run,
  turn: Turn,
  failed: Failed,
  end: Decision.End,
  pause: NonNullable<Run.Run["effects"]["pause"]>,
  stepper: RetryPolicy.Stepper | undefined
) {
  const at = Run.now(run)
  const error = end.error ?? failed.error
  const resumeAt = Option.getOrNull(Decision.resumeAt(error, at, run.env.settings))
  const state = yield* Ref.get(run.state)
  const figures = SessionState.figures(state)
  const where = { run_id: run.runId, turn: turn.number, attempt: failed.attempt }
  yield* Run.publish(run, {
    type: "run_paused",
    at,
    ...where,
    reason: end.status,
    error: KernelEvent.summarize(error),
    retries: { max_per_call: figures.max_per_call, session_total: run.env.budget.snapshot(state.budget).used },
    resume_at: resumeAt
  })
  const resumed = yield* pause({ turn: turn.number, attempt: failed.attempt, status: end.status, error, at, resumeAt })
  if (resumed.resetBudget)
    yield* Run.update(run, (state) => ({
      ...SessionState.withRun(state, { retries: 0 }),
      budget: run.env.budget.initial
    }))
  yield* Run.publish(run, {
    type: "run_resumed",
    at: Run.now(run),
    ...where,
    reset_budget: resumed.resetBudget,
    paused_ms: Math.max(0, resumed.at - at)
  })
  // A reset call starts its retry schedule again; otherwise the policy goes on where it was.
  return { _tag: "Next", stepper: resumed.resetBudget ? undefined : stepper, overflow: undefined } satisfies Next
})

/** A plan's events, published at the Clock's time. */
const published = (run: Run.Run, plan: Decision.Plan): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (plan.events.length === 0 || !run.listening()) return Effect.void
    const at = Run.now(run)
    return Run.publishAll(
      run,
      plan.events.map((event) => KernelEvent.stamp(event, at))
    )
  })

/**
 * A retry: its charge written as it is decided (its events say so), then
 * its events, its count and its sleep, in the span of the wait. A retry
 * interrupted before it runs (while its events are delivered, or in its
 * sleep) never runs, so its charge is given back.
 */
const retryWait = (run: Run.Run, turn: Turn, failed: Failed, plan: Decision.Plan, decision: Decision.Retry) => {
  const { error, model } = failed
  const delayMs = Duration.toMillis(decision.delay)
  const waited = Telemetry.useSpan(
    Telemetry.SpanName.retry,
    Telemetry.retry({
      parent: turn.span,
      error,
      model,
      attempt: plan.counters.retries,
      delayMs,
      source: decision.source,
      budget: run.env.budget.snapshot(decision.budget)
    }),
    () =>
      published(run, plan).pipe(
        Effect.andThen(run.env.metrics ? Meter.retried(error.category) : Effect.void),
        Effect.andThen(run.effects.sleep(decision.delay))
      )
  )
  const refund = plan.refund
  return Effect.uninterruptibleMask((restore) =>
    Effect.andThen(
      Run.update(run, (state) => SessionState.planned(state, plan.budget, plan.counters)),
      restore(waited).pipe(
        Effect.onInterrupt(() =>
          refund === undefined
            ? Effect.void
            : Run.update(run, (state) => SessionState.planned(state, refund.budget, refund.counters))
        )
      )
    )
  )
}

/**
 * Shrinks the working context after an overflow, aiming at the provider's
 * counts when the error carries them: the run ends `context_exhausted`
 * unless the result is strictly smaller by the kernel's estimate.
 */
const reduceContext = Effect.fnUntraced(function* (run: Run.Run, turn: Turn, error: ModelError.ModelError) {
  const state = yield* Ref.get(run.state)
  const before = state.contextTokens
  const target = ContextProvider.targetFor(before, error._tag === "ContextLengthExceeded" ? error : {})
  const reduced = yield* run.env.contextProvider.reduce(Log.toArray(state.context), {
    estimatedTokens: before,
    targetTokens: target
  })
  const after = Option.isSome(reduced) ? TokenEstimate.messages(reduced.value) : undefined
  const exhausted = Decision.afterReduction(error, before, after)
  if (Option.isSome(exhausted)) return exhausted.value
  // `afterReduction` ends the run unless the provider reduced: past it, there is a smaller context.
  if (Option.isNone(reduced) || after === undefined)
    return yield* Effect.die(new Error("Decision.afterReduction let an unreduced context through"))
  const updated = yield* Ref.updateAndGet(run.state, (state) => SessionState.reduced(state, reduced.value, after))
  const { reductions } = SessionState.figures(updated)
  yield* Telemetry.event(
    turn.span,
    Telemetry.EventName.contextReduced,
    Telemetry.contextReduced({ before, after, target, reductions })
  )
  yield* Run.publish(run, {
    type: "context_reduced",
    at: Run.now(run),
    turn: turn.number,
    before,
    after,
    target,
    reductions
  })
  return undefined
})
