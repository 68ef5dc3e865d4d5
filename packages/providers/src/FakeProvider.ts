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
 * import { FakeProvider, FaultPlan } from "@agent-kernel/providers"
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
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as NodeHttp from "node:http"
import type * as Net from "node:net"
import * as FaultPlan from "./FaultPlan.js"

/**
 * One request the server received.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecordedRequest {
  /** Position in arrival order, from 0; also the plan step it got. */
  readonly index: number
  /** Arrival time in epoch milliseconds on the server runtime's `Clock`. */
  readonly time: number
  readonly api: "anthropic" | "openai" | "unknown"
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
  /** `url + "/v1"`: use it as `OPENAI_BASE_URL`. */
  readonly openAiBaseUrl: string
  readonly port: number
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
  /** Waits until at least `count` requests have arrived. */
  readonly awaitRequests: (count: number) => Effect.Effect<ReadonlyArray<RecordedRequest>>
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

// ---------------------------------------------------------------------------
// Loose views of incoming requests (only what the fake needs).

const AnthropicRequest = Schema.Struct({
  model: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
  tools: Schema.optional(
    Schema.Array(Schema.Struct({ name: Schema.String, input_schema: Schema.optional(Schema.Unknown) }))
  ),
  messages: Schema.optional(
    Schema.Array(
      Schema.Struct({
        role: Schema.String,
        content: Schema.Union(
          Schema.String,
          Schema.Array(
            Schema.Struct({
              type: Schema.String,
              text: Schema.optional(Schema.String),
              content: Schema.optional(Schema.Unknown)
            })
          )
        )
      })
    )
  )
})

const OpenAiRequest = Schema.Struct({
  model: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
  tools: Schema.optional(
    Schema.Array(
      Schema.Struct({
        function: Schema.Struct({ name: Schema.String, parameters: Schema.optional(Schema.Unknown) })
      })
    )
  ),
  messages: Schema.optional(
    Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.optional(Schema.NullOr(Schema.Unknown)) }))
  )
})

interface Incoming {
  readonly api: "anthropic" | "openai"
  readonly model: string
  readonly stream: boolean
  readonly tools: ReadonlyArray<{ readonly name: string; readonly schema: unknown }>
  /** Whether the last message carries tool results. */
  readonly afterTools: boolean
  readonly lastToolResult: string
  readonly lastUserText: string
  readonly inputTokens: number
  readonly key: string
}

const textOfUnknown = (value: unknown): string =>
  typeof value === "string"
    ? value
    : Array.isArray(value)
      ? value
          .map((part) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : ""))
          .join("")
      : ""

const view = (api: "anthropic" | "openai", body: unknown, raw: string, key: string): Incoming => {
  const inputTokens = Math.max(1, Math.ceil(raw.length / 4))
  if (api === "anthropic") {
    const decoded = Schema.decodeUnknownOption(AnthropicRequest)(body)
    const request = Option.getOrElse(decoded, (): typeof AnthropicRequest.Type => ({}))
    const messages = request.messages ?? []
    const last = messages[messages.length - 1]
    const blocks = last === undefined || typeof last.content === "string" ? [] : last.content
    const results = blocks.filter((block) => block.type === "tool_result")
    const lastUser = [...messages].reverse().find((m) => m.role === "user")
    return {
      api,
      model: request.model ?? "fake-model",
      stream: request.stream === true,
      tools: (request.tools ?? []).map((tool) => ({ name: tool.name, schema: tool.input_schema })),
      afterTools: results.length > 0,
      lastToolResult: results.map((block) => textOfUnknown(block.content)).join("\n"),
      lastUserText:
        lastUser === undefined
          ? ""
          : typeof lastUser.content === "string"
            ? lastUser.content
            : lastUser.content.map((block) => block.text ?? "").join(""),
      inputTokens,
      key
    }
  }
  const decoded = Schema.decodeUnknownOption(OpenAiRequest)(body)
  const request = Option.getOrElse(decoded, (): typeof OpenAiRequest.Type => ({}))
  const messages = request.messages ?? []
  const trailingTools: Array<string> = []
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) {
    trailingTools.unshift(textOfUnknown(messages[i]?.content))
  }
  const lastUser = [...messages].reverse().find((m) => m.role === "user")
  return {
    api,
    model: request.model ?? "fake-model",
    stream: request.stream === true,
    tools: (request.tools ?? []).map((tool) => ({ name: tool.function.name, schema: tool.function.parameters })),
    afterTools: trailingTools.length > 0,
    lastToolResult: trailingTools.join("\n"),
    lastUserText: textOfUnknown(lastUser?.content),
    inputTokens,
    key
  }
}

