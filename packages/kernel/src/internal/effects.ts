import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import type { RunStatus } from "../KernelEvent.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as ResponsePart from "../ResponsePart.js"
import type * as Toolbox from "../Toolbox.js"
import * as Telemetry from "./telemetry.js"

/**
 * The effects a run performs through one seam: a model attempt, a tool
 * call, and a retry's sleep. A durable runtime journals a session by
 * wrapping this record: a model attempt's result is the whole response (or
 * error); the parts it streams on the way are observation only
 * (`AttemptInfo.observe`), so a replay that returns the journaled response
 * without streaming is the same run.
 *
 * @internal
 */
export interface Effects {
  /**
   * One attempt of a model call. Never fails: a provider error is a
   * `Failure`, a provider defect a `Failure` `Unknown` (a bug, never
   * retried), and an attempt that outlives the attempt timeout a `Failure`
   * `Timeout` (transient).
   */
  readonly model: (
    request: ModelProvider.ModelRequest,
    attempt: AttemptInfo
  ) => Effect.Effect<Result.Result<ModelProvider.ModelResponse, ModelError.ModelError>>
  /** One tool call. Never fails: a toolbox that fails or dies gives an error result. */
  readonly tool: (call: Content.ToolUseBlock, info: ToolInfo) => Effect.Effect<Content.ToolResultBlock>
  /** The wait before a retry, on the Clock. */
  readonly sleep: (delay: Duration.Duration) => Effect.Effect<void>
  /**
   * Keeps the run where it is instead of ending it (`on_exhausted: pause`),
   * until it is resumed: what a durable runtime offers. Absent, the run ends
   * with the status it would have paused at.
   */
  readonly pause?: ((pause: Pause) => Effect.Effect<Resumed>) | undefined
  /**
   * Whether the run paused at this turn and attempt before (a replay of it,
   * paused still or resumed): the run then takes that pause again, whatever
   * `on_exhausted` says now, and goes on as its resume says. Absent: never.
   */
  readonly pausedBefore?: ((where: PausePoint) => Effect.Effect<boolean>) | undefined
}

/** @internal */
export interface PausePoint {
  readonly turn: number
  /** The attempt whose failure paused the run. */
  readonly attempt: number
}

/** @internal */
export interface Pause {
  readonly turn: number
  /** The attempt whose failure would have ended the run. */
  readonly attempt: number
  /** The status the run would have ended with. */
  readonly status: RunStatus
  readonly error: ModelError.ModelError
  /** When it paused (the Clock's time). */
  readonly at: number
  /** When a runner resumes it; `null`: only a caller does. */
  readonly resumeAt: number | null
}

/** @internal */
export interface Resumed {
  /** Whether the session's retry budget and the call's retries start again. */
  readonly resetBudget: boolean
  /** When the run was resumed (epoch milliseconds). */
  readonly at: number
}

/** @internal */
export interface AttemptInfo {
  readonly turn: number
  readonly attempt: number
  /** The span the call's own span is a child of (the turn's). */
  readonly parent: Tracer.AnySpan | undefined
  /**
   * Called with each part of a stream as it arrives, and the response
   * accumulated so far (the part included), before the next part is read:
   * its effect holds up the stream, and the time it takes is not counted
   * against the attempt's timeout. Absent when nobody listens.
   */
  readonly observe?:
    | ((part: ResponsePart.ResponsePart, accumulated: ResponsePart.Accumulator) => Effect.Effect<void>)
    | undefined
  /**
   * Called with a one-shot provider's response when its call returns, in
   * place of `observe` for its parts: they all arrived at once. Its effect
   * is part of the attempt, as a stream's observations are: it runs before
   * the attempt returns the response, outside the attempt's timeout (the
   * call is over) but within whatever bounds the attempt. Absent when nobody
   * listens.
   */
  readonly observeResponse?: ((response: ModelProvider.ModelResponse) => Effect.Effect<void>) | undefined
}

