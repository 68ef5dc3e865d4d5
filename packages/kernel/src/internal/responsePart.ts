import type * as Content from "../Content.js"
import type * as ModelProvider from "../ModelProvider.js"
import type * as ResponsePart from "../ResponsePart.js"
import type * as Usage from "../Usage.js"

/** A content block being assembled, at its provider index. @internal */
export type Building =
  | { readonly type: "text"; readonly index: number; readonly text: string }
  | { readonly type: "thinking"; readonly index: number; readonly thinking: string; readonly signature?: string }
  | { readonly type: "redacted_thinking"; readonly index: number; readonly data: string }
  | {
      readonly type: "tool_use"
      readonly index: number
      readonly id: string
      readonly name: string
      readonly json: string
    }

/** @internal */
export interface State {
  /** Blocks in the order of their first part; `toResponse` sorts them by index. */
  readonly blocks: ReadonlyArray<Building>
  readonly usage: Usage.Usage | undefined
  readonly finish: { readonly stop_reason: ModelProvider.StopReason; readonly model?: string | undefined } | undefined
}

/** @internal */
export const empty: State = { blocks: [], usage: undefined, finish: undefined }

const position = (blocks: ReadonlyArray<Building>, index: number): number => {
  // Searched from the end: a part usually belongs to the block opened last.
  for (let i = blocks.length - 1; i >= 0; i--) if (blocks[i]!.index === index) return i
  return -1
}

const put = (state: State, index: number, update: (current: Building | undefined) => Building): State => {
  const at = position(state.blocks, index)
  if (at === -1) return { ...state, blocks: [...state.blocks, update(undefined)] }
  const blocks = state.blocks.slice()
  blocks[at] = update(blocks[at])
  return { ...state, blocks }
}

/** @internal */
export const add = (state: State, part: ResponsePart.ResponsePart): State => {
  switch (part.type) {
    case "text_delta":
      return put(state, part.index, (current) =>
        current?.type === "text"
          ? { ...current, text: current.text + part.text }
          : { type: "text", index: part.index, text: part.text }
      )
    case "thinking_delta":
      return put(state, part.index, (current) =>
        current?.type === "thinking"
          ? { ...current, thinking: current.thinking + part.text }
          : { type: "thinking", index: part.index, thinking: part.text }
      )
    case "thinking_signature":
      return put(state, part.index, (current) =>
        current?.type === "thinking"
          ? { ...current, signature: (current.signature ?? "") + part.signature }
          : { type: "thinking", index: part.index, thinking: "", signature: part.signature }
      )
    case "redacted_thinking":
      return put(state, part.index, () => ({ type: "redacted_thinking", index: part.index, data: part.data }))
    case "tool_use_start":
      return put(state, part.index, (current) => ({
        type: "tool_use",
        index: part.index,
        id: part.id,
        name: part.name,
        // Input that arrived before its start (never from a well-behaved provider) is kept, not dropped.
        json: current?.type === "tool_use" ? current.json : ""
      }))
    case "tool_input_delta":
      return put(state, part.index, (current) =>
        current?.type === "tool_use"
          ? { ...current, json: current.json + part.json }
          : { type: "tool_use", index: part.index, id: "", name: "", json: part.json }
      )
    case "usage":
      return { ...state, usage: part.usage }
    case "finish":
      return { ...state, finish: { stop_reason: part.stop_reason, model: part.model } }
  }
}

const parseInput = (json: string): { readonly input: unknown; readonly invalid?: string } => {
  // A tool without parameters streams no input at all.
  if (json.trim() === "") return { input: {} }
  try {
    const input: unknown = JSON.parse(json)
    // Both wire formats require an object; anything else is as unusable as bad JSON.
    if (typeof input === "object" && input !== null && !Array.isArray(input)) return { input }
  } catch {
    // reported through `invalid` below
  }
  return { input: {}, invalid: json }
}

