/**
 * Kernel `ResponsePart`s as effect/ai response parts: a pure fold for a
 * stream, and the parts of a whole `ModelResponse`. The other way round is
 * `streamParts.ts`.
 *
 * @internal
 */
import type { Content, ModelProvider, ResponsePart, Usage } from "@agent-kernel/kernel"
import { Redaction } from "@agent-kernel/providers"
import type * as Response from "effect/ai/Response"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { finishMetadata, finishReasonOf, usageToEffect } from "./response.js"

type Part = Response.StreamPartEncoded

/** A block of the response still open: its effect/ai part id, and a tool call's name and input so far. */
type Block =
  | { readonly kind: "text"; readonly id: string }
  | { readonly kind: "reasoning"; readonly id: string }
  | { readonly kind: "tool"; readonly id: string; readonly name: string; readonly json: string }

/** What the stream has said so far. */
export interface State {
  readonly open: ReadonlyMap<number, Block>
  readonly usage: Usage.Usage | undefined
}

/** Before the first part. */
export const initial = (): State => ({ open: new Map(), usage: undefined })

const thinkingMetadata = (info: Record<string, string>) => ({ anthropic: { info } })

/**
 * A tool call's input as effect/ai's params: the JSON object it streamed
 * (none is `{}`), or, when it is not one, the text itself, for effect/ai to
 * refuse or pass on as its tool validation says.
 */
const paramsOf = (json: string): unknown =>
  json.trim() === "" ? {} : Option.getOrElse(Option.filter(Redaction.parseJson(json), Predicate.isObject), () => json)

const withBlock = (state: State, index: number, block: Block): State => ({
  ...state,
  open: new Map(state.open).set(index, block)
})

/** Opens a text or reasoning block at `index` when it is not open yet. */
const opened = (
  state: State,
  index: number,
  kind: "text" | "reasoning"
): readonly [State, string, ReadonlyArray<Part>] => {
  const block = state.open.get(index)
  if (block !== undefined) return [state, block.id, []]
  const id = String(index)
  return [withBlock(state, index, { kind, id }), id, [{ type: kind === "text" ? "text-start" : "reasoning-start", id }]]
}

/** The parts that close a block; a tool call's close gives the call itself. */
const closing = (block: Block): ReadonlyArray<Part> => {
  switch (block.kind) {
    case "text":
      return [{ type: "text-end", id: block.id }]
    case "reasoning":
      return [{ type: "reasoning-end", id: block.id }]
    case "tool":
      // Input whose start never came names no call.
      if (block.id === "") return []
      return [
        { type: "tool-params-end", id: block.id },
        { type: "tool-call", id: block.id, name: block.name, params: paramsOf(block.json), providerExecuted: false }
      ]
  }
}

/** Every open block closed, in index order. */
export const closeAll = (state: State): ReadonlyArray<Part> =>
  [...state.open.entries()].sort(([a], [b]) => a - b).flatMap(([, block]) => closing(block))

const finishParts = (state: State, part: ResponsePart.Finish): ReadonlyArray<Part> => [
  ...closeAll(state),
  { type: "response-metadata", ...(part.model !== undefined ? { modelId: part.model } : {}) },
  {
    type: "finish",
    reason: finishReasonOf(part.stop_reason),
    usage: usageToEffect(state.usage ?? { input_tokens: 0, output_tokens: 0 }),
    metadata: finishMetadata(part.stop_reason)
  }
]

const toolStart = (state: State, part: ResponsePart.ToolUseStart): readonly [State, ReadonlyArray<Part>] => {
  // Input that came before its start (never from a well-behaved provider) is kept and sent after it.
  const early = state.open.get(part.index)
  const json = early?.kind === "tool" ? early.json : ""
  return [
    withBlock(state, part.index, { kind: "tool", id: part.id, name: part.name, json }),
    [
      { type: "tool-params-start", id: part.id, name: part.name, providerExecuted: false },
      ...(json.length > 0 ? [{ type: "tool-params-delta", id: part.id, delta: json } as const] : [])
    ]
  ]
}

const toolInput = (state: State, part: ResponsePart.ToolInputDelta): readonly [State, ReadonlyArray<Part>] => {
  const block = state.open.get(part.index)
  const tool = block?.kind === "tool" ? block : { kind: "tool" as const, id: "", name: "", json: "" }
  const next = withBlock(state, part.index, { ...tool, json: tool.json + part.json })
  return [next, tool.id === "" ? [] : [{ type: "tool-params-delta", id: tool.id, delta: part.json }]]
}

/**
 * One kernel part as effect/ai parts. Each block opens with its start part
 * and closes at the finish (a tool call closes with the call and its whole
 * input), so interleaved blocks keep their own ids.
 */
export const step = (state: State, part: ResponsePart.ResponsePart): readonly [State, ReadonlyArray<Part>] => {
  switch (part.type) {
    case "text_delta": {
      const [next, id, start] = opened(state, part.index, "text")
      return [next, [...start, { type: "text-delta", id, delta: part.text }]]
    }
    case "thinking_delta": {
      const [next, id, start] = opened(state, part.index, "reasoning")
      return [next, [...start, { type: "reasoning-delta", id, delta: part.text }]]
    }
    case "thinking_signature": {
      const [next, id, start] = opened(state, part.index, "reasoning")
      const metadata = thinkingMetadata({ type: "thinking", signature: part.signature })
      return [next, [...start, { type: "reasoning-delta", id, delta: "", metadata }]]
    }
    case "redacted_thinking": {
      const id = String(part.index)
      const metadata = thinkingMetadata({ type: "redacted_thinking", redactedData: part.data })
      return [withBlock(state, part.index, { kind: "reasoning", id }), [{ type: "reasoning-start", id, metadata }]]
    }
    case "tool_use_start":
      return toolStart(state, part)
    case "tool_input_delta":
      return toolInput(state, part)
    case "usage":
      return [{ ...state, usage: part.usage }, []]
    case "finish":
      return [initial(), finishParts(state, part)]
  }
}

const blockParts = (block: Content.ContentBlock): ReadonlyArray<Response.PartEncoded> => {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }]
    case "thinking":
      return [
        {
          type: "reasoning",
          text: block.thinking,
          ...(block.signature !== undefined
            ? { metadata: thinkingMetadata({ type: "thinking", signature: block.signature }) }
            : {})
        }
      ]
    case "redacted_thinking":
      return [
        {
          type: "reasoning",
          text: "",
          metadata: thinkingMetadata({ type: "redacted_thinking", redactedData: block.data })
        }
      ]
    case "tool_use":
      return [
        {
          type: "tool-call",
          id: block.id,
          name: block.name,
          params: block.invalid_input ?? block.input,
          providerExecuted: false
        }
      ]
    default:
      return []
  }
}

/** The parts of a whole response, as `generateText` returns them. */
export const fromResponse = (response: ModelProvider.ModelResponse): Array<Response.PartEncoded> => [
  ...response.content.flatMap(blockParts),
  { type: "response-metadata", modelId: response.model },
  {
    type: "finish",
    reason: finishReasonOf(response.stop_reason),
    usage: usageToEffect(response.usage),
    metadata: finishMetadata(response.stop_reason)
  }
]
