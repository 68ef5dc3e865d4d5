/**
 * A fake model provider: a real HTTP server on 127.0.0.1 that speaks the
 * Anthropic Messages (`/v1/messages`) and OpenAI Chat Completions
 * (`/v1/chat/completions`) wire formats, streaming and not, and follows a
 * `FaultPlan` one request at a time. It records every request.
 *
 * The server runs on the runtime it was made in, so step delays use that
 * runtime's `Clock`: under `TestClock` a "delay 5 s" step waits for
 * `TestClock.adjust`, not for wall time.
 *
 * @example
 * ```ts
 * import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function* () {
 *     const server = yield* FakeProvider.make(FaultPlan.happy)
 *     console.log(server.url) // http://127.0.0.1:PORT
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Latch from "effect/Latch"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as NodeHttp from "node:http"
import * as Redaction from "../Redaction.js"
import * as FaultPlan from "./FaultPlan.js"
import { Capacity } from "@agent-kernel/kernel/testing"
import * as Dialect from "./internal/dialect.js"
import type { Answer, Incoming } from "./internal/dialect.js"

/**
 * One request the server received.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecordedRequest {
  /** Position in arrival order, from 0; also the plan step it got, unless the plan has a `capacity`. */
  readonly index: number
  /** Refused with a 429 by the plan's `capacity`: it took no plan step. */
  readonly throttled: boolean
  /** Arrival time in epoch milliseconds on the server runtime's `Clock`. */
  readonly time: number
  readonly api: "anthropic" | "openai" | "openai-responses" | "unknown"
  readonly path: string
  readonly model: string | undefined
  readonly stream: boolean
  /** The parsed JSON body (or the raw text if it was not JSON). Headers are not kept. */
  readonly body: unknown
}

/**
 * A running fake provider.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeProvider {
  /** `http://127.0.0.1:PORT`: use it as `ANTHROPIC_BASE_URL`. */
  readonly url: string
  /**
   * `url + "/v1"`: use it as `OPENAI_BASE_URL`. It serves Chat Completions
   * (`/v1/chat/completions`) and the Responses API (`/v1/responses`, as
   * @effect/ai-openai calls it), both following the same plan.
   */
  readonly openAiBaseUrl: string
  readonly port: number
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
  /** Waits until at least `count` requests have arrived. */
  readonly awaitRequests: (count: number) => Effect.Effect<ReadonlyArray<RecordedRequest>>
  /** Lets every stream held by a `hold_after_events` step (and any later one) write the rest of its events. */
  readonly release: Effect.Effect<void>
}

/**
 * The server could not start.
 *
 * @since 0.1.0
 * @category errors
 */
export class FakeProviderError extends Data.TaggedError("FakeProviderError")<{
  readonly message: string
}> {}

/**
 * Options of the server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: 0 (a random free port). */
  readonly port?: number | undefined
  /** Default: `127.0.0.1`. */
  readonly host?: string | undefined
}

/**
 * A valid input for a JSON Schema, as a careful model would write it: only
 * the required properties of an object (an optional one is left out, never
 * made up), each with a value the schema accepts: its `const`, `default`,
 * first `enum` value or first example, else a value of its type within its
 * bounds (`minimum`, `exclusiveMinimum`, `maximum`, `minLength`, `maxLength`,
 * `minItems`, a known `format`). `anyOf` / `oneOf` take their first branch.
 *
 * @since 0.1.0
 * @category happy mode
 */