/** @internal */
export interface ToolInfo {
  readonly turn: number
  /**
   * The call's place among the calls of its turn that are run, from 0, in
   * the order the model gave them (a call whose input is not valid JSON is
   * never run and takes no place).
   */
  readonly index: number
  /** The span the call's own span is a child of (the turn's). */
  readonly parent: Tracer.AnySpan | undefined
}

/** @internal */
export const describeDefect = (defect: unknown): string =>
  defect instanceof Error ? defect.message || defect.name : typeof defect === "string" ? defect : String(defect)

/** @internal */
export interface Options {
  readonly provider: ModelProvider.Service
  readonly toolbox: Toolbox.Service
  readonly attemptTimeout: Duration.Duration
}

/**
 * The live effects of a run: the session's provider and toolbox, each call
 * in its GenAI span, a model attempt bounded by the attempt timeout.
 *
 * @internal
 */
export const make = (options: Options): Effects => ({
  model: (request, info) => modelAttempt(options, request, info),
  tool: (call, info) => toolCall(options.toolbox, call, info),
  sleep: (delay) => Effect.sleep(delay)
})

const modelAttempt = (
  options: Options,
  request: ModelProvider.ModelRequest,
  info: AttemptInfo
): Effect.Effect<Result.Result<ModelProvider.ModelResponse, ModelError.ModelError>> => {
  // A one-shot provider's parts all arrive when its call returns, which is when they are observed.
  const oneShot = info.observe === undefined || options.provider.generate !== undefined
  // A stream's hold is counted afresh each time the attempt runs.
  return oneShot
    ? attemptWith(options, request, info, undefined)
    : Effect.suspend(() => attemptWith(options, request, info, new Held()))
}

const attemptWith = (
  options: Options,
  request: ModelProvider.ModelRequest,
  info: AttemptInfo,
  held: Held | undefined
): Effect.Effect<Result.Result<ModelProvider.ModelResponse, ModelError.ModelError>> => {
  const { provider, attemptTimeout } = options
  const call = Telemetry.withCallSpan(
    Telemetry.modelCallName(request),
    Telemetry.modelCall(provider.name, request, info),
    (span) =>
      Effect.onExit(attemptCall(provider, request, info.observe, held), (exit) =>
        Effect.sync(() => Telemetry.annotate(span, Telemetry.modelCallEnded(exit)))
      )
  )
  return Effect.flatMap(withinAttemptTimeout(call, attemptTimeout, held), (exit) =>
    attemptResult(options, request, info, exit)
  )
}

/** What an attempt's exit reads as: the response, or the error a retry decision is made on. */
const attemptResult = (
  options: Options,
  request: ModelProvider.ModelRequest,
  info: AttemptInfo,
  exit: Exit.Exit<ModelProvider.ModelResponse, ModelError.ModelError> | undefined
): Effect.Effect<Result.Result<ModelProvider.ModelResponse, ModelError.ModelError>> => {
  const { provider, attemptTimeout } = options
  if (exit === undefined) return Effect.succeed(Result.fail(timedOut(provider.name, request.model, attemptTimeout)))
  if (Exit.isSuccess(exit)) {
    const answered = Result.succeed(exit.value)
    return info.observeResponse !== undefined && provider.generate !== undefined
      ? Effect.as(info.observeResponse(exit.value), answered)
      : Effect.succeed(answered)
  }
  const error = Cause.findErrorOption(exit.cause)
  if (error._tag === "Some") return Effect.succeed(Result.fail(error.value))
  // The call was interrupted from within: so is the run.
  if (Cause.hasInterruptsOnly(exit.cause)) return Effect.interrupt
  // A provider that throws or dies is a bug, not a transport error: typed, never retried.
  return Effect.succeed(
    Result.fail(
      new ModelError.Unknown({
        provider: provider.name,
        model: request.model,
        message: `the provider failed unexpectedly: ${describeDefect(Cause.squash(exit.cause))}`
      })
    )
  )
}

const timedOut = (provider: string, model: string, timeout: Duration.Duration): ModelError.ModelError =>
  new ModelError.Timeout({
    provider,
    model,
    message: `the attempt took longer than model_attempt_timeout_ms (${Duration.toMillis(timeout)} ms)`
  })

