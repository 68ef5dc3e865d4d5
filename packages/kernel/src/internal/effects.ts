import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as ResponsePart from "../ResponsePart.js"
import type * as Toolbox from "../Toolbox.js"
import * as Telemetry from "./telemetry.js"

/**
 * The three kinds of effect the turn loop performs, and the only way it
 * performs them: a model call, a tool call, and a retry's sleep. Everything
 * else the loop does is pure (its decisions) or bookkeeping (its state and
 * events). A durable runtime journals a session by wrapping this record: a
 * model call's result is the whole response (or error); the parts it streams
 * on the way are observation only (`AttemptInfo.observe`), so a replay that
 * returns the journaled response without streaming is the same run.
 *
 * @internal
 */
export interface Effects {
  /**
   * One attempt of a model call. Never fails: a provider error is a `Left`,
   * a provider defect a `Left` `Unknown` (a bug, never retried), and an
   * attempt that outlives the attempt timeout a `Left` `Timeout` (transient).
   */
  readonly model: (
    request: ModelProvider.ModelRequest,
    attempt: AttemptInfo
  ) => Effect.Effect<Either.Either<ModelProvider.ModelResponse, ModelError.ModelError>>
  /** One tool call. Never fails: a toolbox that fails or dies gives an error result. */
  readonly tool: (call: Content.ToolUseBlock, info: ToolInfo) => Effect.Effect<Content.ToolResultBlock>
  /** The wait before a retry, on the Clock. */
  readonly sleep: (delay: Duration.Duration) => Effect.Effect<void>
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
   * its effect holds up the stream. Absent when nobody listens, so that a
   * call builds nothing for observers.
   */
  readonly observe?:
    | ((part: ResponsePart.ResponsePart, accumulated: ResponsePart.Accumulator) => Effect.Effect<void>)
    | undefined
  /**
   * Called with a one-shot provider's response when its call returns, in
   * place of `observe` for its parts: they all arrived at once, so its effect
   * shows them in one go (no part or accumulator is made for them). That
   * effect is part of the attempt, as a stream's observations are: it runs
   * before the attempt returns the response, outside the attempt's timeout
   * (the call is over) but within whatever bounds the attempt. Absent when
   * nobody listens.
   */
  readonly observeResponse?: ((response: ModelProvider.ModelResponse) => Effect.Effect<void>) | undefined
}

/** @internal */
export interface ToolInfo {
  readonly turn: number
  /**
   * The call's place among the calls of its turn that are run, from 0, in
   * the order the model gave them (a call whose input is not valid JSON is
   * never run and takes no place). It does not depend on the order the
   * calls start in, which concurrent calls do in any order.
   */
  readonly index: number
  readonly parent: Tracer.AnySpan | undefined
}

/** @internal */
export const describeDefect = (defect: unknown): string =>
  defect instanceof Error ? defect.message || defect.name : typeof defect === "string" ? defect : String(defect)

/**
 * Spans of the loop, made straight from the tracer in context.
 *
 * `Effect.withSpan` sets the span as the parent of everything inside it by
 * changing the fiber's context for the duration, which costs more than the
 * whole rest of a step. The loop's spans are made here instead, with an
 * explicit parent, and a call's span reaches the provider or toolbox through
 * the context of the fiber that runs the call (see `runIn`). The run reads
 * the tracer, its switches and the ambient annotations once; they do not
 * change inside a run.
 *
 * @internal
 */
export interface Spans {
  /** False when no tracer is on: a call site then builds no span's name or attributes. */
  readonly enabled: boolean
  /** A span with the ambient annotations; its own attributes are written by `Telemetry`, which starts each span. */
  readonly start: (name: string, kind: Tracer.SpanKind, parent: Tracer.AnySpan | undefined) => Tracer.Span | undefined
  /** Ends the span, with the attributes learnt from how it ended. */
  readonly end: (
    span: Tracer.Span | undefined,
    exit: Exit.Exit<unknown, unknown>,
    attributes?: Record<string, unknown>
  ) => void
  readonly event: (span: Tracer.Span | undefined, name: string, attributes: Record<string, unknown>) => void
}

