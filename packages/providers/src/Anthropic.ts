/**
 * The Anthropic Messages API as a kernel `ModelProvider`, built directly on
 * @effect/platform's `HttpClient` (no vendor SDK, no retries: only the kernel
 * retries).
 *
 * @since 0.1.0
 */
import type * as Sse from "@effect/experimental/Sse"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { Content } from "@agent-kernel/kernel"
import { ModelProvider } from "@agent-kernel/kernel"
import type { ModelError } from "@agent-kernel/kernel"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Classification from "./Classification.js"
import * as Wire from "./internal/anthropicWire.js"
import * as Http from "./internal/http.js"
import type * as Timeouts from "./Timeouts.js"
import type { Transport } from "./Transport.js"

/**
 * Options of the Anthropic provider. Every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: `Config.redacted("ANTHROPIC_API_KEY")`. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The base URL without `/v1`. Default: `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`. */
  readonly baseUrl?: string | undefined
  /** Stream over SSE. Default: `true`. */
  readonly stream?: boolean | undefined
  readonly timeouts?: Timeouts.Options | undefined
  /** Largest response body (or single SSE event) accepted. Default: 32 MiB. */
  readonly maxBodyBytes?: number | undefined
  /** `max_tokens` when the request sets no `max_output_tokens`. Default: 4096. */
  readonly defaultMaxTokens?: number | undefined
  /** The `anthropic-version` header. Default: `2023-06-01`. */
  readonly version?: string | undefined
  /** The provider name in errors and events. Default: `anthropic`. */
  readonly name?: string | undefined
  /** Extra request headers (for example `anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The default base URL.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.anthropic.com"

type WireBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | {
      readonly type: "tool_result"
      readonly tool_use_id: string
      readonly content: string
      readonly is_error: boolean
    }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }

const toWireBlocks = (block: Content.ContentBlock): ReadonlyArray<WireBlock> => {
  switch (block.type) {
    case "text":
      // The API rejects empty text blocks.
      return block.text.length === 0 ? [] : [{ type: "text", text: block.text }]
    case "tool_use":
      return [{ type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} }]
    case "tool_result":
      return [{ type: "tool_result", tool_use_id: block.tool_use_id, content: block.content, is_error: block.is_error }]
    case "thinking":
      // Thinking can only be sent back with its signature.
      return block.signature === undefined
        ? []
        : [{ type: "thinking", thinking: block.thinking, signature: block.signature }]
  }
}

/**
 * Translates a kernel request to the Messages API body.
 *
 * @since 0.1.0
 * @category wire
 */
export const toWire = (
  request: ModelProvider.ModelRequest,
  options: { readonly stream: boolean; readonly defaultMaxTokens: number }
): Record<string, unknown> => ({
  model: request.model,
  max_tokens: request.max_output_tokens ?? options.defaultMaxTokens,
  ...(request.system !== undefined && request.system.length > 0 ? { system: request.system } : {}),
  messages: request.messages.map((message) => ({
    role: message.role,
    content: message.content.flatMap(toWireBlocks)
  })),
  ...(request.tools.length > 0
    ? {
        tools: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          input_schema: tool.input_schema
        }))
      }
    : {}),
  ...(options.stream ? { stream: true } : {})
})

/**
 * The error facts of an Anthropic error body (`{type: "error", error: {type, message}}`).
 *
 * @since 0.1.0
 * @category wire
 */
export const errorFacts = (body: unknown): Option.Option<Omit<Classification.Facts, "status">> =>
  Option.map(Schema.decodeUnknownOption(Wire.ErrorBody)(body), (decoded) => ({
    type: decoded.error.type,
    message: decoded.error.message
  }))

const usageOf = (usage: Wire.Usage | undefined): ModelProvider.Usage => ({
  input_tokens: usage?.input_tokens ?? 0,
  output_tokens: usage?.output_tokens ?? 0,
  ...(usage?.cache_read_input_tokens != null ? { cache_read_tokens: usage.cache_read_input_tokens } : {}),
  ...(usage?.cache_creation_input_tokens != null ? { cache_write_tokens: usage.cache_creation_input_tokens } : {})
})

const parseToolInput = (json: string, fallback: unknown): unknown => {
  if (json.trim().length === 0) return fallback ?? {}
  const parsed = Http.parseJson(json)
  // Invalid JSON from the model goes to the toolbox as the raw string, so it
  // becomes an error tool_result the model can see and fix.
  return Option.getOrElse(parsed, () => json)
}

type Finish = { readonly _tag: "Stop"; readonly stop: ModelProvider.StopReason } | { readonly _tag: "ContextWindow" }