export const sampleInput = (schema: unknown): unknown => {
  if (typeof schema !== "object" || schema === null) return {}
  const view: Record<string, unknown> = { ...schema }
  if ("const" in view) return view["const"]
  if ("default" in view) return view["default"]
  const firstOf = (key: string): Option.Option<unknown> => {
    const list = view[key]
    return Array.isArray(list) && list.length > 0 ? Option.some(list[0]) : Option.none()
  }
  const listed = Option.orElse(firstOf("enum"), () => firstOf("examples"))
  if (Option.isSome(listed)) return listed.value
  const branch = Option.orElse(firstOf("anyOf"), () => firstOf("oneOf"))
  if (Option.isSome(branch)) return sampleInput(branch.value)
  const declared = view["type"]
  const type = Array.isArray(declared) ? (declared.find((t) => t !== "null") ?? declared[0]) : declared
  const numberAt = (key: string): number | undefined => {
    const value = view[key]
    return typeof value === "number" && Number.isFinite(value) ? value : undefined
  }
  switch (type) {
    case "string": {
      const format = view["format"]
      const base = typeof format === "string" ? (formatSamples[format] ?? "example") : "example"
      const min = numberAt("minLength") ?? 0
      const max = numberAt("maxLength") ?? Number.POSITIVE_INFINITY
      return base.padEnd(min, "x").slice(0, max)
    }
    case "number":
    case "integer": {
      const step = type === "integer" ? 1 : 0.5
      const exclusive = numberAt("exclusiveMinimum")
      const lower = exclusive !== undefined ? exclusive + step : numberAt("minimum")
      const value = lower ?? 1
      const upper = numberAt("maximum")
      const bounded = upper !== undefined && value > upper ? upper : value
      return type === "integer" ? Math.ceil(bounded) : bounded
    }
    case "boolean":
      return true
    case "null":
      return null
    case "array":
      return Array.from({ length: numberAt("minItems") ?? 0 }, () => sampleInput(view["items"]))
    default: {
      const properties = view["properties"]
      const byName: Record<string, unknown> =
        typeof properties === "object" && properties !== null ? { ...properties } : {}
      const required = view["required"]
      const names = Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : []
      return Object.fromEntries(names.map((name) => [name, sampleInput(byName[name])]))
    }
  }
}

const formatSamples: Readonly<Record<string, string>> = {
  "date-time": "2026-01-01T00:00:00Z",
  date: "2026-01-01",
  time: "00:00:00Z",
  email: "someone@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000"
}

const happyAnswer = (incoming: Incoming, index: number): Answer => {
  const tool = incoming.tools[0]
  if (tool !== undefined && !incoming.afterTools) {
    return {
      text: `I'll use the ${tool.name} tool.`,
      toolCalls: [{ id: `toolu_fake_${index}`, name: tool.name, input: sampleInput(tool.schema) }],
      stop: "tool_use",
      usage: { input_tokens: incoming.inputTokens, output_tokens: 12 }
    }
  }
  const text = incoming.afterTools
    ? `Done. The tool returned: ${incoming.lastToolResult.slice(0, 200)}`
    : `Hello from the fake provider. You said: ${incoming.lastUserText.slice(0, 200)}`
  return { text, toolCalls: [], stop: "end_turn", usage: { input_tokens: incoming.inputTokens, output_tokens: 8 } }
}

const replyAnswer = (step: typeof FaultPlan.Reply.Type, incoming: Incoming, index: number): Answer => {
  const toolCalls = (step.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `toolu_fake_${index}_${i}`,
    name: call.name,
    input: call.input
  }))
  const text = step.text ?? (toolCalls.length === 0 ? "ok" : "")
  return {
    text,
    toolCalls,
    stop: step.stop ?? (toolCalls.length > 0 ? "tool_use" : "end_turn"),
    usage: step.usage ?? { input_tokens: incoming.inputTokens, output_tokens: Math.max(1, Math.ceil(text.length / 4)) }
  }
}

const jsonHeaders = { "content-type": "application/json" }
const sseHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" }

const keyOf = (req: NodeHttp.IncomingMessage): string => {
  const apiKey = req.headers["x-api-key"]
  if (typeof apiKey === "string") return apiKey
  const auth = req.headers.authorization
  return typeof auth === "string" ? auth.replace(/^Bearer\s+/i, "") : ""
}

/** What the server keeps between requests. */
interface State {
  readonly plan: FaultPlan.FaultPlan
  /** When the server started (its `Clock`): a capacity's changes count from here. */
  readonly started: number
  readonly recorded: SubscriptionRef.SubscriptionRef<ReadonlyArray<RecordedRequest>>
  readonly arrivals: Ref.Ref<number>
  readonly admission: Ref.Ref<Capacity.Window>
  /** Without a capacity, the plan step is the arrival index; with one, it counts admitted requests only. */
  readonly admitted: Ref.Ref<number>
  /** Streams held by `hold_after_events` wait here until the test releases them. */
  readonly released: Latch.Latch
}

const makeState = (plan: FaultPlan.FaultPlan): Effect.Effect<State> =>
  Effect.all({
    plan: Effect.succeed(plan),
    started: Clock.currentTimeMillis,
    recorded: SubscriptionRef.make<ReadonlyArray<RecordedRequest>>([]),
    arrivals: Ref.make(0),
    admission: Ref.make(Capacity.empty),
    admitted: Ref.make(0),
    released: Latch.make(false)
  })