const noAnnotations: ReadonlyArray<readonly [string, unknown]> = []

const disabledSpans: Spans = { enabled: false, start: () => undefined, end: () => {}, event: () => {} }

/**
 * The run's spans, from the tracer, switches and annotations of the fiber
 * that runs it. A function of the fiber, not an effect: the run reads it with
 * everything else it reads from its fiber, in one step.
 *
 * @internal
 */
export const spansOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Spans => {
  if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) return disabledSpans
  const tracer = fiber.currentTracer
  const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
  const timing = fiber.getFiberRef(FiberRef.currentTracerTimingEnabled)
  // Read once a run as an array: walking the HashMap a span cost a callback and an iterator each. Most
  // runs have none, and an empty map's iterator is made for nothing.
  const annotated = fiber.getFiberRef(FiberRef.currentTracerSpanAnnotations)
  const annotations = HashMap.size(annotated) === 0 ? noAnnotations : Array.from(annotated)
  const links = Chunk.toReadonlyArray(fiber.getFiberRef(FiberRef.currentTracerSpanLinks))
  const now = () => (timing ? clock.unsafeCurrentTimeNanos() : BigInt(0))
  const options: Tracer.SpanOptions = { captureStackTrace: false }
  // The spans of a turn share its span as their parent: they share one Option of it too.
  let parentOf: Tracer.AnySpan | undefined
  let parentOption: Option.Option<Tracer.AnySpan> = Option.none()
  const optionOf = (parent: Tracer.AnySpan | undefined): Option.Option<Tracer.AnySpan> => {
    if (parent === undefined || isDisabled(parent)) return Option.none()
    if (parent !== parentOf) {
      parentOf = parent
      parentOption = Option.some(parent)
    }
    return parentOption
  }
  return {
    enabled: true,
    start: (name, kind, parent) => {
      const span = tracer.span(name, optionOf(parent), Context.empty(), links, now(), kind, options)
      for (let i = 0; i < annotations.length; i++) span.attribute(annotations[i]![0], annotations[i]![1])
      return span
    },
    end: (span, exit, attributes) => {
      if (span === undefined || span.status._tag !== "Started") return
      if (attributes !== undefined) for (const key in attributes) span.attribute(key, attributes[key])
      span.end(now(), exit)
    },
    event: (span, name, attributes) => {
      if (span !== undefined && span.status._tag === "Started") span.event(name, now(), attributes)
    }
  }
}

const isDisabled = (span: Tracer.AnySpan): boolean => Context.get(span.context, Tracer.DisablePropagation)

/**
 * Calls `f` with `input`, turning a synchronous throw into a defect of the
 * effect it should have returned. The input is passed rather than closed
 * over, so that a function made once (a toolbox's `invoke`, a provider's
 * `generate`) needs no closure a call.
 */
const attempt = <I, A, E>(f: (input: I) => Effect.Effect<A, E>, input: I): Effect.Effect<A, E> => {
  try {
    return f(input)
  } catch (defect) {
    return Effect.die(defect)
  }
}

/**
 * Starts `effect` on a fiber of its own, at once, on the current call stack,
 * with `span` as the parent of the spans it makes. When it completes without
 * suspending (an in-memory model, a tool that answers at once), its exit is
 * ready when this returns, no timer is armed and nothing else is allocated;
 * only a call that suspends needs `wait`. A timeout in Effect races two
 * fibers; arming it only for the calls that need it keeps a step cheap.
 */
type Start = <A, E>(span: Tracer.Span | undefined, effect: Effect.Effect<A, E>) => Fiber.RuntimeFiber<A, E>

/**
 * How a run's calls start: on the run's runtime, from what is made once a
 * run rather than once a call.
 */
