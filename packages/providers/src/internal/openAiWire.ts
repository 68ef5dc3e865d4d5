/**
 * OpenAI Chat Completions wire shapes, decoded with Schema, and the pure
 * decoder of its responses (JSON bodies and SSE streams).
 *
 * @internal
 */
import type { Content, ModelProvider } from "@agent-kernel/kernel"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Decode from "./decode.js"
import * as Http from "./http.js"

const OptionalString = Schema.optional(Schema.NullOr(Schema.String))

export const ToolCall = Schema.Struct({
  // Some compatible servers leave it out; the kernel gives every call a unique id before tools run.
  id: OptionalString,
  type: Schema.optional(Schema.String),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

export const Usage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  prompt_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))
  )
})
export type Usage = typeof Usage.Type

export const Completion = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.NonEmptyArray(
    Schema.Struct({
      message: Schema.Struct({
        content: OptionalString,
        refusal: OptionalString,
        tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ToolCall)))
      }),
      finish_reason: OptionalString
    })
  ),
  usage: Schema.optional(Schema.NullOr(Usage))
})

export const DeltaToolCall = Schema.Struct({
  index: Schema.Number,
  id: OptionalString,
  function: Schema.optional(Schema.Struct({ name: OptionalString, arguments: OptionalString }))
})

export const Chunk = Schema.Struct({
  model: Schema.optional(Schema.String),
  // Absent in the keep-alive chunks (`data: {}`) some compatible servers send: such a chunk carries nothing.
  choices: Schema.optionalWith(
    Schema.Array(
      Schema.Struct({
        delta: Schema.optional(
          Schema.NullOr(
            Schema.Struct({
              content: OptionalString,
              refusal: OptionalString,
              tool_calls: Schema.optional(Schema.NullOr(Schema.Array(DeltaToolCall)))
            })
          )
        ),
        finish_reason: OptionalString
      })
    ),
    { default: () => [] }
  ),
  usage: Schema.optional(Schema.NullOr(Usage))
})
export type Chunk = typeof Chunk.Type

export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    message: OptionalString,
    type: OptionalString,
    code: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
    /** Azure OpenAI: the content filter's verdict (`ResponsibleAIPolicyViolation`). */
    innererror: Schema.optional(Schema.NullOr(Schema.Struct({ code: OptionalString })))
  })
})

// ---------------------------------------------------------------------------
// Decoding: pure, over the schemas above.

const decodeErrorBody = Schema.decodeUnknownOption(ErrorBody)
const decodeCompletion = Schema.decodeUnknownEither(Completion)
const decodeChunk = Schema.decodeUnknownEither(Chunk)

/** The facts of an error object (`{error: {message, type, code, innererror?: {code}}}`). */
export const errorFacts = (body: unknown): Option.Option<Decode.ErrorFacts> =>
  Option.map(decodeErrorBody(body), ({ error }) => ({
    type: error.type ?? undefined,
    code: error.code === null || error.code === undefined ? undefined : String(error.code),
    innerCode: error.innererror?.code ?? undefined,
    message: error.message ?? undefined
  }))

