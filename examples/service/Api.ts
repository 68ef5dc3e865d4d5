/**
 * The service's HTTP API.
 *
 * `POST /sessions/:id/prompt` with `{"prompt": "..."}` runs the prompt as the
 * session's next durable run, on whichever runner holds the session's shard,
 * and answers `200` with `application/x-ndjson`: one line per kernel event of
 * the run, `{"seq":N,"runner":"host:port","event":{...}}`, from `run_started`
 * to `run_ended` (whose `final_text` is the answer), then the response ends.
 * An error after the stream started is its last line, `{"error":{...}}`.
 *
 * Errors before the stream starts are JSON `{"error": code, "message": ...}`:
 * `400 invalid_request` (a session id outside `[A-Za-z0-9._~-]{1,128}`, a body
 * that is not JSON, or no non-empty `prompt`), `409 run_pending` (the session
 * has a run in progress), `503 unavailable` (the store or the log failed, or
 * the runner is stopping: send the prompt to another runner).
 *
 * The run belongs to the service, not to the request: a client that drops
 * the connection stops reading, and the run goes on; its events stay in the
 * log.
 *
 * @since 0.1.0
 */
import { Runner } from "@agent-kernel/cluster"
import { DurableSessions } from "@agent-kernel/durable"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as FiberSet from "effect/FiberSet"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as SessionEvents from "./SessionEvents.js"

/**
 * A session id in a path: letters, digits and `._~-`, 1 to 128 of them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9._~-]{1,128}$/))

/**
 * The body of a prompt.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptRequest = Schema.Struct({
  prompt: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100_000))
})

/**
 * The codes of the error responses.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorCode = Schema.Literals(["invalid_request", "run_pending", "unavailable"])

/**
 * An error response's body, and the last line of a stream that failed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorBody = Schema.Struct({ error: ErrorCode, message: Schema.String })

/**
 * @since 0.1.0
 * @category models
 */
export interface ErrorBody extends Schema.Schema.Type<typeof ErrorBody> {}

/**
 * A line of a prompt's response: an event, or the error that ended the stream.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Line = Schema.Union([SessionEvents.LoggedEvent, Schema.Struct({ error: ErrorBody })])

const PathParams = Schema.Struct({ id: SessionId })
const encodeLine = Schema.encodeSync(Schema.fromJsonString(Line))

/** What a run can fail with: a run in progress, or the store (its tables or its journal) failing. */
type RunError = DurableSessions.RunPending | { readonly _tag: "StoreError" | "JournalError"; readonly message: string }
type Failure = RunError | SessionEvents.EventLogError

const errorOf = (error: Failure): ErrorBody =>
  error._tag === "RunPending"
    ? // The cluster finishes a run whose runner died by itself: the client only waits.
      {
        error: "run_pending",
        message: `the session "${error.session_id}" has a run in progress (run ${error.run}): send the prompt when it has ended`
      }
    : { error: "unavailable", message: error.message }

const statusOf = (body: ErrorBody): number =>
  body.error === "invalid_request" ? 400 : body.error === "run_pending" ? 409 : 503

const respondError = (body: ErrorBody) => HttpServerResponse.jsonUnsafe(body, { status: statusOf(body) })

const invalid = (message: string) => respondError({ error: "invalid_request", message })

/**
 * A run's exit as an error body, if it failed before its first event. An
 * interrupted caller is none: it was waiting on a run it had begun, which
 * this runner's hand-over leaves to another runner (the log shows it).
 */
const failureOf = (exit: Exit.Exit<unknown, RunError>): Option.Option<ErrorBody> =>
  Exit.isSuccess(exit) ? Option.none() : Option.map(Cause.findErrorOption(exit.cause), errorOf)

const stopping: ErrorBody = {
  error: "unavailable",
  message: "the runner is stopping: send the prompt to another runner"
}

/**
 * The end of a run's caller as the end of its answer: a failure ends it
 * with an error line; a success or an interruption leaves it to the log (an
 * interrupted caller is this runner handing its shards over: the run goes on
 * on another runner, and its events reach the log).
 */
const callerEnd = (run: Fiber.Fiber<unknown, RunError>): Effect.Effect<void, RunError> =>
  Effect.flatMap(Fiber.await(run), (exit) =>
    Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? Effect.never : Effect.asVoid(exit)
  )

/**
 * The position just before the `run_started` of the next run the log holds
 * after `after`: the events before it are the tail of a run that was pending
 * (resumed on some runner), which the prompt's answer must not hold.
 */
const nextRunStart = (
  log: SessionEvents.Service,
  id: string,
  after: number
): Effect.Effect<number, SessionEvents.EventLogError> =>
  log.follow(id, after).pipe(
    Stream.takeUntil((logged) => logged.event.type === "run_started"),
    Stream.runLast,
    Effect.flatMap((last) =>
      Option.isNone(last)
        ? nextRunStart(log, id, after)
        : last.value.event.type === "run_started"
          ? Effect.succeed(last.value.seq - 1)
          : nextRunStart(log, id, last.value.seq)
    )
  )

/** How a run left unfinished by a failing store is asked again: every 0.5 s at first, then every 5 s. */
const resumeSchedule = Schedule.min([Schedule.exponential("500 millis"), Schedule.spaced("5 seconds")])