const starter = (runtime: Runtime.Runtime<never>): Start => {
  const { runtimeFlags } = runtime
  // `Runtime.runFork` puts the runtime's context over the one the refs hold; left in them, that one
  // would be forked (its patch walked) and stacked under the call's, for nothing.
  const fiberRefs = FiberRefs.delete(runtime.fiberRefs, FiberRef.currentContext)
  const untraced = Runtime.make({ context: runtime.context, fiberRefs, runtimeFlags })
  // The run's services as entries: a Map copied from an array reuses them, one copied from a Map
  // (`Context.add`) makes an entry and an iterator result per service.
  const services = Array.from(runtime.context.unsafeMap)
  return (span, effect) =>
    Runtime.runFork(
      span === undefined
        ? untraced
        : Runtime.make({
            context: Context.unsafeMake(new Map(services).set(Tracer.ParentSpan.key, span)),
            fiberRefs,
            runtimeFlags
          }),
      effect,
      immediately
    )
}

const immediately: Runtime.RunForkOptions = { immediate: true }

/** A call's timeout: how long, what the call's exit is when it fires, and what it leaves out. */
interface Timeout<A, E> {
  readonly after: Duration.Duration
  readonly exit: () => Exit.Exit<A, E>
  /** Time the call was held up by its observers, which the timeout does not count. */
  readonly held?: Held | undefined
}

/**
 * Waits for a call that suspended, at most `timeout.after` when a timeout is
 * given (its exit is then `timeout.exit()`); the call never outlives the wait
 * (a timeout, or the run's interruption, ends it and waits for its
 * finalizers). `ended` sees the call's own exit, however the wait ends. One
 * timer (see `arm`) bounds the call, where `Effect.timeout` would race two
 * fibers.
 */
const settle = <A, E>(
  runtime: Runtime.Runtime<never>,
  clock: Clock.Clock,
  call: Fiber.RuntimeFiber<A, E>,
  ended: (exit: Exit.Exit<A, E>) => void,
  timeout?: Timeout<A, E>
): Effect.Effect<Exit.Exit<A, E>> => {
  const wait = new Wait(call)
  // The wait is resumed only by the call's exit, so it fails only when the run is interrupted: the
  // call is then interrupted and waited for. `Effect.async` with a canceler does the same through
  // `onInterrupt`, whose wrapping cost a wait about 0.7 KB more, held for as long as the call runs.
  return Effect.uninterruptibleMask((restore) =>
    Effect.catchAllCause(
      restore(
        Effect.async<Exit.Exit<A, E>>((resume) => {
          if (timeout !== undefined) wait.timer = arm(runtime, clock, timeout, wait)
          call.addObserver((exit) => {
            wait.timer?.cancel()
            ended(exit)
            // A call that ended on its own though its timeout fired first (it could not be interrupted in
            // time) keeps its own exit: a success is done work a retry would redo, and a typed failure (a
            // 401) is the provider's answer, which a Timeout would turn into a transient error retried.
            resume(
              Effect.succeed(
                wait.expired &&
                  timeout !== undefined &&
                  Exit.isFailure(exit) &&
                  Option.isNone(Cause.failureOption(exit.cause))
                  ? timeout.exit()
                  : exit
              )
            )
          })
        })
      ),
      (cause) =>
        Effect.matchCauseEffect(
          Effect.flatMap(Fiber.interrupt(call), () => wait.timer?.stopped ?? Effect.void),
          {
            onFailure: (stopping) => Effect.failCause(Cause.sequential(cause, stopping)),
            onSuccess: () => Effect.failCause(cause)
          }
        )
    )
  )
}

/**
 * A wait for a call, as its timer sees it: one object, where a closure for
 * the timer to call and the state it shares with the call's observer each
 * cost a wait an allocation held for as long as the call runs.
 */
class Wait<A, E> implements Expiring {
  /** Whether the timer fired while the call still ran. */
  expired = false
  timer: Timer | undefined = undefined
  readonly call: Fiber.RuntimeFiber<A, E>
  constructor(call: Fiber.RuntimeFiber<A, E>) {
    this.call = call
  }
  expire(): void {
    if (this.call.unsafePoll() === null) {
      this.expired = true
      this.call.unsafeInterruptAsFork(FiberId.none)
    }
  }
}

/** What a timer calls when it fires. */
interface Expiring {
  readonly expire: () => void
}

/** An armed timer: `cancel` stops it; `stopped` does and waits until it has. */
interface Timer {
  readonly cancel: () => void
  readonly stopped: Effect.Effect<void>
}

