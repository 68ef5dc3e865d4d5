import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ActionToken from "../ActionToken.js"
import * as InspectorStore from "../InspectorStore.js"
import * as Timeline from "../Timeline.js"
import * as Assets from "./assets.js"
import * as Pages from "./pages.js"

/** A request the inspector cannot read: a bad page number, an unknown status, ... @internal */
export class BadRequest extends Data.TaggedError("BadRequest")<{ readonly message: string }> {}

/** An action without the right token. @internal */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly message: string }> {}

/** A run number or event number the session does not have. @internal */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

type Failure =
  | InspectorStore.SessionNotFound
  | InspectorStore.StoreUnavailable
  | InspectorStore.ActionRefused
  | BadRequest
  | Unauthorized
  | NotFound

/** What the routes need. @internal */
export interface Config {
  readonly store: InspectorStore.Service
  readonly token: Redacted.Redacted<string>
  readonly base: string
  readonly pageSize: number
  /** Scrubs the secrets from a message: errors can quote what they failed on (a path, a URL). */
  readonly scrubText: (text: string) => string
}

const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...securityHeaders, "cache-control": "no-store" }
  })

const json = (value: unknown, status = 200) =>
  HttpServerResponse.text(JSON.stringify(value), {
    status,
    contentType: "application/json; charset=utf-8",
    headers: { "x-content-type-options": "nosniff", "cache-control": "no-store" }
  })

const statusOf = (failure: Failure): number => {
  switch (failure._tag) {
    case "BadRequest":
      return 400
    case "Unauthorized":
      return 401
    case "SessionNotFound":
    case "NotFound":
      return 404
    case "ActionRefused":
      return 409
    case "StoreUnavailable":
      return 503
  }
}

const titleOf = (failure: Failure): string => {
  switch (failure._tag) {
    case "BadRequest":
      return "This request cannot be read"
    case "Unauthorized":
      return "The action token is missing or wrong"
    case "SessionNotFound":
      return "No such session"
    case "NotFound":
      return "Not found"
    case "ActionRefused":
      return "The action does not apply"
    case "StoreUnavailable":
      return "The session store cannot be read"
  }
}

/** A failure as a person reads it. */
const messageOf = (failure: Failure): string =>
  failure._tag === "StoreUnavailable"
    ? `${failure.message}. The inspector keeps running: reload the page once the store is back.`
    : failure.message

const codeOf = (failure: Failure): string =>
  failure._tag === "StoreUnavailable"
    ? "store_unavailable"
    : failure._tag === "SessionNotFound" || failure._tag === "NotFound"
      ? "not_found"
      : failure._tag === "ActionRefused"
        ? "action_refused"
        : failure._tag === "Unauthorized"
          ? "unauthorized"
          : "bad_request"

const defectMessage = (cause: Cause.Cause<unknown>) =>
  `the inspector failed while answering: ${Cause.pretty(cause).split("\n")[0] ?? "unknown error"}`

/** A page handler: its failures and defects become a page that says what went wrong. */
const page = <R>(config: Config, handler: Effect.Effect<HttpServerResponse.HttpServerResponse, Failure, R>) =>
  handler.pipe(
    Effect.catch((failure: Failure) =>
      Effect.succeed(
        html(Pages.error(config.base, titleOf(failure), config.scrubText(messageOf(failure))), statusOf(failure))
      )
    ),
    Effect.catchCause((cause) =>
      Effect.as(
        Effect.logError("inspector page failed", cause),
        html(Pages.error(config.base, "The inspector failed", defectMessage(cause)), 500)
      )
    )
  )

/** An API handler: its failures and defects become JSON `{ error, message }`. */
const api = <R>(config: Config, handler: Effect.Effect<HttpServerResponse.HttpServerResponse, Failure, R>) =>
  handler.pipe(
    Effect.catch((failure: Failure) =>
      Effect.succeed(json({ error: codeOf(failure), message: config.scrubText(messageOf(failure)) }, statusOf(failure)))
    ),
    Effect.catchCause((cause) =>
      Effect.as(
        Effect.logError("inspector API failed", cause),
        json({ error: "internal", message: defectMessage(cause) }, 500)
      )
    )
  )

const PositiveInt = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1e12 }))
const NonNegativeInt = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 1e15 }))

const decodeSearch = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>(
  schema: Schema.Codec<A, I>
) =>
  Effect.mapError(
    HttpServerRequest.schemaSearchParams(schema),
    (error) => new BadRequest({ message: `bad query parameters: ${error.message}` })
  )

const SessionsSearch = Schema.Struct({
  q: Schema.optional(Schema.String.check(Schema.isMaxLength(200))),
  status: Schema.optional(Schema.Union([Schema.Literal(""), InspectorStore.SessionStatus])),
  page: Schema.optional(PositiveInt)
})

const sessionId = Effect.flatMap(HttpRouter.params, (params) => {
  const id = params["id"]
  return id === undefined || id === "" || id.length > 1_000
    ? Effect.fail(new BadRequest({ message: "a session id is 1 to 1,000 characters" }))
    : Effect.succeed(id)
})