const finishOf = (stopReason: string | null | undefined, content: ReadonlyArray<Content.ContentBlock>): Finish => {
  switch (stopReason) {
    case "end_turn":
    case "pause_turn":
      return { _tag: "Stop", stop: "end_turn" }
    case "tool_use":
      return { _tag: "Stop", stop: "tool_use" }
    case "max_tokens":
      return { _tag: "Stop", stop: "max_tokens" }
    case "stop_sequence":
      return { _tag: "Stop", stop: "stop_sequence" }
    case "refusal":
      return { _tag: "Stop", stop: "content_filtered" }
    case "model_context_window_exceeded":
      return { _tag: "ContextWindow" }
    default:
      return { _tag: "Stop", stop: content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn" }
  }
}

const finish = (
  call: Http.Call,
  model: string,
  content: ReadonlyArray<Content.ContentBlock>,
  stopReason: string | null | undefined,
  usage: ModelProvider.Usage
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> => {
  const result = finishOf(stopReason, content)
  if (result._tag === "ContextWindow") {
    return Effect.fail(
      Http.makeError(call, "context_length_exceeded", {
        message: "stop_reason model_context_window_exceeded: the model ran out of context window",
        details: { rule: "anthropic.stop_reason.model_context_window_exceeded", usage },
        promptTokens: usage.input_tokens
      })
    )
  }
  return Effect.succeed({ model, content, stop_reason: result.stop, usage })
}

const contentOf = (blocks: ReadonlyArray<Wire.Block>): ReadonlyArray<Content.ContentBlock> =>
  blocks.flatMap((block): ReadonlyArray<Content.ContentBlock> => {
    if ("text" in block && block.type === "text") return [{ type: "text", text: block.text }]
    if ("id" in block && block.type === "tool_use")
      return [{ type: "tool_use", id: block.id, name: block.name, input: block.input }]
    if ("thinking" in block && block.type === "thinking")
      return [
        {
          type: "thinking",
          thinking: block.thinking,
          ...(block.signature !== undefined ? { signature: block.signature } : {})
        }
      ]
    return []
  })

const decodeMessage = Schema.decodeUnknownEither(Wire.Message)

const fromJsonBody = (
  response: HttpClientResponse.HttpClientResponse,
  call: Http.Call
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> =>
  Effect.gen(function* () {
    const text = yield* Http.readText(response, call)
    const json = Http.parseJson(text)
    if (Option.isNone(json))
      return yield* Effect.fail(Http.malformed(call, response.status, "not JSON", { body: text }))
    const decoded = decodeMessage(json.value)
    if (decoded._tag === "Left")
      return yield* Effect.fail(
        Http.malformed(call, response.status, `unexpected shape: ${decoded.left.message}`, { body: text })
      )
    const message = decoded.right
    return yield* finish(
      call,
      message.model ?? call.model,
      contentOf(message.content),
      message.stop_reason,
      usageOf(message.usage)
    )
  })

type Building =
  | { kind: "text"; text: string }
  | { kind: "tool"; id: string; name: string; json: string; initial: unknown }
  | { kind: "thinking"; thinking: string; signature: string | undefined }
  | { kind: "other" }

const blockOf = (block: Building): ReadonlyArray<Content.ContentBlock> => {
  if (block.kind === "text") return [{ type: "text", text: block.text }]
  if (block.kind === "tool")
    return [{ type: "tool_use", id: block.id, name: block.name, input: parseToolInput(block.json, block.initial) }]
  if (block.kind === "thinking")
    return [
      {
        type: "thinking",
        thinking: block.thinking,
        ...(block.signature !== undefined ? { signature: block.signature } : {})
      }
    ]
  return []
}

const decodeEvent = Schema.decodeUnknownEither(Wire.StreamEvent)
const decodeEventType = Schema.decodeUnknownOption(Wire.EventType)

const fromStream = (
  response: HttpClientResponse.HttpClientResponse,
  call: Http.Call
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> =>
  Effect.gen(function* () {
    const blocks = new Map<number, Building>()
    let model = call.model
    let usage: Wire.Usage = {}
    let stopReason: string | null | undefined
    let done = false

    const malformed = (reason: string, body: string) =>
      Effect.fail(Http.malformed(call, response.status, reason, { midStream: true, body }))

    const handle = (event: Sse.Event): Effect.Effect<void, ModelError.ModelError> => {
      const json = Http.parseJson(event.data)
      if (Option.isNone(json)) return malformed(`event ${event.event} is not JSON`, event.data)
      const type = Option.map(decodeEventType(json.value), (_) => _.type)
      // Unknown event types are allowed by the API's versioning policy.
      if (Option.isSome(type) && !Wire.streamEventTypes.has(type.value) && event.event !== "error") return Effect.void
      const decoded = decodeEvent(json.value)
      if (decoded._tag === "Left") {
        if (event.event === "error") {
          return Effect.flatMap(
            Http.classify(
              call,
              { message: event.data },
              { headers: response.headers, body: json.value, midStream: true }
            ),
            Effect.fail
          )
        }
        return malformed(`unexpected ${event.event} event: ${decoded.left.message}`, event.data)
      }
      const value = decoded.right
      switch (value.type) {
        case "message_start":
          model = value.message.model ?? model
          usage = { ...usage, ...stripNulls(value.message.usage) }
          return Effect.void
        case "content_block_start": {
          const block = value.content_block
          blocks.set(
            value.index,
            block.type === "text" && "text" in block
              ? { kind: "text", text: block.text }
              : block.type === "tool_use" && "id" in block
                ? { kind: "tool", id: block.id, name: block.name, json: "", initial: block.input }
                : block.type === "thinking" && "thinking" in block
                  ? { kind: "thinking", thinking: block.thinking, signature: block.signature }
                  : { kind: "other" }
          )
          return Effect.void
        }
        case "content_block_delta": {
          const current = blocks.get(value.index)
          if (current === undefined) return malformed(`delta for unknown block ${value.index}`, event.data)
          const delta = value.delta
          if ("text" in delta && current.kind === "text") current.text += delta.text
          else if ("partial_json" in delta && current.kind === "tool") current.json += delta.partial_json
          else if ("thinking" in delta && current.kind === "thinking") current.thinking += delta.thinking
          else if ("signature" in delta && current.kind === "thinking") current.signature = delta.signature
          return Effect.void
        }
        case "content_block_stop":
        case "ping":
          return Effect.void
        case "message_delta":
          if (value.delta.stop_reason !== undefined) stopReason = value.delta.stop_reason
          usage = { ...usage, ...stripNulls(value.usage) }
          return Effect.void
        case "message_stop":
          done = true
          return Effect.void
        case "error":
          return Effect.flatMap(
            Http.classify(
              call,
              { type: value.error.type, message: value.error.message },
              { headers: response.headers, body: json.value, midStream: true }
            ),
            Effect.fail
          )
      }
    }

    yield* Stream.runForEach(
      Stream.takeUntil(Http.sseEvents(response, call), () => done),
      handle
    )
    if (!done) {
      return yield* Effect.fail(
        Http.malformed(call, response.status, "stream ended before message_stop (truncated)", { midStream: true })
      )
    }
    const content = [...blocks.entries()].sort(([a], [b]) => a - b).flatMap(([, block]) => blockOf(block))
    return yield* finish(call, model, content, stopReason, usageOf(usage))
  })

const stripNulls = (usage: Wire.Usage | undefined): Wire.Usage => {
  if (usage === undefined) return {}
  const out: Record<string, number> = {}
  for (const [key, value] of Object.entries(usage)) if (typeof value === "number") out[key] = value
  return out
}

/**
 * Builds the provider from options and `Config`.
 *
 * @example
 * ```ts
 * import { Anthropic, Transport } from "@agent-kernel/providers"
 * import { Effect, Layer } from "effect"
 *
 * const ModelLive = Anthropic.layer({ stream: true, timeouts: { idle: "30 seconds" } }).pipe(
 *   Layer.provide(Transport.layer())
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<ModelProvider.ModelProvider["Type"], ConfigError.ConfigError, Transport> =>
  Effect.gen(function* () {
    const { transport, apiKey, baseUrl, name, stream, callOf } = yield* Http.configure(options, {
      name: "anthropic",
      keyVariable: "ANTHROPIC_API_KEY",
      baseUrlVariable: "ANTHROPIC_BASE_URL",
      defaultBaseUrl,
      table: Classification.anthropic
    })
    const defaultMaxTokens = options?.defaultMaxTokens ?? 4096
    const url = `${baseUrl}/v1/messages`

    const generate = Effect.fn("Anthropic.generate")(function* (request: ModelProvider.ModelRequest) {
      yield* Effect.annotateCurrentSpan({ provider: name, model: request.model, stream })
      const call = callOf(request.model)
      return yield* Http.exchange(transport, call, wire, {
        url,
        headers: {
          ...options?.headers,
          "x-api-key": Redacted.value(apiKey),
          "anthropic-version": options?.version ?? "2023-06-01",
          accept: stream ? "text/event-stream" : "application/json"
        },
        body: toWire(request, { stream, defaultMaxTokens })
      })
    })

    return ModelProvider.make(name, generate)
  })

/**
 * The provider as a layer. Requires a `Transport` (usually `Transport.layer()`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<ModelProvider.ModelProvider, ConfigError.ConfigError, Transport> =>
  Layer.effect(ModelProvider.ModelProvider, make(options))

const wire: Http.Wire = { errorFacts, fromJsonBody, fromStream }