/**
 * Effect's live clock, the one a program has when it installs none. Its
 * `sleep` is a `setTimeout`; see `arm`.
 */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/** The longest delay `setTimeout` takes; the live clock never ends a longer sleep. */
const maxTimerMillis = 2 ** 31 - 1

/** A timer that never fires: the live clock ends no sleep longer than `maxTimerMillis`. */
const neverFires: Timer = { cancel: () => {}, stopped: Effect.void }

/**
 * Calls `target.expire()` once `timeout` has passed on the clock. On any
 * clock but the live one (a `TestClock`), a fiber sleeps on it. On the live
 * clock, a `setTimeout` does what that fiber's sleep would do, without the
 * fiber: a thousand sessions waiting on their models each held one, and
 * forking and then interrupting it cost a third of their CPU.
 */
const arm = <A, E>(
  runtime: Runtime.Runtime<never>,
  clock: Clock.Clock,
  timeout: Timeout<A, E>,
  target: Expiring
): Timer => {
  const { after, held } = timeout
  if (clock !== liveClock) {
    const fiber = Runtime.runFork(runtime, held === undefined ? Effect.sleep(after) : sleepUnheld(after, held), {
      immediate: true
    })
    fiber.addObserver((exit) => {
      if (Exit.isSuccess(exit)) target.expire()
    })
    return { cancel: () => fiber.unsafeInterruptAsFork(FiberId.none), stopped: Fiber.interrupt(fiber) }
  }
  const budget = Duration.toMillis(after)
  return budget > maxTimerMillis ? neverFires : new LiveTimer(budget, clock, held, target)
}

/**
 * A `setTimeout` on the live clock, as one object that the timer is given
 * back when it fires (no closure a call). With a `held` record, a timer that
 * fires before the call has run its budget without being held up waits for
 * the rest (see `unheldWait`).
 */
class LiveTimer implements Timer {
  private handle: ReturnType<typeof setTimeout>
  private readonly budget: number
  private readonly start: number
  private readonly clock: Clock.Clock
  private readonly held: Held | undefined
  private readonly target: Expiring
  constructor(budget: number, clock: Clock.Clock, held: Held | undefined, target: Expiring) {
    this.budget = budget
    this.clock = clock
    this.held = held
    this.target = target
    this.start = clock.unsafeCurrentTimeMillis()
    this.handle = setTimeout(fireLive, budget, this)
  }
  fire(): void {
    const wait =
      this.held === undefined
        ? undefined
        : unheldWait(this.budget, this.start, this.clock.unsafeCurrentTimeMillis(), this.held)
    if (wait === undefined) this.target.expire()
    else this.handle = setTimeout(fireLive, wait, this)
  }
  cancel(): void {
    clearTimeout(this.handle)
  }
  /** Made when a wait is interrupted, the only time it is asked for. */
  get stopped(): Effect.Effect<void> {
    return Effect.sync(() => this.cancel())
  }
}

const fireLive = (timer: LiveTimer): void => timer.fire()

/**
 * How long a call has been held up by its observers so far: a delta waits
 * for a slow subscriber in line (back-pressure), and that wait is the
 * reader's, not the model's, so the attempt's timeout leaves it out.
 */
interface Held {
  millis: number
  /** When the hold in progress began, if one is. */
  since: number | undefined
}

/** The shortest sleep while a hold is in progress: the timer checks again after it. */
const heldRecheckMillis = 10

/**
 * How much longer a timer of `budget` ms started at `start` must wait, now,
 * for the call to have run that long without being held up; `undefined` when
 * it has (and no hold is in progress). During a hold it checks again after
 * `heldRecheckMillis`.
 */
const unheldWait = (budget: number, start: number, now: number, held: Held): number | undefined => {
  const holding = held.since === undefined ? 0 : now - held.since
  const left = budget - (now - start - held.millis - holding)
  if (left <= 0 && held.since === undefined) return undefined
  return Math.max(left, heldRecheckMillis)
}

/**
 * Sleeps until the call has run `after` without being held up: the held time
 * is added back as it becomes known, and a timer that ends during a hold
 * checks again.
 */
