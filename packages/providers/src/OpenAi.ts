/**
 * OpenAI Chat Completions as a kernel `ModelProvider`, built directly on
 * @effect/platform's `HttpClient`. Works with OpenAI-compatible servers
 * through the base URL. It never retries: only the kernel does.
 *
 * Mapping notes:
 * - tool results (kernel `tool_result` blocks in user messages) become
 *   `role: "tool"` messages; an error result's content is prefixed with
 *   `Error: `, since the format has no error flag.
 * - thinking blocks are not sent (the format has no place for them).
 * - usage: `input_tokens` excludes cached prompt tokens, which are reported
 *   as `cache_read_tokens`, as Anthropic does.
 *
 * @since 0.1.0
 */
import type * as Sse from "@effect/experimental/Sse"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { Content, ModelError } from "@agent-kernel/kernel"
import { ModelProvider } from "@agent-kernel/kernel"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Classification from "./Classification.js"
import * as Http from "./internal/http.js"
import * as Wire from "./internal/openAiWire.js"
import type * as Timeouts from "./Timeouts.js"
import type { Transport } from "./Transport.js"

/**
 * Options of the OpenAI provider. Every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: `Config.redacted("OPENAI_API_KEY")`. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The base URL including `/v1`. Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  readonly baseUrl?: string | undefined
  /** Stream over SSE. Default: `true`. */
  readonly stream?: boolean | undefined
  readonly timeouts?: Timeouts.Options | undefined
  /** Largest response body (or single SSE event) accepted. Default: 32 MiB. */
  readonly maxBodyBytes?: number | undefined
  /**
   * The field carrying `max_output_tokens`. Default: `max_completion_tokens`;
   * some compatible servers only know `max_tokens`.
   */
  readonly maxTokensField?: "max_completion_tokens" | "max_tokens" | undefined
  /**
   * Ask for usage in the stream (`stream_options.include_usage`). Default:
   * `true`; turn off for compatible servers that reject `stream_options`.
   */
  readonly streamUsage?: boolean | undefined
  /** The provider name in errors and events. Default: `openai`. */
  readonly name?: string | undefined
  /** Extra request headers (for example `OpenAI-Organization`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The default base URL.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.openai.com/v1"

const textOf = (blocks: ReadonlyArray<Content.ContentBlock>): string =>
  blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("")

/**
 * Translates the kernel's messages to Chat Completions messages.
 *
 * @since 0.1.0
 * @category wire
 */
export const toWireMessages = (
  system: string | undefined,
  messages: ReadonlyArray<Content.Message>
): ReadonlyArray<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  if (system !== undefined && system.length > 0) out.push({ role: "system", content: system })
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = textOf(message.content)
      const toolCalls = message.content.flatMap((block) =>
        block.type === "tool_use"
          ? [
              {
                id: block.id,
                type: "function",
                function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) }
              }
            ]
          : []
      )
      out.push({
        role: "assistant",
        content: text.length > 0 ? text : null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {})
      })
      continue
    }
    // Tool results must directly follow the assistant message that asked for them.
    for (const block of message.content) {
      if (block.type === "tool_result") {
        out.push({
          role: "tool",
          tool_call_id: block.tool_use_id,
          content: block.is_error ? `Error: ${block.content}` : block.content
        })
      }
    }
    const text = textOf(message.content)
    if (text.length > 0 || message.content.length === 0) out.push({ role: "user", content: text })
  }
  return out
}

/**
 * Translates a kernel request to the Chat Completions body.
 *
 * @since 0.1.0
 * @category wire
 */
export const toWire = (
  request: ModelProvider.ModelRequest,
  options: {
    readonly stream: boolean
    readonly maxTokensField: "max_completion_tokens" | "max_tokens"
    readonly streamUsage?: boolean | undefined
  }
): Record<string, unknown> => ({
  model: request.model,
  messages: toWireMessages(request.system, request.messages),
  ...(request.tools.length > 0
    ? {
        tools: request.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.input_schema }
        }))
      }
    : {}),
  ...(request.max_output_tokens !== undefined ? { [options.maxTokensField]: request.max_output_tokens } : {}),
  ...(options.stream
    ? { stream: true, ...(options.streamUsage !== false ? { stream_options: { include_usage: true } } : {}) }
    : {})
})

