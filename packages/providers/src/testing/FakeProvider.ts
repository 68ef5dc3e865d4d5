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
import * as Capacity from "./internal/capacity.js"
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

/**
 * Starts the server; it stops (closing every open connection) when the scope
 * closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  plan: FaultPlan.FaultPlan,
  options?: Options
): Effect.Effect<FakeProvider, FakeProviderError, Scope.Scope> =>
  Effect.gen(function* () {
    const recorded = yield* SubscriptionRef.make<ReadonlyArray<RecordedRequest>>([])
    const arrivals = yield* Ref.make(0)
    const admission = yield* Ref.make(Capacity.empty)
    // Without a capacity, the plan step is the arrival index; with one, it counts admitted requests only.
    const admitted = yield* Ref.make(0)
    // Streams held by `hold_after_events` wait here until the test releases them.
    const released = yield* Latch.make(false)

    const record = (entry: RecordedRequest) => SubscriptionRef.update(recorded, (all) => [...all, entry])

    const respond = (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse, raw: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        const index = yield* Ref.getAndUpdate(arrivals, (n) => n + 1)
        const time = yield* Clock.currentTimeMillis
        const path = (req.url ?? "/").split("?")[0] ?? "/"
        const json = Redaction.parseJson(raw)
        const body = Option.getOrElse(json, () => raw)
        const dialect = Dialect.forPath(path)
        if (Option.isNone(dialect)) {
          yield* record({ index, time, api: "unknown", path, model: undefined, stream: false, body, throttled: false })
          res.writeHead(404, jsonHeaders).end(JSON.stringify({ error: { message: `no route ${path}` } }))
          return
        }
        const incoming = dialect.value.view(body, raw, keyOf(req))
        const capacity = plan.capacity
        const refusal =
          capacity === undefined
            ? Option.none<number>()
            : yield* Ref.modify(admission, (window) => Capacity.admit(window, capacity, time))
        yield* record({
          index,
          time,
          api: dialect.value.api,
          path,
          model: incoming.model,
          stream: incoming.stream,
          body,
          throttled: Option.isSome(refusal)
        })
        if (Option.isSome(refusal)) {
          const error = dialect.value.errorBody("rate_limit_error", "capacity exceeded: slow down", undefined)
          res
            .writeHead(429, {
              ...jsonHeaders,
              "retry-after-ms": String(refusal.value),
              "retry-after": String(Math.ceil(refusal.value / 1000))
            })
            .end(JSON.stringify(error))
          return
        }
        if (Option.isNone(json)) {
          const error = dialect.value.errorBody("invalid_request_error", "request body is not JSON", undefined)
          res.writeHead(400, jsonHeaders).end(JSON.stringify(error))
          return
        }
        const step = FaultPlan.stepAt(
          plan,
          plan.capacity === undefined ? index : yield* Ref.getAndUpdate(admitted, (n) => n + 1)
        )
        if (step.delay_ms !== undefined && step.delay_ms > 0) yield* Effect.sleep(step.delay_ms)
        yield* render(step, dialect.value, incoming, index, req, res, released)
      })

    const server = yield* Effect.acquireRelease(
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
    // Made after the server, so closing the scope interrupts every request
    // first, then closes the connections and the port.
    const run = yield* FiberSet.makeRuntime<never, void, never>()
    server.on("request", (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => {
      const parts: Array<Buffer> = []
      req.on("data", (part: Buffer) => parts.push(part))
      req.on("end", () => {
        const fiber = run(
          respond(req, res, Buffer.concat(parts).toString("utf8")).pipe(
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

    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const host = options?.host ?? "127.0.0.1"
    const url = `http://${host}:${port}`
    return {
      url,
      openAiBaseUrl: `${url}/v1`,
      port,
      requests: SubscriptionRef.get(recorded),
      release: Effect.asVoid(released.open),
      awaitRequests: (count: number) =>
        SubscriptionRef.changes(recorded).pipe(
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
  switch (step.kind) {
    case "happy":
    case "reply": {
      const answer = answerOf(step, incoming, index)
      const headers = step.kind === "reply" ? step.headers : undefined
      const rejected = dialect.rejects(answer, incoming)
      if (Option.isSome(rejected)) return writeJson(res, rejected.value)
      if (!incoming.stream) return writeJson(res, dialect.json(answer, incoming, index), headers)
      const events = [
        ...dialect.streamHead(incoming, index, answer.text, {
          deltaChars: step.kind === "reply" ? step.delta_chars : undefined,
          usage: answer.usage
        }),
        ...dialect.streamTail(answer, incoming, index)
      ]
      const pause = step.kind === "reply" ? (step.event_delay_ms ?? 0) : 0
      const hold = step.kind === "reply" ? step.hold_after_events : undefined
      const write = (some: ReadonlyArray<string>) =>
        pause > 0
          ? Effect.forEach(some, (event) => Effect.andThen(Effect.sleep(pause), writeEvents(res, [event])), {
              discard: true
            })
          : writeEvents(res, some)
      return Effect.all([
        openStream(res, headers),
        hold === undefined
          ? write(events)
          : Effect.all([write(events.slice(0, hold)), released.await, write(events.slice(hold))]),
        end(res)
      ])
    }
    case "error": {
      const message = `${step.message ?? step.error_type}${step.echo_key === true ? ` (key: ${incoming.key})` : ""}`
      return writeJson(
        res,
        { status: step.status, body: dialect.errorBody(step.error_type, message, step.code) },
        step.headers
      )
    }
    case "raw":
      return Effect.sync(() => {
        res.writeHead(step.status, { ...step.headers }).end(step.body)
      })
    case "stream_error": {
      const message = step.message ?? step.error_type
      if (!incoming.stream) {
        return writeJson(res, { status: 500, body: dialect.errorBody(step.error_type, message, step.code) })
      }
      return Effect.all([
        openStream(res),
        writeEvents(res, dialect.streamHead(incoming, index, step.text ?? "")),
        writeEvents(res, [
          step.flat === true
            ? Dialect.sse("error", {
                type: step.error_type,
                message,
                ...(step.code !== undefined ? { code: step.code } : {})
              })
            : dialect.streamError(step.error_type, message, step.code)
        ]),
        end(res)
      ])
    }
    case "truncate": {
      if (!incoming.stream) {
        const answer = replyAnswer({ kind: "reply", text: step.text ?? "partial" }, incoming, index)
        const json = JSON.stringify(dialect.json(answer, incoming, index).body)
        return Effect.sync(() => {
          res.writeHead(200, jsonHeaders).end(json.slice(0, Math.floor(json.length / 2)))
        })
      }
      return Effect.all([
        openStream(res),
        writeEvents(res, dialect.streamHead(incoming, index, step.text ?? "")),
        writeEvents(res, step.done === true ? Option.toArray(dialect.doneMarker) : []),
        end(res)
      ])
    }
    case "stall":
      return Effect.andThen(
        incoming.stream
          ? Effect.andThen(openStream(res), writeEvents(res, dialect.streamHead(incoming, index, step.text ?? "")))
          : Effect.sync(() => {
              res.writeHead(200, jsonHeaders)
              res.write('{"id": "msg_fake", ')
            }),
        Effect.never
      )
    case "keepalive": {
      const beat = !incoming.stream
        ? " "
        : step.style === "comment"
          ? ": keep-alive\n\n"
          : step.style === "empty"
            ? "data:\n\n"
            : step.style === "empty_events"
              ? dialect.emptyEvents(incoming, index)
              : dialect.ping(incoming, index)
      return Effect.andThen(
        incoming.stream
          ? Effect.andThen(openStream(res), writeEvents(res, dialect.streamHead(incoming, index, step.text ?? "")))
          : Effect.sync(() => {
              res.writeHead(200, jsonHeaders).flushHeaders()
            }),
        Effect.forever(Effect.andThen(Effect.sleep(step.every_ms ?? 1000), writeEvents(res, [beat])))
      )
    }
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
      return Effect.sync(() => {
        if (step.text !== undefined && incoming.stream) {
          res.writeHead(200, sseHeaders)
          // The RST goes once the partial stream is handed to the socket, so it reaches the client first.
          res.write(dialect.streamHead(incoming, index, step.text).join(""), () => req.socket.resetAndDestroy())
        } else {
          req.socket.resetAndDestroy()
        }
      })
    case "oversize":
      return Effect.sync(() => {
        res.writeHead(200, jsonHeaders)
        res.end(`{"pad":"${"x".repeat(Math.max(0, step.bytes - 10))}"}`)
      })
  }
}