const numberParam = (name: string, what: string) =>
  Effect.flatMap(HttpRouter.params, (params) =>
    Schema.decodeUnknownEffect(PositiveInt)(params[name]).pipe(
      Effect.mapError(() => new BadRequest({ message: `${what} is a whole number from 1` }))
    )
  )

const sessionsQuery = (config: Config) =>
  Effect.map(decodeSearch(SessionsSearch), (search) => ({
    search: search.q ?? "",
    status: search.status === "" ? undefined : search.status,
    page: search.page ?? 1,
    pageSize: config.pageSize
  }))

const readSessions = (config: Config, query: Pages.SessionsQuery) =>
  config.store.sessions({
    search: query.search,
    status: query.status,
    offset: (query.page - 1) * query.pageSize,
    limit: query.pageSize
  })

/** Every event of a session in `(after, until]` without deltas, read page by page. */
const runEvents = (config: Config, id: string, run: InspectorStore.RunSummary, live: boolean) => {
  const pageSize = 5_000
  const until = live ? undefined : run.last_seq
  const loop = (
    after: number,
    acc: ReadonlyArray<InspectorStore.LoggedEvent>
  ): Effect.Effect<
    ReadonlyArray<InspectorStore.LoggedEvent>,
    InspectorStore.SessionNotFound | InspectorStore.StoreUnavailable
  > =>
    Effect.flatMap(config.store.events(id, { after, until, limit: pageSize, omitDeltas: true }), (events) => {
      const all = acc.concat(events)
      const last = events.at(-1)
      return events.length < pageSize || last === undefined ? Effect.succeed(all) : loop(last.seq, all)
    })
  // A live run ends at the next run's start at the latest: the events of later runs are not its own.
  return Effect.map(loop(run.first_seq - 1, []), (events) => {
    const end = events.findIndex(
      (logged, i) => i > 0 && logged.event.type === "run_started" && logged.event.run_id !== run.run_id
    )
    return end < 0 ? events : events.slice(0, end)
  })
}

const findRun = (detail: InspectorStore.SessionDetail, index: number) => {
  const run = detail.runs.find((r) => r.index === index)
  return run === undefined
    ? Effect.fail(new NotFound({ message: `the session "${detail.summary.id}" has no run ${index}` }))
    : Effect.succeed(run)
}

const timelineOf = (config: Config, id: string, index: number) =>
  Effect.gen(function* () {
    const detail = yield* config.store.session(id)
    const run = yield* findRun(detail, index)
    const live = run.status === null && detail.summary.status === "running"
    const events = yield* runEvents(config, id, run, live)
    const now = yield* Clock.currentTimeMillis
    return { detail, run, svg: Timeline.toSvg(Timeline.make(events, { now: live ? now : undefined })) }
  })

const bearer = /^Bearer\s+(\S+)\s*$/i

const authorize = (config: Config) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const header = request.headers["authorization"] ?? ""
    const given = bearer.exec(header)?.[1] ?? request.headers["x-inspector-token"] ?? ""
    return given !== "" && ActionToken.matches(config.token, given)
      ? Effect.void
      : Effect.fail(
          new Unauthorized({
            message:
              given === ""
                ? "this action needs the token the inspector printed when it started"
                : "the action token is wrong: use the one the inspector printed when it started"
          })
        )
  })

const sse = (event: string, data: unknown, id?: number): string =>
  Sse.encoder.write({ _tag: "Event", event, id: id === undefined ? undefined : String(id), data: JSON.stringify(data) })

const LiveSearch = Schema.Struct({ after: Schema.optional(NonNegativeInt) })

const lastEventId = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const value = Number(request.headers["last-event-id"] ?? "")
  return Number.isSafeInteger(value) && value >= 0 ? value : 0
})

/** The live stream's text: the session's status, then each event (and the status again at a run's start and end). */
const liveBody = (config: Config, id: string, after: number): Stream.Stream<string> => {
  const status = Effect.map(config.store.session(id), (detail) => sse("status", detail.summary))
  const events = config.store.follow(id, after).pipe(
    Stream.mapEffect((logged) => {
      const line = sse("kernel", logged.event, logged.seq)
      return logged.event.type === "run_started" || logged.event.type === "run_ended"
        ? Effect.map(status, (update) => line + update)
        : Effect.succeed(line)
    })
  )
  const body = Stream.concat(Stream.fromEffect(status), events).pipe(
    Stream.catch((failure: InspectorStore.SessionNotFound | InspectorStore.StoreUnavailable) =>
      Stream.succeed(
        sse(failure._tag === "SessionNotFound" ? "not-found" : "store-error", {
          message: config.scrubText(failure.message)
        })
      )
    )
  )
  const retry = Sse.encoder.write(new Sse.Retry({ duration: Duration.millis(500), lastEventId: undefined }))
  return Stream.merge(
    Stream.concat(Stream.succeed(retry), body),
    Stream.map(Stream.tick("15 seconds"), () => ": keep-alive\n\n"),
    { haltStrategy: "left" }
  )
}