const record = (state: State, entry: RecordedRequest) =>
  SubscriptionRef.update(state.recorded, (all) => [...all, entry])

/** The 429 of a request the plan's capacity refused, with when the window has room again. */
const refuse = (res: NodeHttp.ServerResponse, dialect: Dialect.Dialect, retryAfterMs: number) =>
  Effect.sync(() => {
    const error = dialect.errorBody("rate_limit_error", "capacity exceeded: slow down", undefined)
    res
      .writeHead(429, {
        ...jsonHeaders,
        "retry-after-ms": String(retryAfterMs),
        "retry-after": String(Capacity.retryAfterSeconds(retryAfterMs))
      })
      .end(JSON.stringify(error))
  })

/** Records one request and answers it: a 404 off the known paths, a capacity's 429, a 400 for a body that is not JSON, else the plan's step. */
const respond = Effect.fnUntraced(function* (
  state: State,
  req: NodeHttp.IncomingMessage,
  res: NodeHttp.ServerResponse,
  raw: string
) {
  const index = yield* Ref.getAndUpdate(state.arrivals, (n) => n + 1)
  const time = yield* Clock.currentTimeMillis
  const path = (req.url ?? "/").split("?")[0] ?? "/"
  const json = Redaction.parseJson(raw)
  const body = Option.getOrElse(json, () => raw)
  const dialect = Dialect.forPath(path)
  if (Option.isNone(dialect)) {
    yield* record(state, { index, time, api: "unknown", path, model: undefined, stream: false, body, throttled: false })
    res.writeHead(404, jsonHeaders).end(JSON.stringify({ error: { message: `no route ${path}` } }))
    return
  }
  const incoming = dialect.value.view(body, raw, keyOf(req))
  const capacity = state.plan.capacity
  const refusal =
    capacity === undefined
      ? Option.none<number>()
      : yield* Ref.modify(state.admission, (window) =>
          Capacity.admit(window, FaultPlan.requestsPerSecondAt(capacity, time - state.started), time)
        )
  yield* record(state, {
    index,
    time,
    api: dialect.value.api,
    path,
    model: incoming.model,
    stream: incoming.stream,
    body,
    throttled: Option.isSome(refusal)
  })
  if (Option.isSome(refusal)) return yield* refuse(res, dialect.value, refusal.value)
  if (Option.isNone(json)) {
    const error = dialect.value.errorBody("invalid_request_error", "request body is not JSON", undefined)
    res.writeHead(400, jsonHeaders).end(JSON.stringify(error))
    return
  }
  const step = FaultPlan.stepAt(
    state.plan,
    capacity === undefined ? index : yield* Ref.getAndUpdate(state.admitted, (n) => n + 1)
  )
  if (step.delay_ms !== undefined && step.delay_ms > 0) yield* Effect.sleep(step.delay_ms)
  yield* render(step, dialect.value, incoming, index, req, res, state.released)
})

/** A server listening on the host and port; closed, with every connection, when the scope closes. */
const listen = (options: Options | undefined): Effect.Effect<NodeHttp.Server, FakeProviderError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<NodeHttp.Server, FakeProviderError>((resume) => {
      const server = NodeHttp.createServer()
      const onError = (error: Error) => resume(Effect.fail(new FakeProviderError({ message: error.message })))
      server.once("error", onError)
      server.listen(options?.port ?? 0, options?.host ?? "127.0.0.1", () => {
        server.off("error", onError)
        resume(Effect.succeed(server))
      })
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )

/**
 * Answers each request on a fiber of the scope's runtime. Called after
 * `listen`, so closing the scope interrupts every request first, then closes
 * the connections and the port.
 */
const serve = Effect.fnUntraced(function* (server: NodeHttp.Server, state: State) {
  const run = yield* FiberSet.makeRuntime<never, void, never>()
  server.on("request", (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => {
      const fiber = run(
        respond(state, req, res, Buffer.concat(parts).toString("utf8")).pipe(
          Effect.catchDefect((defect) =>
            Effect.sync(() => {
              if (!res.headersSent) res.writeHead(500, jsonHeaders)
              res.end(JSON.stringify({ error: { message: `fake provider defect: ${String(defect)}` } }))
            })
          )
        )
      )
      // A client that goes away ends the work for its request (a stall or an endless stream).
      res.once("close", () => fiber.interruptUnsafe())
    })
  })
})