/**
 * One attempt as an effect. Unobserved, the provider's response is all
 * that matters (`ModelProvider.generate`); a one-shot provider is observed
 * once its call returns; any other provider's stream is folded through the
 * accumulator, each part observed as it arrives.
 */
const attemptCall = (
  provider: ModelProvider.Service,
  request: ModelProvider.ModelRequest,
  observe: AttemptInfo["observe"],
  held: Held | undefined
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> => {
  if (observe === undefined) return Effect.suspend(() => ModelProvider.generate(provider, request))
  const generate = provider.generate
  if (generate !== undefined) return Effect.suspend(() => generate(request))
  // The response so far; for a stream that fails, what it reached: a content filter's error keeps its text.
  let reached = ResponsePart.empty
  // The parts of one read, each added and observed in turn before the next read.
  const observeEach = (parts: ReadonlyArray<ResponsePart.ResponsePart>): Effect.Effect<void> =>
    Effect.suspend(() => {
      let i = 0
      return Effect.whileLoop({
        while: () => i < parts.length,
        body: () => {
          reached = ResponsePart.add(reached, parts[i]!)
          return observe(parts[i]!, reached)
        },
        step: () => {
          i++
        }
      })
    })
  return Stream.suspend(() => provider.stream(request)).pipe(
    Stream.runForEachArray((parts) => (held === undefined ? observeEach(parts) : held.holding(observeEach(parts)))),
    Effect.mapError((error) => ModelProvider.keepPartialText(error, reached)),
    Effect.flatMap(() =>
      ResponsePart.isFinished(reached)
        ? Effect.succeed(ResponsePart.toResponse(reached, request.model))
        : Effect.fail(ModelProvider.unfinished(provider.name, request.model, ResponsePart.usage(reached)))
    )
  )
}

/**
 * How long a streaming call has been held up by its observers: a delta
 * waits for a slow subscriber (back-pressure) or observer, and that wait is
 * the reader's, not the model's, so the attempt's timeout leaves it out.
 */
class Held {
  millis = 0
  /** When the hold in progress began, if one is. */
  since: number | undefined = undefined
  /** Completed when the hold in progress ends; made only when a timeout waits for that. */
  ended: Deferred.Deferred<void> | undefined = undefined

  /** Runs an observation, adding the time it takes. */
  holding(observation: Effect.Effect<void>): Effect.Effect<void> {
    return Effect.clockWith((clock) => {
      this.since = clock.currentTimeMillisUnsafe()
      return Effect.ensuring(
        observation,
        Effect.sync(() => {
          this.millis += clock.currentTimeMillisUnsafe() - (this.since ?? 0)
          this.since = undefined
          if (this.ended !== undefined) {
            Deferred.doneUnsafe(this.ended, Effect.void)
            this.ended = undefined
          }
        })
      )
    })
  }

  /**
   * An effect that ends when the hold in progress does, or `undefined` when
   * none is. A hold ends before its call can (it runs on the call's fiber).
   */
  holdEnd(): Effect.Effect<void> | undefined {
    if (this.since === undefined) return undefined
    this.ended ??= Deferred.makeUnsafe<void>()
    return Deferred.await(this.ended)
  }

  /** How much of `budget` ms a call started at `started` has left at `now`, no hold being in progress. */
  left(budget: number, started: number, now: number): number {
    return budget - (now - started - this.millis)
  }
}

/**
 * Runs `call` on a fiber of its own and waits for it, at most `timeout` of
 * the call's own time (what observers held it up is added back). On time,
 * its exit; past it, the call is interrupted and waited for, and the result
 * is `undefined`, unless the call ended on its own meanwhile with an answer
 * or a typed error (one that could not be interrupted in time): a success is
 * done work a retry would redo, and an error such as a 401 is the provider's
 * answer, which a timeout would turn into a transient error. The run
 * interrupted meanwhile interrupts the call and waits for its finalizers.
 */
const withinAttemptTimeout = <A, E>(
  call: Effect.Effect<A, E>,
  timeout: Duration.Duration,
  held: Held | undefined
): Effect.Effect<Exit.Exit<A, E> | undefined> =>
  Effect.flatMap(Effect.forkChild(call, { startImmediately: true }), (fiber) => {
    // A call that completed as it started (an in-memory model) is not waited for.
    const done = fiber.pollUnsafe()
    if (done !== undefined) return Effect.succeed(done)
    // It suspended as it started, in the same instant: its own time starts now.
    const budget = Duration.toMillis(timeout)
    return Effect.clockWith((clock) => awaitWithin(fiber, budget, clock.currentTimeMillisUnsafe(), held, budget)).pipe(
      Effect.onInterrupt(() => Fiber.interrupt(fiber))
    )
  })

/**
 * Waits `wait` ms for the call; then, its holds left out, the call's own
 * time may still fall short of the budget: it is given what is left.
 */
const awaitWithin = <A, E>(
  fiber: Fiber.Fiber<A, E>,
  budget: number,
  started: number,
  held: Held | undefined,
  wait: number
): Effect.Effect<Exit.Exit<A, E> | undefined> =>
  Effect.timeoutOrElse(Fiber.await(fiber), {
    duration: Duration.millis(wait),
    orElse: () => (held === undefined ? expire(fiber) : awaitRest(fiber, budget, started, held))
  })

/** During a hold the call's own time stands still: its rest is reckoned once the hold ends. */
const awaitRest = <A, E>(
  fiber: Fiber.Fiber<A, E>,
  budget: number,
  started: number,
  held: Held
): Effect.Effect<Exit.Exit<A, E> | undefined> =>
  Effect.suspend(() => {
    const holdEnd = held.holdEnd()
    if (holdEnd !== undefined) return Effect.andThen(holdEnd, awaitRest(fiber, budget, started, held))
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const left = held.left(budget, started, now)
      return left <= 0 ? expire(fiber) : awaitWithin(fiber, budget, started, held, left)
    })
  })

