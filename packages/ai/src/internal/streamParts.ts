/**
 * effect/ai `streamText` parts as kernel `ResponsePart`s: a pure fold, one
 * effect/ai part in, the kernel parts it makes out.
 *
 * @internal
 */
import type { ResponsePart, Usage } from "@agent-kernel/kernel"
import type * as Response from "effect/ai/Response"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { stopReasonOf, usageOf } from "./response.js"

// Provider metadata is open-ended; read only the fields the kernel keeps, by Schema.
const ThinkingSignature = Schema.Struct({
  anthropic: Schema.Struct({ info: Schema.Struct({ type: Schema.Literal("thinking"), signature: Schema.String }) })
})
const RedactedThinking = Schema.Struct({
  anthropic: Schema.Struct({
    info: Schema.Struct({ type: Schema.Literal("redacted_thinking"), redactedData: Schema.String })
  })
})
const decodeSignature = Schema.decodeUnknownOption(ThinkingSignature)
const decodeRedacted = Schema.decodeUnknownOption(RedactedThinking)

/** What the stream has said so far. */
export interface State {
  /** The kernel block index of each effect/ai part id, in order of first appearance. */
  readonly indices: ReadonlyMap<string, number>
  /** Tool calls started through `tool-params-start`, with whether any input delta came. */
  readonly tools: ReadonlyMap<string, { readonly hasInput: boolean }>
  /** Reasoning blocks that are redacted thinking: their deltas carry nothing. */
  readonly redacted: ReadonlySet<string>
  readonly model: string
  readonly hasToolUse: boolean
}

/** Before the first part. */
export const initial = (model: string): State => ({
  indices: new Map(),
  tools: new Map(),
  redacted: new Set(),
  model,
  hasToolUse: false
})

/** A part the kernel cannot take: the provider finished with `error`, or sent an error part. */
export type Stop =
  | { readonly _tag: "FinishedWithError"; readonly usage: Usage.Usage }
  | { readonly _tag: "ErrorPart"; readonly error: unknown }

/** The answer to one part. */
export type Stepped =
  | {
      readonly _tag: "Parts"
      readonly state: State
      readonly parts: ReadonlyArray<ResponsePart.ResponsePart>
    }
  | Stop

const indexed = (state: State, id: string): readonly [State, number] => {
  const known = state.indices.get(id)
  if (known !== undefined) return [state, known]
  const index = state.indices.size
  return [{ ...state, indices: new Map(state.indices).set(id, index) }, index]
}

const parts = (state: State, made: ReadonlyArray<ResponsePart.ResponsePart> = []): Stepped => ({
  _tag: "Parts",
  state,
  parts: made
})

const reasoningDelta = (state: State, part: Response.ReasoningDeltaPart): Stepped => {
  if (state.redacted.has(part.id)) return parts(state)
  const signature = Option.map(decodeSignature(part.metadata), (read) => read.anthropic.info.signature)
  if (part.delta.length === 0 && Option.isNone(signature)) return parts(state)
  const [next, index] = indexed(state, part.id)
  return parts(next, [
    ...(part.delta.length > 0 ? [{ type: "thinking_delta", index, text: part.delta } as const] : []),
    ...(Option.isSome(signature) ? [{ type: "thinking_signature", index, signature: signature.value } as const] : [])
  ])
}

const toolCall = (state: State, part: Response.ToolCallPart<string, unknown>): Stepped => {
  if (part.providerExecuted) return parts(state)
  const started = state.tools.get(part.id)
  // Streamed already: its input came as deltas (or none came, and the call's params say it all).
  if (started?.hasInput === true) return parts(state)
  const [next, index] = indexed(state, part.id)
  return parts({ ...next, tools: new Map(next.tools).set(part.id, { hasInput: true }), hasToolUse: true }, [
    ...(started === undefined ? [{ type: "tool_use_start", index, id: part.id, name: part.name } as const] : []),
    { type: "tool_input_delta", index, json: JSON.stringify(part.params ?? {}) }
  ])
}

/**
 * One effect/ai part as kernel parts. Text, reasoning (with its Anthropic
 * signature; redacted thinking kept whole) and tool calls keep the order and
 * block of their part ids; sources, files and provider-executed tools have
 * no kernel block and make none.
 */
export const step = (state: State, part: Response.AnyPart): Stepped => {
  switch (part.type) {
    case "text-delta": {
      if (part.delta.length === 0) return parts(state)
      const [next, index] = indexed(state, part.id)
      return parts(next, [{ type: "text_delta", index, text: part.delta }])
    }
    case "reasoning-start": {
      const redacted = decodeRedacted(part.metadata)
      if (Option.isNone(redacted)) return parts(state)
      const [next, index] = indexed(state, part.id)
      return parts({ ...next, redacted: new Set(next.redacted).add(part.id) }, [
        { type: "redacted_thinking", index, data: redacted.value.anthropic.info.redactedData }
      ])
    }
    case "reasoning-delta":
      return reasoningDelta(state, part)
    case "tool-params-start": {
      if (part.providerExecuted) return parts(state)
      const [next, index] = indexed(state, part.id)
      return parts({ ...next, tools: new Map(next.tools).set(part.id, { hasInput: false }), hasToolUse: true }, [
        { type: "tool_use_start", index, id: part.id, name: part.name }
      ])
    }
    case "tool-params-delta": {
      const started = state.tools.get(part.id)
      if (started === undefined || part.delta.length === 0) return parts(state)
      const [next, index] = indexed(state, part.id)
      return parts({ ...next, tools: new Map(next.tools).set(part.id, { hasInput: true }) }, [
        { type: "tool_input_delta", index, json: part.delta }
      ])
    }
    case "tool-call":
      return toolCall(state, part)
    case "response-metadata":
      return parts(part.modelId !== undefined ? { ...state, model: part.modelId } : state)
    case "finish": {
      const usage = usageOf(part.usage)
      const stop = stopReasonOf(part.reason, part.metadata, state.hasToolUse)
      if (stop === "error") return { _tag: "FinishedWithError", usage }
      return parts(state, [
        { type: "usage", usage },
        { type: "finish", stop_reason: stop, model: state.model }
      ])
    }
    case "error":
      return { _tag: "ErrorPart", error: part.error }
    default:
      return parts(state)
  }
}