/**
 * Starts the server; it stops (closing every open connection) when the scope
 * closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  plan: FaultPlan.FaultPlan,
  options?: Options
) => Effect.Effect<FakeProvider, FakeProviderError, Scope.Scope> = Effect.fnUntraced(function* (
  plan: FaultPlan.FaultPlan,
  options?: Options
) {
  const state = yield* makeState(plan)
  const server = yield* listen(options)
  yield* serve(server, state)
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  const url = `http://${options?.host ?? "127.0.0.1"}:${port}`
  return {
    url,
    openAiBaseUrl: `${url}/v1`,
    port,
    requests: SubscriptionRef.get(state.recorded),
    release: Effect.asVoid(state.released.open),
    awaitRequests: (count: number) =>
      SubscriptionRef.changes(state.recorded).pipe(
        Stream.filter((all) => all.length >= count),
        Stream.take(1),
        Stream.runHead,
        Effect.map(Option.getOrElse((): ReadonlyArray<RecordedRequest> => []))
      )
  }
})

const answerOf = (step: FaultPlan.Step & { readonly kind: "happy" | "reply" }, incoming: Incoming, index: number) =>
  step.kind === "happy" ? happyAnswer(incoming, index) : replyAnswer(step, incoming, index)

const writeJson = (res: NodeHttp.ServerResponse, reply: Dialect.JsonReply, headers?: Record<string, string>) =>
  Effect.sync(() => {
    res.writeHead(reply.status, { ...jsonHeaders, ...headers }).end(JSON.stringify(reply.body))
  })

const writeEvents = (res: NodeHttp.ServerResponse, events: ReadonlyArray<string>) =>
  Effect.sync(() => {
    for (const event of events) res.write(event)
  })

const openStream = (res: NodeHttp.ServerResponse, headers?: Record<string, string>) =>
  Effect.sync(() => {
    res.writeHead(200, { ...sseHeaders, ...headers })
  })

const end = (res: NodeHttp.ServerResponse) =>
  Effect.sync(() => {
    res.end()
  })

/** One request being answered: its wire format, what it asked, and where to write. */
interface Exchange {
  readonly dialect: Dialect.Dialect
  readonly incoming: Incoming
  readonly index: number
  readonly req: NodeHttp.IncomingMessage
  readonly res: NodeHttp.ServerResponse
  readonly released: Latch.Latch
}

/** The opening events of a stream, up to and including `text`. */
const openWith = (ex: Exchange, text: string | undefined) =>
  Effect.andThen(openStream(ex.res), writeEvents(ex.res, ex.dialect.streamHead(ex.incoming, ex.index, text ?? "")))

/** A successful answer, as one JSON body or as a stream (slow, or held after some events, when the step says so). */
const renderAnswer = (step: typeof FaultPlan.Reply.Type | typeof FaultPlan.Happy.Type, ex: Exchange) => {
  const { dialect, incoming, index, res } = ex
  const answer = answerOf(step, incoming, index)
  const reply = step.kind === "reply" ? step : undefined
  const rejected = dialect.rejects(answer, incoming)
  if (Option.isSome(rejected)) return writeJson(res, rejected.value)
  if (!incoming.stream) return writeJson(res, dialect.json(answer, incoming, index), reply?.headers)
  const events = [
    ...dialect.streamHead(incoming, index, answer.text, { deltaChars: reply?.delta_chars, usage: answer.usage }),
    ...dialect.streamTail(answer, incoming, index)
  ]
  const pause = reply?.event_delay_ms ?? 0
  const hold = reply?.hold_after_events
  const write = (some: ReadonlyArray<string>) =>
    pause > 0
      ? Effect.forEach(some, (event) => Effect.andThen(Effect.sleep(pause), writeEvents(res, [event])), {
          discard: true
        })
      : writeEvents(res, some)
  return Effect.all([
    openStream(res, reply?.headers),
    hold === undefined
      ? write(events)
      : Effect.all([write(events.slice(0, hold)), ex.released.await, write(events.slice(hold))]),
    end(res)
  ])
}

/** Partial text, then an error event in the format's shape or flat; not streaming, a 500 error body. */
const renderStreamError = (step: typeof FaultPlan.StreamError.Type, ex: Exchange) => {
  const { dialect, res } = ex
  const message = step.message ?? step.error_type
  if (!ex.incoming.stream) {
    return writeJson(res, { status: 500, body: dialect.errorBody(step.error_type, message, step.code) })
  }
  const error =
    step.flat === true
      ? Dialect.sse("error", {
          type: step.error_type,
          message,
          ...(step.code !== undefined ? { code: step.code } : {})
        })
      : dialect.streamError(step.error_type, message, step.code)
  return Effect.all([openWith(ex, step.text), writeEvents(res, [error]), end(res)])
}