const expire = <A, E>(fiber: Fiber.Fiber<A, E>): Effect.Effect<Exit.Exit<A, E> | undefined> =>
  Effect.andThen(Fiber.interrupt(fiber), Fiber.await(fiber)).pipe(
    Effect.map((exit) => (Exit.isSuccess(exit) || Cause.hasFails(exit.cause) ? exit : undefined))
  )

/**
 * One tool call in its `execute_tool` span, which ends as an error when the
 * result is one. The toolbox's contract says `invoke` never fails; a
 * toolbox that fails, dies or throws still gives an error result, so a
 * broken toolbox never ends the session.
 */
const toolCall = (
  toolbox: Toolbox.Service,
  call: Content.ToolUseBlock,
  info: ToolInfo
): Effect.Effect<Content.ToolResultBlock> =>
  Telemetry.withSpan(Telemetry.toolCallName(call), Telemetry.toolCall(call, info), (span) =>
    Effect.matchCauseEffect(
      Effect.suspend(() => toolbox.invoke(call)),
      {
        onSuccess: (result) => {
          // A result is filed under its call's id, whatever id the toolbox gave it.
          const answered = result.tool_use_id === call.id ? result : { ...result, tool_use_id: call.id }
          if (!answered.is_error) return Effect.succeed(answered)
          const error = new Telemetry.ToolErrorResult({ message: answered.content, result: answered })
          Telemetry.annotate(span, Telemetry.toolCallEnded(Cause.fail(error)))
          return Effect.fail(error)
        },
        onFailure: (cause) => {
          Telemetry.annotate(span, Telemetry.toolCallEnded(cause))
          return Effect.failCause(cause)
        }
      }
    )
  ).pipe(
    Effect.catchCause((cause) => {
      const failure = Cause.findErrorOption(cause)
      if (failure._tag === "Some") return Effect.succeed(failure.value.result)
      if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
      return Effect.succeed(
        Content.toolResult(call.id, `Tool "${call.name}" failed unexpectedly: ${Cause.pretty(cause)}`, true)
      )
    })
  )