const sleepUnheld = (after: Duration.Duration, held: Held): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    const budget = Duration.toMillis(after)
    const start = clock.unsafeCurrentTimeMillis()
    const wait: Effect.Effect<void> = Effect.suspend(() => {
      const left = unheldWait(budget, start, clock.unsafeCurrentTimeMillis(), held)
      return left === undefined ? Effect.void : Effect.zipRight(Effect.sleep(Duration.millis(left)), wait)
    })
    return wait
  })

/** Runs an observation, adding the time it takes to `held`. */
const holding = (held: Held, observation: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    held.since = clock.unsafeCurrentTimeMillis()
    return Effect.ensuring(
      observation,
      Effect.sync(() => {
        held.millis += clock.unsafeCurrentTimeMillis() - (held.since ?? 0)
        held.since = undefined
      })
    )
  })

type ModelExit = Exit.Exit<ModelProvider.ModelResponse, ModelError.ModelError>

/** @internal */
export interface Options {
  readonly provider: ModelProvider.Service
  readonly toolbox: Toolbox.Service
  readonly attemptTimeout: Duration.Duration
  readonly runtime: Runtime.Runtime<never>
  readonly spans: Spans
}

/**
 * The live effects of a run: the provider and the toolbox of the session,
 * on the run's runtime (its Clock, tracer and services).
 *
 * @internal
 */
export const make = (options: Options): Effects => {
  const { provider, toolbox, runtime, spans, attemptTimeout } = options
  const start = starter(runtime)
  // The clock the run's timers go by: the runtime's, which is the run's.
  const clock = Context.get(FiberRefs.getOrDefault(runtime.fiberRefs, DefaultServices.currentServices), Clock.Clock)
  const timedOut = (model: string) =>
    Exit.fail(
      new ModelError.Timeout({
        provider: provider.name,
        model,
        message: `the attempt took longer than model_attempt_timeout_ms (${Duration.toMillis(attemptTimeout)} ms)`
      })
    )
  // Made once a run: a call that completes at once makes no closure to end its span or read its exit.
  const modelEnded = (span: Tracer.Span | undefined, exit: ModelExit): void => {
    if (span !== undefined) spans.end(span, exit, Telemetry.modelCallEnded(exit))
  }
  const modelResulted = (exit: ModelExit, request: ModelProvider.ModelRequest, info: AttemptInfo) => {
    const result = modelResult(exit, provider.name, request.model)
    // A one-shot provider's parts all arrive when its call returns, which is when they are observed.
    const observe = provider.generate === undefined ? undefined : info.observeResponse
    if (observe === undefined || Exit.isFailure(exit)) return result
    const observed = observe(exit.value)
    // Not `Effect.zipRight`: its signature is told apart by a predicate on `arguments`, a copy a call.
    return observed === Effect.void ? result : Effect.flatMap(observed, () => result)
  }
  const invoke = (call: Content.ToolUseBlock) => toolbox.invoke(call)
  const toolEnded = (span: Tracer.Span | undefined, exit: Exit.Exit<Content.ToolResultBlock>): void => {
    if (span !== undefined) spans.end(span, Telemetry.toolCallExit(exit), Telemetry.toolCallEnded(exit))
  }
  return {
    model: (request, info) =>
      Effect.suspend(() => {
        const span = spans.enabled ? Telemetry.modelCall(spans, info.parent, provider.name, request, info) : undefined
        const held: Held | undefined =
          info.observe === undefined || provider.generate !== undefined ? undefined : { millis: 0, since: undefined }
        const fiber = start(span, call(provider, request, info.observe, held))
        const exit = fiber.unsafePoll()
        if (exit !== null) {
          modelEnded(span, exit)
          return modelResulted(exit, request, info)
        }
        return Effect.flatMap(
          settle(runtime, clock, fiber, (exit) => modelEnded(span, exit), {
            after: attemptTimeout,
            exit: () => timedOut(request.model),
            held
          }),
          (exit) => modelResulted(exit, request, info)
        )
      }),
    tool: (call, info) =>
      Effect.suspend(() => {
        const invoked = attempt(invoke, call)
        // A tool call has no timeout, so without a span to be the parent of the toolbox's spans it
        // needs no fiber of its own: it runs on the run's, for a third of the allocation.
        if (!spans.enabled)
          return Effect.matchCauseEffect(invoked, {
            onSuccess: (result) => Effect.succeed(answering(result, call)),
            onFailure: (cause) => toolFailed(cause, call)
          })
        const span = Telemetry.toolCall(spans, info.parent, call, info.turn)
        const fiber = start(span, invoked)
        const exit = fiber.unsafePoll()
        if (exit !== null) {
          toolEnded(span, exit)
          return toolResult(exit, call)
        }
        return Effect.flatMap(
          settle<Content.ToolResultBlock, never>(runtime, clock, fiber, (exit) => toolEnded(span, exit)),
          (exit) => toolResult(exit, call)
        )
      }),
    sleep: Effect.sleep
  }
}