const toBlock = (block: Building): Content.ContentBlock => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text }
    case "thinking":
      return block.signature === undefined
        ? { type: "thinking", thinking: block.thinking }
        : { type: "thinking", thinking: block.thinking, signature: block.signature }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data }
    case "tool_use": {
      const { input, invalid } = parseInput(block.json)
      return invalid === undefined
        ? { type: "tool_use", id: block.id, name: block.name, input }
        : { type: "tool_use", id: block.id, name: block.name, input, invalid_input: invalid }
    }
  }
}

const byIndex = (blocks: ReadonlyArray<Building>): ReadonlyArray<Building> => {
  for (let i = 1; i < blocks.length; i++)
    if (blocks[i - 1]!.index > blocks[i]!.index) {
      return blocks.slice().sort((a, b) => a.index - b.index)
    }
  return blocks
}

/**
 * The blocks assembled so far in the order of the response they make
 * (`toResponse`), without making it: their inputs stay unparsed.
 *
 * @internal
 */
export const ordered = (state: State): ReadonlyArray<Building> => byIndex(state.blocks)

/** @internal */
export const isFinished = (state: State): boolean => state.finish !== undefined

/** @internal */
export const toResponse = (state: State, model: string): ModelProvider.ModelResponse => {
  const blocks = byIndex(state.blocks).map(toBlock)
  return {
    model: state.finish?.model ?? model,
    content: blocks,
    stop_reason:
      state.finish?.stop_reason ?? (blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn"),
    usage: state.usage ?? { input_tokens: 0, output_tokens: 0 }
  }
}

/** @internal */
export const text = (state: State): string => {
  let out = ""
  for (const block of byIndex(state.blocks)) if (block.type === "text") out += block.text
  return out
}

/** @internal */
export const usage = (state: State): Usage.Usage | undefined => state.usage

/**
 * The accumulator of a whole response: what folding `fromResponse(response)`
 * with `add` ends with, built at once, without a state per part.
 *
 * @internal
 */
export const ofResponse = (response: ModelProvider.ModelResponse): State => {
  const blocks: Array<Building> = []
  response.content.forEach((block, index) => {
    switch (block.type) {
      case "text":
        blocks.push({ type: "text", index, text: block.text })
        return
      case "thinking":
        blocks.push(
          block.signature === undefined
            ? { type: "thinking", index, thinking: block.thinking }
            : { type: "thinking", index, thinking: block.thinking, signature: block.signature }
        )
        return
      case "redacted_thinking":
        blocks.push({ type: "redacted_thinking", index, data: block.data })
        return
      case "tool_use":
        blocks.push({
          type: "tool_use",
          index,
          id: block.id,
          name: block.name,
          json: block.invalid_input ?? JSON.stringify(block.input ?? {})
        })
        return
      default:
        return
    }
  })
  return { blocks, usage: response.usage, finish: { stop_reason: response.stop_reason, model: response.model } }
}

/** @internal */
export const fromResponse = (response: ModelProvider.ModelResponse): ReadonlyArray<ResponsePart.ResponsePart> => {
  const parts: Array<ResponsePart.ResponsePart> = []
  response.content.forEach((block, index) => {
    switch (block.type) {
      case "text":
        parts.push({ type: "text_delta", index, text: block.text })
        return
      case "thinking":
        parts.push({ type: "thinking_delta", index, text: block.thinking })
        if (block.signature !== undefined) parts.push({ type: "thinking_signature", index, signature: block.signature })
        return
      case "redacted_thinking":
        parts.push({ type: "redacted_thinking", index, data: block.data })
        return
      case "tool_use":
        parts.push({ type: "tool_use_start", index, id: block.id, name: block.name })
        parts.push({ type: "tool_input_delta", index, json: block.invalid_input ?? JSON.stringify(block.input ?? {}) })
        return
      default:
        // tool results, images and documents are user content; a response never carries them
        return
    }
  })
  parts.push({ type: "usage", usage: response.usage })
  parts.push({ type: "finish", stop_reason: response.stop_reason, model: response.model })
  return parts
}
