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
 * has a run in progress), `503 unavailable` (the store or the log failed).
 *
 * The run belongs to the service, not to the request: a client that drops
 * the connection stops reading, and the run goes on; its events stay in the
 * log.
 *
 * @since 0.1.0
 */
import { DurableSessions } from "@agent-kernel/durable"
import type { RunOutcome } from "@agent-kernel/kernel"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
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

/** A run's exit as an error body, if it failed (an interruption is the service stopping). */
const failureOf = (exit: Exit.Exit<RunOutcome.RunOutcome, RunError>): Option.Option<ErrorBody> =>
  Exit.isSuccess(exit)
    ? Option.none()
    : Option.some(
        Option.match(Cause.findErrorOption(exit.cause), {
          onNone: () => ({ error: "unavailable", message: "the service is stopping" }) as const,
          onSome: errorOf
        })
      )

/**
 * The API's routes, over the durable sessions and the event log in context,
 * for `HttpRouter.addAll`. Runs are forked into the scope: closing it
 * interrupts the runs still going.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<
  ReadonlyArray<HttpRouter.Route>,
  never,
  DurableSessions.DurableSessions | SessionEvents.SessionEvents | Scope.Scope
> = Effect.gen(function* () {
  const sessions = yield* DurableSessions.DurableSessions
  const log = yield* SessionEvents.SessionEvents
  const runs = yield* FiberSet.make<RunOutcome.RunOutcome, RunError>()
  const prompt = Effect.gen(function* () {
    const { id } = yield* HttpRouter.schemaPathParams(PathParams)
    const { prompt } = yield* HttpServerRequest.schemaBodyJson(PromptRequest)
    const after = yield* log.head(id)
    const run = yield* FiberSet.run(runs, sessions.run(id, prompt))
    const events = log.follow(id, after)
    // Before the response starts: a run that cannot start (one is pending) is a 409, not a stream.
    const early = yield* Effect.raceFirst(
      Effect.map(Fiber.await(run), failureOf),
      Effect.as(Stream.runHead(events), Option.none<ErrorBody>())
    )
    if (Option.isSome(early)) return respondError(early.value)
    const lines = events.pipe(
      // The run's failure (its store) ends the stream; its success leaves the events to end it.
      Stream.merge(Stream.drain(Stream.fromEffect(Fiber.join(run))), { haltStrategy: "left" }),
      Stream.map((event) => `${encodeLine(event)}\n`),
      Stream.catch((error: Failure) => Stream.make(`${encodeLine({ error: errorOf(error) })}\n`)),
      Stream.encodeText
    )
    return HttpServerResponse.stream(lines, { contentType: "application/x-ndjson" })
  }).pipe(
    Effect.catchTags({
      SchemaError: (error) => Effect.succeed(invalid(error.message)),
      HttpServerError: (error) => Effect.succeed(invalid(`cannot read the body: ${error.message}`)),
      EventLogError: (error) => Effect.succeed(respondError(errorOf(error)))
    })
  )
  return [HttpRouter.route("POST", "/sessions/:id/prompt", prompt)]
})
