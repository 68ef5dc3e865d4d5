/**
 * The parts of a streamed model response, and the one way a response is
 * built from them.
 *
 * A provider streams `ResponsePart`s as they arrive; the kernel publishes
 * deltas from them and folds them with the accumulator (`empty`, `add`,
 * `toResponse`) into the `ModelResponse` it appends to history. The one-shot
 * call (`ModelProvider.generate`), `ScriptedModel` and the effect/ai adapter
 * (`@agent-kernel/ai`) fold the same way, so there is one code path.
 *
 * Every part that belongs to a content block carries `index`, the provider's
 * position of that block (Anthropic's `index`; for OpenAI, text at 0 and tool
 * call k at 1 + k, or any stable scheme), so parts of different blocks may
 * interleave.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"
import * as internal from "./internal/responsePart.js"
import * as ModelProvider from "./ModelProvider.js"
import * as Usage from "./Usage.js"

/**
 * A fragment of a text block.
 *
 * @since 0.3.0
 * @category schemas
 */
export const TextDelta = Schema.Struct({
  type: Schema.Literal("text_delta"),
  index: Schema.Number,
  text: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export interface TextDelta extends Schema.Schema.Type<typeof TextDelta> {}

/**
 * A fragment of a thinking block.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ThinkingDelta = Schema.Struct({
  type: Schema.Literal("thinking_delta"),
  index: Schema.Number,
  text: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export interface ThinkingDelta extends Schema.Schema.Type<typeof ThinkingDelta> {}

/**
 * The signature of a thinking block (fragments are concatenated).
 *
 * @since 0.3.0
 * @category schemas
 */
export const ThinkingSignature = Schema.Struct({
  type: Schema.Literal("thinking_signature"),
  index: Schema.Number,
  signature: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export interface ThinkingSignature extends Schema.Schema.Type<typeof ThinkingSignature> {}

/**
 * A whole redacted thinking block (opaque data, sent back verbatim).
 *
 * @since 0.3.0
 * @category schemas
 */
export const RedactedThinking = Schema.Struct({
  type: Schema.Literal("redacted_thinking"),
  index: Schema.Number,
  data: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export interface RedactedThinking extends Schema.Schema.Type<typeof RedactedThinking> {}

/**
 * The start of a tool-use block: its id and tool name.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ToolUseStart = Schema.Struct({
  type: Schema.Literal("tool_use_start"),
  index: Schema.Number,
  id: Schema.String,
  name: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export interface ToolUseStart extends Schema.Schema.Type<typeof ToolUseStart> {}

/**
 * A raw fragment of a tool-use block's JSON input. Fragments are joined and
 * parsed only when the response is complete.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ToolInputDelta = Schema.Struct({
  type: Schema.Literal("tool_input_delta"),
  index: Schema.Number,
  json: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export interface ToolInputDelta extends Schema.Schema.Type<typeof ToolInputDelta> {}

/**
 * The usage of this response so far. A later `usage` part replaces an
 * earlier one: a provider that reports input and output tokens in separate
 * events merges them itself.
 *
 * @since 0.3.0
 * @category schemas
 */
export const UsagePart = Schema.Struct({ type: Schema.Literal("usage"), usage: Usage.Usage })

/**
 * @since 0.3.0
 * @category models
 */
export interface UsagePart extends Schema.Schema.Type<typeof UsagePart> {}

/**
 * Why the model stopped, and the model that answered when the provider says.
 * A complete stream ends with it.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Finish = Schema.Struct({
  type: Schema.Literal("finish"),
  stop_reason: ModelProvider.StopReason,
  model: Schema.optional(Schema.String)
})

/**
 * @since 0.3.0
 * @category models
 */
export interface Finish extends Schema.Schema.Type<typeof Finish> {}

/**
 * Any part of a streamed response.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ResponsePart = Schema.Union([
  TextDelta,
  ThinkingDelta,
  ThinkingSignature,
  RedactedThinking,
  ToolUseStart,
  ToolInputDelta,
  UsagePart,
  Finish
])

/**
 * @since 0.3.0
 * @category models
 */
export type ResponsePart = Schema.Schema.Type<typeof ResponsePart>

/**
 * A response being assembled from its parts. Opaque: read it with
 * `toResponse`, `text`, `usage` and `isFinished`.
 *
 * @since 0.3.0
 * @category models
 */
export interface Accumulator extends internal.State {}

/**
 * The accumulator before any part.
 *
 * @since 0.3.0
 * @category constructors
 */
export const empty: Accumulator = internal.empty

/**
 * Adds one part. Pure: the given accumulator is unchanged.
 *
 * @since 0.3.0
 * @category combinators
 */
export const add: (self: Accumulator, part: ResponsePart) => Accumulator = internal.add

/**
 * The response the parts so far make: blocks in index order, tool inputs
 * parsed. A tool input that is not a JSON object is not dropped: the block
 * keeps the raw text in `invalid_input`, with `input` `{}`. `model` is used
 * when no `finish` part named the model; without a `finish` part the stop
 * reason is `tool_use` when a tool was called, else `end_turn`.
 *
 * @example
 * ```ts
 * import { ResponsePart } from "@agent-kernel/kernel"
 *
 * const parts: ReadonlyArray<ResponsePart.ResponsePart> = [
 *   { type: "text_delta", index: 0, text: "Hel" },
 *   { type: "text_delta", index: 0, text: "lo" },
 *   { type: "finish", stop_reason: "end_turn" }
 * ]
 * const response = ResponsePart.toResponse(parts.reduce(ResponsePart.add, ResponsePart.empty), "m")
 * // response.content: [{ type: "text", text: "Hello" }]
 * ```
 *
 * @since 0.3.0
 * @category getters
 */
export const toResponse: (self: Accumulator, model: string) => ModelProvider.ModelResponse = internal.toResponse

/**
 * The text so far: the text blocks in index order, joined. For a failed
 * attempt, this is what observers were shown and history never receives.
 *
 * @since 0.3.0
 * @category getters
 */
export const text: (self: Accumulator) => string = internal.text

/**
 * The latest usage reported, if any.
 *
 * @since 0.3.0
 * @category getters
 */
export const usage: (self: Accumulator) => Usage.Usage | undefined = internal.usage

/**
 * Whether a `finish` part has arrived: a stream that ends without one was cut
 * short.
 *
 * @since 0.3.0
 * @category getters
 */
export const isFinished: (self: Accumulator) => boolean = internal.isFinished

/**
 * The parts of a complete response, in order: what a one-shot provider
 * streams (`ModelProvider.fromGenerate`). Folding them gives the response
 * back.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromResponse: (response: ModelProvider.ModelResponse) => ReadonlyArray<ResponsePart> =
  internal.fromResponse