/**
 * How many prompts a runner has taken whose answer has not ended: its stop
 * lets them end (their runs go on on another runner) before it exits.
 *
 * @since 0.2.0
 * @category models
 */
export class Answers extends Context.Service<Answers, SubscriptionRef.SubscriptionRef<number>>()(
  "@agent-kernel/examples/service/Answers"
) {}

/**
 * @since 0.2.0
 * @category layers
 */
export const layerAnswers: Layer.Layer<Answers> = Layer.effect(Answers, SubscriptionRef.make(0))

/**
 * Waits until every answer has ended.
 *
 * @since 0.2.0
 * @category stopping
 */
export const answered: Effect.Effect<void, never, Answers> = Effect.gen(function* () {
  const open = yield* Answers
  yield* SubscriptionRef.changes(open).pipe(
    Stream.takeUntil((count) => count === 0),
    Stream.runDrain
  )
})

/**
 * The API's routes, over the durable sessions, the event log and the runner
 * in context, for `HttpRouter.addAll`. Runs are forked into the scope:
 * closing it interrupts the callers still waiting (a caller interrupted
 * before its runner drained stops its run: see `Runner.drain`). A run that
 * the store's failure left unfinished (a database outage) is asked again
 * until it ends; a prompt refused because its session has a run pending
 * asks that run again too, in case nothing else would.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<
  ReadonlyArray<HttpRouter.Route>,
  never,
  DurableSessions.DurableSessions | SessionEvents.SessionEvents | Runner.Runner | Answers | Scope.Scope
> = Effect.gen(function* () {
  const sessions = yield* DurableSessions.DurableSessions
  const log = yield* SessionEvents.SessionEvents
  const runner = yield* Runner.Runner
  const open = yield* Answers
  const runs = yield* FiberSet.make<unknown, RunError>()
  // One waiter a session for a run pending when a prompt came: it wakes the run if the store's failure suspended it.
  const wakes = yield* FiberMap.make<string>()
  // A resume without reset_budget never fails NotPaused.
  const resumed = (id: string) =>
    Effect.retry(sessions.resume(id).pipe(Effect.catchTag("NotPaused", Effect.die)), resumeSchedule)
  // The run, and its resumption while the store fails under it.
  const runToEnd = (id: string, prompt: string) =>
    sessions.run(id, prompt).pipe(Effect.catchTag("JournalError", () => resumed(id)))
  const closeOne = SubscriptionRef.update(open, (n) => n - 1)
  // The answer to a prompt: a 409 when a run is pending, else the stream of its events from the log, closed with
  // `closeOne` when it ends; whether it streams.
  const answer = (id: string, prompt: string) =>
    Effect.gen(function* () {
      const after = yield* log.head(id)
      const run = yield* FiberSet.run(runs, runToEnd(id, prompt))
      // Only this prompt's run: it starts at the next run_started, once a pending run (if any) has ended.
      const events = Stream.unwrap(Effect.map(nextRunStart(log, id, after), (start) => log.follow(id, start)))
      // Before the response starts: a run that cannot start (one is pending) is a 409, not a stream.
      const early = yield* Effect.raceFirst(
        Effect.map(Fiber.await(run), failureOf),
        Effect.as(Stream.runHead(events), Option.none<ErrorBody>())
      )
      if (Option.isSome(early)) {
        if (early.value.error === "run_pending") yield* FiberMap.run(wakes, id, resumed(id), { onlyIfMissing: true })
        return [respondError(early.value), false] as const
      }
      const lines = events.pipe(
        // The run's failure (its store) ends the stream; its end, or this runner's hand-over, leave it to the log.
        Stream.merge(Stream.drain(Stream.fromEffect(callerEnd(run))), { haltStrategy: "left" }),
        Stream.map((event) => `${encodeLine(event)}\n`),
        Stream.catch((error: Failure) => Stream.make(`${encodeLine({ error: errorOf(error) })}\n`)),
        Stream.encodeText,
        Stream.ensuring(closeOne)
      )
      return [HttpServerResponse.stream(lines, { contentType: "application/x-ndjson" }), true] as const
    })
  const prompt = Effect.gen(function* () {
    const { id } = yield* HttpRouter.schemaPathParams(PathParams)
    const { prompt } = yield* HttpServerRequest.schemaBodyJson(PromptRequest)
    if (yield* runner.draining) return respondError(stopping)
    // From here the prompt may be taken: it is an open answer, which a stop waits for, until its response ends.
    yield* SubscriptionRef.update(open, (n) => n + 1)
    const [response] = yield* Effect.onExit(answer(id, prompt), (exit) =>
      Exit.isSuccess(exit) && exit.value[1] ? Effect.void : closeOne
    )
    return response
  }).pipe(
    Effect.catchTags({
      SchemaError: (error) => Effect.succeed(invalid(error.message)),
      HttpServerError: (error) => Effect.succeed(invalid(`cannot read the body: ${error.message}`)),
      EventLogError: (error) => Effect.succeed(respondError(errorOf(error)))
    })
  )
  return [HttpRouter.route("POST", "/sessions/:id/prompt", prompt)]
})