/** `input_tokens` excludes cached prompt tokens, which are reported as `cache_read_tokens`, as Anthropic does. */
const usageOf = (usage: Usage | null | undefined): ModelProvider.Usage => {
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

interface ToolCallParts {
  readonly id: string
  readonly name: string
  readonly args: string
}

const assemble = (
  model: string,
  text: string,
  refusal: string,
  toolCalls: ReadonlyArray<ToolCallParts>,
  finish: string | null | undefined,
  usage: Usage | null | undefined
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

/** A complete Chat Completions response. */
export const message = (json: unknown, model: string): Either.Either<ModelProvider.ModelResponse, Decode.Failure> =>
  Either.match(decodeCompletion(json), {
    onLeft: (error) => Either.left({ _tag: "Malformed", reason: `unexpected shape: ${error.message}` }),
    onRight: (completion) => {
      const choice = completion.choices[0]
      return Either.right(
        assemble(
          completion.model ?? model,
          choice.message.content ?? "",
          choice.message.refusal ?? "",
          (choice.message.tool_calls ?? []).map((tool) => ({
            id: tool.id ?? "",
            name: tool.function.name,
            args: tool.function.arguments
          })),
          choice.finish_reason,
          completion.usage
        )
      )
    }
  })

/** What a stream has said so far. */
export interface StreamState {
  readonly model: string
  readonly text: string
  readonly refusal: string
  readonly tools: ReadonlyMap<number, ToolCallParts>
  readonly finish: string | null | undefined
  readonly usage: Usage | null | undefined
  readonly done: boolean
}

const applyToolPart = (
  tools: ReadonlyMap<number, ToolCallParts>,
  part: typeof DeltaToolCall.Type
): ReadonlyMap<number, ToolCallParts> => {
  const current = tools.get(part.index) ?? { id: "", name: "", args: "" }
  return new Map(tools).set(part.index, {
    id: part.id != null && part.id.length > 0 ? part.id : current.id,
    name: current.name + (part.function?.name ?? ""),
    args: current.args + (part.function?.arguments ?? "")
  })
}

const hasText = (value: string | null | undefined): boolean => value != null && value.length > 0

/** Whether a chunk says anything: text, a refusal, a tool call part, a finish reason or usage. */
const carriesContent = (chunk: Chunk): boolean =>
  chunk.usage != null ||
  chunk.choices.some(
    (choice) =>
      choice.finish_reason != null ||
      hasText(choice.delta?.content) ||
      hasText(choice.delta?.refusal) ||
      (choice.delta?.tool_calls ?? []).some(
        (part) => hasText(part.id) || hasText(part.function?.name) || hasText(part.function?.arguments)
      )
  )

const stepStream = (
  state: StreamState,
  event: Decode.Event
): Either.Either<Decode.Stepped<StreamState>, Decode.Failure> => {
  if (event.data.trim() === "[DONE]")
    return Either.right({ state: { ...state, done: true }, content: true, done: true })
  if (Option.isNone(event.json)) {
    return Either.left({ _tag: "Malformed", reason: "stream chunk is not JSON", body: event.data })
  }
  const decoded = decodeChunk(event.json.value)
  if (Either.isLeft(decoded)) {
    return Either.left({ _tag: "Malformed", reason: `unexpected chunk: ${decoded.left.message}`, body: event.data })
  }
  const chunk = decoded.right
  let next: StreamState = {
    ...state,
    model: chunk.model ?? state.model,
    usage: chunk.usage != null ? chunk.usage : state.usage
  }
  for (const choice of chunk.choices) {
    const delta = choice.delta
    next = {
      ...next,
      finish: choice.finish_reason != null ? choice.finish_reason : next.finish,
      text: next.text + (delta?.content ?? ""),
      refusal: next.refusal + (delta?.refusal ?? ""),
      tools: (delta?.tool_calls ?? []).reduce(applyToolPart, next.tools)
    }
  }
  return Either.right({ state: next, content: carriesContent(chunk), done: false })
}

const finishStream = (state: StreamState): Either.Either<ModelProvider.ModelResponse, Decode.Failure> => {
  // Without `[DONE]` (some compatible servers omit it) a finish reason still
  // marks a complete answer. No finish reason means the answer was cut short,
  // even when `[DONE]` came (the official SDK treats that as an error too).
  if (state.finish == null) {
    return Either.left({
      _tag: "Truncated",
      reason: state.done ? "[DONE] without a finish_reason" : "stream ended before a finish_reason"
    })
  }
  const calls = [...state.tools.entries()].sort(([a], [b]) => a - b).map(([, value]) => value)
  return Either.right(assemble(state.model, state.text, state.refusal, calls, state.finish, state.usage))
}

/** The Chat Completions decoder: JSON bodies and SSE streams. */
export const decoder: Decode.Decoder<StreamState> = {
  errorFacts,
  message,
  stream: {
    initial: (model) => ({
      model,
      text: "",
      refusal: "",
      tools: new Map(),
      finish: undefined,
      usage: undefined,
      done: false
    }),
    step: stepStream,
    finish: finishStream,
    usage: (state) => (state.usage == null ? Option.none() : Option.some(usageOf(state.usage)))
  }
}