/** A stream that ends without finishing its message; not streaming, half a JSON body. */
const renderTruncate = (step: typeof FaultPlan.Truncate.Type, ex: Exchange) => {
  const { dialect, incoming, index, res } = ex
  if (!incoming.stream) {
    const answer = replyAnswer({ kind: "reply", text: step.text ?? "partial" }, incoming, index)
    const json = JSON.stringify(dialect.json(answer, incoming, index).body)
    return Effect.sync(() => {
      res.writeHead(200, jsonHeaders).end(json.slice(0, Math.floor(json.length / 2)))
    })
  }
  return Effect.all([
    openWith(ex, step.text),
    writeEvents(res, step.done === true ? Option.toArray(dialect.doneMarker) : []),
    end(res)
  ])
}

/** What a keep-alive step writes every `every_ms`: events that carry nothing, or a space before a JSON body. */
const beatOf = (step: typeof FaultPlan.KeepAlive.Type, ex: Exchange): string => {
  if (!ex.incoming.stream) return " "
  switch (step.style) {
    case "comment":
      return ": keep-alive\n\n"
    case "empty":
      return "data:\n\n"
    case "empty_events":
      return ex.dialect.emptyEvents(ex.incoming, ex.index)
    default:
      return ex.dialect.ping(ex.incoming, ex.index)
  }
}

const renderKeepAlive = (step: typeof FaultPlan.KeepAlive.Type, ex: Exchange) =>
  Effect.andThen(
    ex.incoming.stream
      ? openWith(ex, step.text)
      : Effect.sync(() => {
          ex.res.writeHead(200, jsonHeaders).flushHeaders()
        }),
    Effect.forever(Effect.andThen(Effect.sleep(step.every_ms ?? 1000), writeEvents(ex.res, [beatOf(step, ex)])))
  )

/** A TCP reset, before answering or after the partial stream. */
const renderReset = (step: typeof FaultPlan.Reset.Type, ex: Exchange) =>
  Effect.sync(() => {
    if (step.text !== undefined && ex.incoming.stream) {
      ex.res.writeHead(200, sseHeaders)
      // The RST goes once the partial stream is handed to the socket, so it reaches the client first.
      ex.res.write(ex.dialect.streamHead(ex.incoming, ex.index, step.text).join(""), () =>
        ex.req.socket.resetAndDestroy()
      )
    } else {
      ex.req.socket.resetAndDestroy()
    }
  })

/** Plays one step of the plan as the response to one request, in the request's wire format. */
const render = (
  step: FaultPlan.Step,
  dialect: Dialect.Dialect,
  incoming: Incoming,
  index: number,
  req: NodeHttp.IncomingMessage,
  res: NodeHttp.ServerResponse,
  released: Latch.Latch
): Effect.Effect<void> => {
  const ex: Exchange = { dialect, incoming, index, req, res, released }
  switch (step.kind) {
    case "happy":
    case "reply":
      return renderAnswer(step, ex)
    case "error": {
      const message = `${step.message ?? step.error_type}${step.echo_key === true ? ` (key: ${incoming.key})` : ""}`
      const body = dialect.errorBody(step.error_type, message, step.code)
      return writeJson(res, { status: step.status, body }, step.headers)
    }
    case "raw":
      return Effect.sync(() => {
        res.writeHead(step.status, { ...step.headers }).end(step.body)
      })
    case "stream_error":
      return renderStreamError(step, ex)
    case "truncate":
      return renderTruncate(step, ex)
    case "stall":
      return Effect.andThen(
        incoming.stream
          ? openWith(ex, step.text)
          : Effect.sync(() => {
              res.writeHead(200, jsonHeaders)
              res.write('{"id": "msg_fake", ')
            }),
        Effect.never
      )
    case "keepalive":
      return renderKeepAlive(step, ex)
    case "headers_only":
      return Effect.andThen(
        Effect.sync(() => {
          res.writeHead(200, incoming.stream ? sseHeaders : jsonHeaders).flushHeaders()
        }),
        Effect.never
      )
    case "hang":
      return Effect.never
    case "reset":
      return renderReset(step, ex)
    case "oversize":
      return Effect.sync(() => {
        res.writeHead(200, jsonHeaders)
        res.end(`{"pad":"${"x".repeat(Math.max(0, step.bytes - 10))}"}`)
      })
  }
}