/**
 * The error facts of an OpenAI error body (`{error: {message, type, code}}`).
 *
 * @since 0.1.0
 * @category wire
 */
export const errorFacts = (body: unknown): Option.Option<Omit<Classification.Facts, "status">> =>
  Option.map(Schema.decodeUnknownOption(Wire.ErrorBody)(body), ({ error }) => ({
    type: error.type ?? undefined,
    code: error.code === null || error.code === undefined ? undefined : String(error.code),
    message: error.message ?? undefined
  }))

const usageOf = (usage: Wire.Usage | null | undefined): ModelProvider.Usage => {
  if (usage == null) return { input_tokens: 0, output_tokens: 0 }
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - cached),
    output_tokens: usage.completion_tokens,
    ...(cached > 0 ? { cache_read_tokens: cached } : {})
  }
}

const parseArguments = (json: string): unknown => {
  if (json.trim().length === 0) return {}
  // Invalid JSON from the model goes to the toolbox as the raw string, so it
  // becomes an error tool_result the model can see and fix.
  return Option.getOrElse(Http.parseJson(json), () => json)
}

const stopOf = (finish: string | null | undefined, hasToolCalls: boolean): ModelProvider.StopReason => {
  switch (finish) {
    case "stop":
      return "end_turn"
    case "length":
      return "max_tokens"
    case "tool_calls":
    case "function_call":
      return "tool_use"
    case "content_filter":
      return "content_filtered"
    default:
      return hasToolCalls ? "tool_use" : "end_turn"
  }
}

const assemble = (
  model: string,
  text: string,
  refusal: string,
  toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly args: string }>,
  finish: string | null | undefined,
  usage: Wire.Usage | null | undefined
): ModelProvider.ModelResponse => {
  const content: Array<Content.ContentBlock> = []
  if (text.length > 0) content.push({ type: "text", text })
  if (refusal.length > 0) content.push({ type: "text", text: refusal })
  for (const call of toolCalls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: parseArguments(call.args) })
  }
  const stop = refusal.length > 0 ? "content_filtered" : stopOf(finish, toolCalls.length > 0)
  return { model, content, stop_reason: stop, usage: usageOf(usage) }
}

const decodeCompletion = Schema.decodeUnknownEither(Wire.Completion)