/** The inspector's routes, relative to its mount point. @internal */
export const make = (config: Config): ReadonlyArray<HttpRouter.Route<never, never>> => [
  HttpRouter.route(
    "GET",
    "/",
    page(
      config,
      Effect.gen(function* () {
        const query = yield* sessionsQuery(config)
        return html(Pages.sessions(config.base, yield* readSessions(config, query), query))
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/sessions/:id",
    page(
      config,
      Effect.gen(function* () {
        const id = yield* sessionId
        const search = yield* decodeSearch(Schema.Struct({ messages: Schema.optional(Schema.Literal("all")) }))
        const [detail, history] = yield* Effect.all([config.store.session(id), config.store.history(id)])
        return html(Pages.session(config.base, detail, history, search.messages === "all"))
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/sessions/:id/runs/:run",
    page(
      config,
      Effect.gen(function* () {
        const id = yield* sessionId
        const { detail, run, svg } = yield* timelineOf(config, id, yield* numberParam("run", "a run number"))
        return html(Pages.run(config.base, detail.summary, run, svg))
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/sessions/:id/runs/:run/timeline.svg",
    api(
      config,
      Effect.gen(function* () {
        const id = yield* sessionId
        const { svg } = yield* timelineOf(config, id, yield* numberParam("run", "a run number"))
        return HttpServerResponse.text(svg, {
          contentType: "image/svg+xml; charset=utf-8",
          headers: { "x-content-type-options": "nosniff", "cache-control": "no-store" }
        })
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/api/sessions",
    api(
      config,
      Effect.gen(function* () {
        const query = yield* sessionsQuery(config)
        return json(yield* readSessions(config, query))
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/api/sessions/:id",
    api(config, Effect.map(Effect.flatMap(sessionId, config.store.session), json))
  ),
  HttpRouter.route(
    "GET",
    "/api/sessions/:id/history",
    api(config, Effect.map(Effect.flatMap(sessionId, config.store.history), json))
  ),
  HttpRouter.route(
    "GET",
    "/api/sessions/:id/events",
    api(
      config,
      Effect.gen(function* () {
        const id = yield* sessionId
        const search = yield* decodeSearch(
          Schema.Struct({ after: Schema.optional(NonNegativeInt), limit: Schema.optional(PositiveInt) })
        )
        const limit = Math.min(search.limit ?? 1_000, 10_000)
        return json(yield* config.store.events(id, { after: search.after ?? 0, limit }))
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/api/sessions/:id/events/:seq",
    api(
      config,
      Effect.gen(function* () {
        const id = yield* sessionId
        const seq = yield* numberParam("seq", "an event number")
        const events = yield* config.store.events(id, { after: seq - 1, until: seq, limit: 1 })
        const found = Option.fromUndefinedOr(events[0])
        if (Option.isNone(found)) return yield* new NotFound({ message: `the session "${id}" has no event ${seq}` })
        return json(found.value)
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/api/sessions/:id/live",
    api(
      config,
      Effect.gen(function* () {
        const id = yield* sessionId
        const search = yield* decodeSearch(LiveSearch)
        const after = Math.max(search.after ?? 0, yield* lastEventId)
        return HttpServerResponse.stream(Stream.encodeText(liveBody(config, id, after)), {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-store", "x-accel-buffering": "no", "x-content-type-options": "nosniff" }
        })
      })
    )
  ),
  HttpRouter.route(
    "POST",
    "/api/sessions/:id/resume",
    api(
      config,
      Effect.gen(function* () {
        yield* authorize(config)
        yield* config.store.resume(yield* sessionId)
        return json({ ok: true })
      })
    )
  ),
  HttpRouter.route(
    "POST",
    "/api/sessions/:id/interrupt",
    api(
      config,
      Effect.gen(function* () {
        yield* authorize(config)
        yield* config.store.interrupt(yield* sessionId)
        return json({ ok: true })
      })
    )
  ),
  HttpRouter.route(
    "GET",
    "/assets/inspector.css",
    HttpServerResponse.text(Assets.css, {
      contentType: "text/css; charset=utf-8",
      headers: { "x-content-type-options": "nosniff", "cache-control": "public, max-age=31536000, immutable" }
    })
  ),
  HttpRouter.route(
    "GET",
    "/assets/inspector.js",
    HttpServerResponse.text(Assets.script, {
      contentType: "text/javascript; charset=utf-8",
      headers: { "x-content-type-options": "nosniff", "cache-control": "public, max-age=31536000, immutable" }
    })
  ),
  // At the root the inspector owns the server: an unknown path gets its page. Under a prefix the
  // host app answers unknown paths (a catch-all there would also claim the prefix itself).
  ...(config.base === ""
    ? [
        HttpRouter.route(
          "*",
          "*",
          page(config, Effect.fail(new NotFound({ message: "the inspector has no such page" })))
        )
      ]
    : [])
]