/**
 * A plausible input for a JSON Schema: required (or all) properties filled
 * with a value of their type.
 *
 * @since 0.1.0
 * @category happy mode
 */
export const sampleInput = (schema: unknown): unknown => {
  if (typeof schema !== "object" || schema === null) return {}
  const { enum: values, type, properties: declared, required: listed }: Record<string, unknown> = { ...schema }
  if (Array.isArray(values) && values.length > 0) return values[0]
  switch (type) {
    case "string":
      return "example"
    case "number":
    case "integer":
      return 1
    case "boolean":
      return true
    case "array":
      return []
    case "object":
    case undefined: {
      const properties: Record<string, unknown> =
        typeof declared === "object" && declared !== null ? { ...declared } : {}
      const required = Array.isArray(listed)
        ? listed.filter((name): name is string => typeof name === "string")
        : Object.keys(properties)
      const out: Record<string, unknown> = {}
      for (const name of required) out[name] = sampleInput(properties[name])
      return out
    }
    default:
      return null
  }
}

// ---------------------------------------------------------------------------
// Rendering

interface Answer {
  readonly text: string
  readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: unknown }>
  readonly stop: "end_turn" | "tool_use" | "max_tokens" | "refusal" | "model_context_window_exceeded"
  readonly usage: {
    readonly input_tokens: number
    readonly output_tokens: number
    readonly cache_read_tokens?: number | undefined
  }
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

/** Splits a string into up to `parts` pieces, so deltas are really incremental. */
const pieces = (text: string, size: number): ReadonlyArray<string> => {
  if (text.length === 0) return []
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

const sse = (event: string | undefined, data: unknown): string =>
  `${event !== undefined ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`

const anthropicStop = (stop: Answer["stop"]): string => stop

const openAiFinish = (stop: Answer["stop"]): string =>
  stop === "end_turn"
    ? "stop"
    : stop === "tool_use"
      ? "tool_calls"
      : stop === "max_tokens"
        ? "length"
        : stop === "refusal"
          ? "content_filter"
          : "length"

const anthropicUsage = (usage: Answer["usage"]) => ({
  input_tokens: usage.input_tokens,
  output_tokens: usage.output_tokens,
  ...(usage.cache_read_tokens !== undefined ? { cache_read_input_tokens: usage.cache_read_tokens } : {})
})

const openAiUsage = (usage: Answer["usage"]) => ({
  prompt_tokens: usage.input_tokens + (usage.cache_read_tokens ?? 0),
  completion_tokens: usage.output_tokens,
  total_tokens: usage.input_tokens + (usage.cache_read_tokens ?? 0) + usage.output_tokens,
  ...(usage.cache_read_tokens !== undefined
    ? { prompt_tokens_details: { cached_tokens: usage.cache_read_tokens } }
    : {})
})

const anthropicJson = (answer: Answer, incoming: Incoming, index: number) => ({
  id: `msg_fake_${index}`,
  type: "message",
  role: "assistant",
  model: incoming.model,
  content: [
    ...(answer.text.length > 0 ? [{ type: "text", text: answer.text }] : []),
    ...answer.toolCalls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.input }))
  ],
  stop_reason: anthropicStop(answer.stop),
  stop_sequence: null,
  usage: anthropicUsage(answer.usage)
})