const fromJsonBody = (
  response: HttpClientResponse.HttpClientResponse,
  call: Http.Call
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> =>
  Effect.gen(function* () {
    const text = yield* Http.readText(response, call)
    const json = Http.parseJson(text)
    if (Option.isNone(json))
      return yield* Effect.fail(Http.malformed(call, response.status, "not JSON", { body: text }))
    const facts = errorFacts(json.value)
    if (Option.isSome(facts)) {
      // Some compatible servers answer 200 with an error body.
      return yield* Effect.flip(Http.classify(call, facts.value, { headers: response.headers, body: json.value }))
    }
    const decoded = decodeCompletion(json.value)
    if (decoded._tag === "Left")
      return yield* Effect.fail(
        Http.malformed(call, response.status, `unexpected shape: ${decoded.left.message}`, { body: text })
      )
    const completion = decoded.right
    const choice = completion.choices[0]
    return assemble(
      completion.model ?? call.model,
      choice.message.content ?? "",
      choice.message.refusal ?? "",
      (choice.message.tool_calls ?? []).map((tool) => ({
        id: tool.id,
        name: tool.function.name,
        args: tool.function.arguments
      })),
      choice.finish_reason,
      completion.usage
    )
  })

const decodeChunk = Schema.decodeUnknownEither(Wire.Chunk)

const fromStream = (
  response: HttpClientResponse.HttpClientResponse,
  call: Http.Call
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> =>
  Effect.gen(function* () {
    let model = call.model
    let text = ""
    let refusal = ""
    const tools = new Map<number, { id: string; name: string; args: string }>()
    let finish: string | null | undefined
    let usage: Wire.Usage | null | undefined
    let done = false

    const handle = (event: Sse.Event): Effect.Effect<void, ModelError.ModelError> => {
      if (event.data.trim() === "[DONE]") {
        done = true
        return Effect.void
      }
      const json = Http.parseJson(event.data)
      if (Option.isNone(json)) {
        return Effect.fail(
          Http.malformed(call, response.status, "stream chunk is not JSON", { midStream: true, body: event.data })
        )
      }
      const facts = errorFacts(json.value)
      if (Option.isSome(facts) || event.event === "error") {
        return Effect.flatMap(
          Http.classify(
            call,
            Option.getOrElse(facts, () => ({ message: event.data })),
            {
              headers: response.headers,
              body: json.value,
              midStream: true
            }
          ),
          Effect.fail
        )
      }
      const decoded = decodeChunk(json.value)
      if (decoded._tag === "Left") {
        return Effect.fail(
          Http.malformed(call, response.status, `unexpected chunk: ${decoded.left.message}`, {
            midStream: true,
            body: event.data
          })
        )
      }
      const value = decoded.right
      model = value.model ?? model
      if (value.usage != null) usage = value.usage
      for (const choice of value.choices) {
        if (choice.finish_reason != null) finish = choice.finish_reason
        const delta = choice.delta
        if (delta == null) continue
        if (delta.content != null) text += delta.content
        if (delta.refusal != null) refusal += delta.refusal
        for (const part of delta.tool_calls ?? []) {
          const current = tools.get(part.index) ?? { id: "", name: "", args: "" }
          if (part.id != null && part.id.length > 0) current.id = part.id
          if (part.function?.name != null) current.name += part.function.name
          if (part.function?.arguments != null) current.args += part.function.arguments
          tools.set(part.index, current)
        }
      }
      return Effect.void
    }

    yield* Stream.runForEach(
      Stream.takeUntil(Http.sseEvents(response, call), () => done),
      handle
    )
    // Without `[DONE]` (some compatible servers omit it) a finish reason still
    // marks a complete answer; neither means the stream was cut short.
    if (!done && finish == null) {
      return yield* Effect.fail(
        Http.malformed(call, response.status, "stream ended before a finish_reason (truncated)", { midStream: true })
      )
    }
    const calls = [...tools.entries()].sort(([a], [b]) => a - b).map(([, value]) => value)
    return assemble(model, text, refusal, calls, finish, usage)
  })

/**
 * Builds the provider from options and `Config`.
 *
 * @example
 * ```ts
 * import { OpenAi, Transport } from "@agent-kernel/providers"
 * import { Layer } from "effect"
 *
 * // An OpenAI-compatible server (vLLM, Ollama...) through its base URL.
 * const ModelLive = OpenAi.layer({ baseUrl: "http://localhost:11434/v1", maxTokensField: "max_tokens" }).pipe(
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
      name: "openai",
      keyVariable: "OPENAI_API_KEY",
      baseUrlVariable: "OPENAI_BASE_URL",
      defaultBaseUrl,
      table: Classification.openAi
    })
    const maxTokensField = options?.maxTokensField ?? "max_completion_tokens"
    const url = `${baseUrl}/chat/completions`

    const generate = Effect.fn("OpenAi.generate")(function* (request: ModelProvider.ModelRequest) {
      yield* Effect.annotateCurrentSpan({ provider: name, model: request.model, stream })
      const call = callOf(request.model)
      return yield* Http.exchange(transport, call, wire, {
        url,
        headers: {
          ...options?.headers,
          authorization: `Bearer ${Redacted.value(apiKey)}`,
          accept: stream ? "text/event-stream" : "application/json"
        },
        body: toWire(request, { stream, maxTokensField, streamUsage: options?.streamUsage })
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