/**
 * One attempt as an effect. A provider with a one-shot call is called
 * directly (no stream machinery per step); any other provider's stream is
 * folded through the accumulator, each part observed as it arrives.
 */
const call = (
  provider: ModelProvider.Service,
  request: ModelProvider.ModelRequest,
  observe: AttemptInfo["observe"],
  held: Held | undefined
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> => {
  if (observe === undefined) return attempt((request) => ModelProvider.generate(provider, request), request)
  const generate = provider.generate
  // Its parts are observed once the call has returned, outside the attempt's timeout (see `model`).
  if (generate !== undefined) return attempt(generate, request)
  // The response so far, for a stream that fails: a content filter's error keeps its text.
  let reached = ResponsePart.empty
  const folded = Stream.runFoldEffect(
    Stream.suspend(() => provider.stream(request)),
    ResponsePart.empty,
    (state, part) => {
      reached = ResponsePart.add(state, part)
      const observed = observe(part, reached)
      if (observed === Effect.void) return Effect.succeed(reached)
      return Effect.as(held === undefined ? observed : holding(held, observed), reached)
    }
  ).pipe(Effect.mapError((error) => ModelProvider.keepPartialText(error, reached)))
  return Effect.flatMap(folded, (state) =>
    ResponsePart.isFinished(state)
      ? Effect.succeed(ResponsePart.toResponse(state, request.model))
      : Effect.fail(ModelProvider.unfinished(provider.name, request.model, ResponsePart.usage(state)))
  )
}

const modelResult = (
  exit: ModelExit,
  provider: string,
  model: string
): Effect.Effect<Either.Either<ModelProvider.ModelResponse, ModelError.ModelError>> => {
  if (Exit.isSuccess(exit)) return Effect.succeed(Either.right(exit.value))
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) return Effect.succeed(Either.left(failure.value))
  // The call was interrupted from outside the loop: so is the run.
  if (Cause.isInterruptedOnly(exit.cause)) return Effect.interrupt
  // A provider that throws or dies is a bug, not a transport error: typed, never retried.
  return Effect.succeed(
    Either.left(
      new ModelError.Unknown({
        provider,
        model,
        message: `the provider failed unexpectedly: ${describeDefect(Cause.squash(exit.cause))}`
      })
    )
  )
}

const toolResult = (
  exit: Exit.Exit<Content.ToolResultBlock>,
  call: Content.ToolUseBlock
): Effect.Effect<Content.ToolResultBlock> => {
  if (Exit.isFailure(exit)) return toolFailed(exit.cause, call)
  const result = answering(exit.value, call)
  // An exit is an effect that ends as it did: a result already under its call's id is returned as is.
  return result === exit.value ? exit : Effect.succeed(result)
}

/** A tool's result, under its call's id. */
const answering = (result: Content.ToolResultBlock, call: Content.ToolUseBlock): Content.ToolResultBlock =>
  result.tool_use_id === call.id ? result : { ...result, tool_use_id: call.id }

/** A tool call that failed: an interruption goes on; anything else is an error result. */
const toolFailed = (cause: Cause.Cause<never>, call: Content.ToolUseBlock): Effect.Effect<Content.ToolResultBlock> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  // The toolbox contract says invoke never fails; a broken toolbox still must not end the session.
  return Effect.succeed(
    Content.toolResult(call.id, `Tool "${call.name}" failed unexpectedly: ${Cause.pretty(cause)}`, true)
  )
}
