import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"
import type * as Content from "../Content.js"
import type * as KernelEvent from "../KernelEvent.js"
import type * as ModelProvider from "../ModelProvider.js"
import type * as ResponsePart from "../ResponsePart.js"
import type * as Effects from "./effects.js"
import * as responsePart from "./responsePart.js"
import * as Run from "./run.js"
import * as ToolIds from "./toolIds.js"

/**
 * What an attempt has shown observers: the text its deltas showed (a retry
 * or fallback discards it, `stream_restarted` says how much), and the ids
 * its tool calls were shown with, which the response's content keeps.
 *
 * @internal
 */
export class Shown {
  textChars = 0
  /** The blocks with unique tool ids last worked out, and the accumulator they are of. */
  ids: { readonly of: ResponsePart.Accumulator; readonly blocks: ReadonlyArray<responsePart.Building> } | undefined
  /** A one-shot response's content with unique ids, made when it was observed. */
  content:
    | { readonly of: ModelProvider.ModelResponse; readonly content: ReadonlyArray<Content.ContentBlock> }
    | undefined
}

/** Where an attempt is. */
interface At {
  readonly turn: number
  readonly model: string
  readonly attempt: number
}

/**
 * What the seam is told of an attempt: which call it is, its span's parent,
 * and its observation when anyone listens: a stream's deltas are published
 * as its parts arrive (the first reaches observers before the stream ends),
 * and a one-shot response's are published when its call returns, with the
 * ids its content gets. No observation when nobody listens, so that an
 * attempt builds nothing for observers.
 *
 * @internal
 */
export const attemptInfo = (
  run: Run.Run,
  at: At,
  shown: Shown,
  parent: Tracer.AnySpan | undefined
): Effects.AttemptInfo =>
  run.listening()
    ? {
        turn: at.turn,
        attempt: at.attempt,
        parent,
        observe: (part, accumulated) => observePart(run, at, shown, part, accumulated),
        observeResponse: (response) => observeResponse(run, at, shown, response)
      }
    : { turn: at.turn, attempt: at.attempt, parent }

const observePart = (
  run: Run.Run,
  at: At,
  shown: Shown,
  part: ResponsePart.ResponsePart,
  accumulated: ResponsePart.Accumulator
): Effect.Effect<void> => {
  const event =
    part.type === "text_delta" || part.type === "thinking_delta"
      ? delta(run, at, shown, part.type, part.text)
      : part.type === "tool_use_start"
        ? toolUseStarted(run, at, uniqueIdOf(run, at.turn, accumulated, part, shown), part.name)
        : undefined
  return event === undefined ? Effect.void : Run.publishAll(run, [event])
}

const observeResponse = (
  run: Run.Run,
  at: At,
  shown: Shown,
  response: ModelProvider.ModelResponse
): Effect.Effect<void> => {
  const content = ToolIds.unique(response.content, run.runNumber, at.turn)
  shown.content = { of: response, content }
  const events: Array<KernelEvent.KernelEvent> = []
  for (const block of content) {
    const event =
      block.type === "text"
        ? delta(run, at, shown, "text_delta", block.text)
        : block.type === "thinking"
          ? delta(run, at, shown, "thinking_delta", block.thinking)
          : block.type === "tool_use"
            ? toolUseStarted(run, at, block.id, block.name)
            : undefined
    if (event !== undefined) events.push(event)
  }
  return events.length === 0 ? Effect.void : Run.publishAll(run, events)
}

/** A text or thinking delta's event; none for an empty one. */
const delta = (
  run: Run.Run,
  at: At,
  shown: Shown,
  type: "text_delta" | "thinking_delta",
  text: string
): KernelEvent.KernelEvent | undefined => {
  if (text.length === 0) return undefined
  if (type === "text_delta") shown.textChars += text.length
  return { type, at: Run.now(run), turn: at.turn, model: at.model, attempt: at.attempt, text }
}

const toolUseStarted = (run: Run.Run, at: At, id: string, name: string): KernelEvent.KernelEvent => ({
  type: "tool_use_started",
  at: Run.now(run),
  turn: at.turn,
  id,
  name
})

/**
 * The id the kernel will give a tool call that just started: the ids of the
 * response so far, made unique as the whole response's will be. Blocks
 * arrive in index order, so the calls before this one are all known.
 */
const uniqueIdOf = (
  run: Run.Run,
  turn: number,
  accumulated: ResponsePart.Accumulator,
  part: ResponsePart.ToolUseStart,
  shown: Shown
): string => {
  // The blocks in the response's order are renamed as its content will be, their inputs never parsed.
  if (shown.ids?.of !== accumulated)
    shown.ids = {
      of: accumulated,
      blocks: ToolIds.uniqueOf(responsePart.ordered(accumulated), run.runNumber, turn, renamed)
    }
  const block = shown.ids.blocks.find((block) => block.index === part.index)
  return block?.type === "tool_use" ? block.id : part.id
}

const renamed = (block: responsePart.Building, id: string): responsePart.Building =>
  block.type === "tool_use" ? { ...block, id } : block

/**
 * The response's content with unique tool ids: the ones a one-shot
 * response was shown with, or made now. Made before any tool runs, so
 * history, events and the next request agree.
 *
 * @internal
 */
export const contentOf = (
  run: Run.Run,
  turn: number,
  shown: Shown,
  response: ModelProvider.ModelResponse
): ReadonlyArray<Content.ContentBlock> =>
  shown.content?.of === response ? shown.content.content : ToolIds.unique(response.content, run.runNumber, turn)