const anthropicStreamHead = (incoming: Incoming, index: number, text: string): Array<string> => {
  const events = [
    sse("message_start", {
      type: "message_start",
      message: {
        id: `msg_fake_${index}`,
        type: "message",
        role: "assistant",
        model: incoming.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: incoming.inputTokens, output_tokens: 1 }
      }
    }),
    sse("ping", { type: "ping" })
  ]
  if (text.length > 0) {
    events.push(
      sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })
    )
    for (const piece of pieces(text, 8)) {
      events.push(
        sse("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: piece }
        })
      )
    }
  }
  return events
}

const anthropicStream = (answer: Answer, incoming: Incoming, index: number): Array<string> => {
  const events = anthropicStreamHead(incoming, index, answer.text)
  let blockIndex = 0
  if (answer.text.length > 0) {
    events.push(sse("content_block_stop", { type: "content_block_stop", index: 0 }))
    blockIndex = 1
  }
  for (const call of answer.toolCalls) {
    events.push(
      sse("content_block_start", {
        type: "content_block_start",
        index: blockIndex,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} }
      })
    )
    for (const piece of pieces(JSON.stringify(call.input ?? {}), 5)) {
      events.push(
        sse("content_block_delta", {
          type: "content_block_delta",
          index: blockIndex,
          delta: { type: "input_json_delta", partial_json: piece }
        })
      )
    }
    events.push(sse("content_block_stop", { type: "content_block_stop", index: blockIndex }))
    blockIndex++
  }
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: anthropicStop(answer.stop), stop_sequence: null },
      usage: anthropicUsage(answer.usage)
    }),
    sse("message_stop", { type: "message_stop" })
  )
  return events
}

const openAiJson = (answer: Answer, incoming: Incoming, index: number) => ({
  id: `chatcmpl-fake-${index}`,
  object: "chat.completion",
  created: 0,
  model: incoming.model,
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: answer.text.length > 0 ? answer.text : null,
        ...(answer.toolCalls.length > 0
          ? {
              tool_calls: answer.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) }
              }))
            }
          : {})
      },
      finish_reason: openAiFinish(answer.stop)
    }
  ],
  usage: openAiUsage(answer.usage)
})

const chunk = (incoming: Incoming, index: number, delta: unknown, finish: string | null = null) =>
  sse(undefined, {
    id: `chatcmpl-fake-${index}`,
    object: "chat.completion.chunk",
    created: 0,
    model: incoming.model,
    choices: [{ index: 0, delta, finish_reason: finish }]
  })

const openAiStreamHead = (incoming: Incoming, index: number, text: string): Array<string> => [
  chunk(incoming, index, { role: "assistant", content: "" }),
  ...pieces(text, 8).map((piece) => chunk(incoming, index, { content: piece }))
]

const openAiStream = (answer: Answer, incoming: Incoming, index: number): Array<string> => {
  const events = openAiStreamHead(incoming, index, answer.text)
  answer.toolCalls.forEach((call, i) => {
    events.push(
      chunk(incoming, index, {
        tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
      })
    )
    for (const piece of pieces(JSON.stringify(call.input ?? {}), 5)) {
      events.push(chunk(incoming, index, { tool_calls: [{ index: i, function: { arguments: piece } }] }))
    }
  })
  events.push(chunk(incoming, index, {}, openAiFinish(answer.stop)))
  events.push(
    sse(undefined, {
      id: `chatcmpl-fake-${index}`,
      object: "chat.completion.chunk",
      created: 0,
      model: incoming.model,
      choices: [],
      usage: openAiUsage(answer.usage)
    })
  )
  events.push(sse(undefined, "[DONE]"))
  return events
}

const errorBody = (
  api: "anthropic" | "openai",
  type: string,
  message: string,
  code: string | undefined
): Record<string, unknown> =>
  api === "anthropic"
    ? { type: "error", error: { type, message }, request_id: "req_fake" }
    : { error: { message, type, param: null, code: code ?? null } }

// ---------------------------------------------------------------------------
// The server

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
    const runtime = yield* Effect.runtime<never>()
    const recorded = yield* SubscriptionRef.make<ReadonlyArray<RecordedRequest>>([])
    const sockets = new Set<Net.Socket>()
    const fibers = new Set<Fiber.RuntimeFiber<void, never>>()
    let counter = 0

    const respond = (
      req: NodeHttp.IncomingMessage,
      res: NodeHttp.ServerResponse,
      raw: string,
      index: number
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const time = yield* Clock.currentTimeMillis
        const path = (req.url ?? "/").split("?")[0] ?? "/"
        const api: RecordedRequest["api"] = path.endsWith("/messages")
          ? "anthropic"
          : path.endsWith("/chat/completions")
            ? "openai"
            : "unknown"
        let body: unknown = raw
        let isJson = false
        try {
          body = JSON.parse(raw)
          isJson = true
        } catch {
          // recorded as text
        }
        if (api === "unknown") {
          yield* SubscriptionRef.update(recorded, (all) => [
            ...all,
            { index, time, api, path, model: undefined, stream: false, body }
          ])
          res.writeHead(404, jsonHeaders).end(JSON.stringify({ error: { message: `no route ${path}` } }))
          return
        }
        const incoming = view(api, body, raw, keyOf(req))
        yield* SubscriptionRef.update(recorded, (all) => [
          ...all,
          { index, time, api, path, model: incoming.model, stream: incoming.stream, body }
        ])
        if (!isJson) {
          res
            .writeHead(400, jsonHeaders)
            .end(JSON.stringify(errorBody(api, "invalid_request_error", "request body is not JSON", undefined)))
          return
        }
        const step = FaultPlan.stepAt(plan, index)
        if (step.delay_ms !== undefined && step.delay_ms > 0) yield* Effect.sleep(step.delay_ms)
        yield* render(step, incoming, index, req, res)
      })

    const writeAll = (res: NodeHttp.ServerResponse, events: ReadonlyArray<string>) =>
      Effect.sync(() => {
        for (const event of events) res.write(event)
      })

    const render = (
      step: FaultPlan.Step,
      incoming: Incoming,
      index: number,
      req: NodeHttp.IncomingMessage,
      res: NodeHttp.ServerResponse
    ): Effect.Effect<void> => {
      const api = incoming.api
      const streamHead = (text: string) =>
        api === "anthropic" ? anthropicStreamHead(incoming, index, text) : openAiStreamHead(incoming, index, text)
      switch (step.kind) {
        case "happy":
        case "reply": {
          const answer = step.kind === "happy" ? happyAnswer(incoming, index) : replyAnswer(step, incoming, index)
          const headers = step.kind === "reply" ? (step.headers ?? {}) : {}
          if (api === "openai" && answer.stop === "model_context_window_exceeded") {
            return Effect.sync(() =>
              res
                .writeHead(400, jsonHeaders)
                .end(
                  JSON.stringify(
                    errorBody(
                      api,
                      "invalid_request_error",
                      `This model's maximum context length is 8192 tokens. However, your messages resulted in ${incoming.inputTokens + 8192} tokens.`,
                      "context_length_exceeded"
                    )
                  )
                )
            )
          }
          if (incoming.stream) {
            const events =
              api === "anthropic" ? anthropicStream(answer, incoming, index) : openAiStream(answer, incoming, index)
            return Effect.sync(() => {
              res.writeHead(200, { ...sseHeaders, ...headers })
              for (const event of events) res.write(event)
              res.end()
            })
          }
          const json =
            api === "anthropic" ? anthropicJson(answer, incoming, index) : openAiJson(answer, incoming, index)
          return Effect.sync(() => res.writeHead(200, { ...jsonHeaders, ...headers }).end(JSON.stringify(json)))
        }
        case "error": {
          const message = `${step.message ?? step.error_type}${step.echo_key === true ? ` (key: ${incoming.key})` : ""}`
          return Effect.sync(() =>
            res
              .writeHead(step.status, { ...jsonHeaders, ...step.headers })
              .end(JSON.stringify(errorBody(api, step.error_type, message, step.code)))
          )
        }
        case "raw":
          return Effect.sync(() => res.writeHead(step.status, { ...step.headers }).end(step.body))
        case "stream_error": {
          const message = step.message ?? step.error_type
          if (!incoming.stream) {
            return Effect.sync(() =>
              res.writeHead(500, jsonHeaders).end(JSON.stringify(errorBody(api, step.error_type, message, step.code)))
            )
          }
          return Effect.sync(() => {
            res.writeHead(200, sseHeaders)
            for (const event of streamHead(step.text ?? "")) res.write(event)
            res.write(
              api === "anthropic"
                ? sse("error", errorBody(api, step.error_type, message, step.code))
                : sse(undefined, errorBody(api, step.error_type, message, step.code))
            )
            res.end()
          })
        }
        case "truncate": {
          if (!incoming.stream) {
            const json = JSON.stringify(
              api === "anthropic"
                ? anthropicJson(
                    replyAnswer({ kind: "reply", text: step.text ?? "partial" }, incoming, index),
                    incoming,
                    index
                  )
                : openAiJson(
                    replyAnswer({ kind: "reply", text: step.text ?? "partial" }, incoming, index),
                    incoming,
                    index
                  )
            )
            return Effect.sync(() => res.writeHead(200, jsonHeaders).end(json.slice(0, Math.floor(json.length / 2))))
          }
          return Effect.sync(() => {
            res.writeHead(200, sseHeaders)
            for (const event of streamHead(step.text ?? "")) res.write(event)
            res.end()
          })
        }
        case "stall":
          return Effect.zipRight(
            Effect.sync(() => {
              if (incoming.stream) {
                res.writeHead(200, sseHeaders)
                for (const event of streamHead(step.text ?? "")) res.write(event)
              } else {
                res.writeHead(200, jsonHeaders)
                res.write('{"id": "msg_fake", ')
              }
            }),
            Effect.never
          )
        case "hang":
          return Effect.never
        case "reset":
          return Effect.sync(() => {
            if (step.text !== undefined && incoming.stream) {
              res.writeHead(200, sseHeaders)
              for (const event of streamHead(step.text)) res.write(event)
              // Let the partial stream reach the client before the RST.
              setTimeout(() => req.socket.resetAndDestroy(), 20)
            } else {
              req.socket.resetAndDestroy()
            }
          })
        case "oversize":
          return Effect.zipRight(
            Effect.sync(() => res.writeHead(200, jsonHeaders)),
            writeAll(res, [`{"pad":"${"x".repeat(Math.max(0, step.bytes - 10))}"}`]).pipe(
              Effect.zipRight(Effect.sync(() => res.end()))
            )
          )
      }
    }

    const server = NodeHttp.createServer((req, res) => {
      const parts: Array<Buffer> = []
      req.on("data", (part: Buffer) => parts.push(part))
      req.on("end", () => {
        const index = counter++
        const fiber = Runtime.runFork(runtime)(
          respond(req, res, Buffer.concat(parts).toString("utf8"), index).pipe(
            Effect.catchAllDefect((defect) =>
              Effect.sync(() => {
                if (!res.headersSent) res.writeHead(500, jsonHeaders)
                res.end(JSON.stringify({ error: { message: `fake provider defect: ${String(defect)}` } }))
              })
            )
          )
        )
        fibers.add(fiber)
        fiber.addObserver(() => fibers.delete(fiber))
      })
    })
    server.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })

    yield* Effect.async<void, FakeProviderError>((resume) => {
      const onError = (error: Error) => resume(Effect.fail(new FakeProviderError({ message: error.message })))
      server.once("error", onError)
      server.listen(options?.port ?? 0, options?.host ?? "127.0.0.1", () => {
        server.off("error", onError)
        resume(Effect.void)
      })
    })
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Fiber.interruptAll([...fibers])
        yield* Effect.async<void>((resume) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resume(Effect.void))
        })
      })
    )

    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const host = options?.host ?? "127.0.0.1"
    const url = `http://${host}:${port}`
    return {
      url,
      openAiBaseUrl: `${url}/v1`,
      port,
      requests: SubscriptionRef.get(recorded),
      awaitRequests: (count: number) =>
        recorded.changes.pipe(
          Stream.filter((all) => all.length >= count),
          Stream.take(1),
          Stream.runHead,
          Effect.map(Option.getOrElse((): ReadonlyArray<RecordedRequest> => []))
        )
    }
  })
