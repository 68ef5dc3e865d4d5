import { Content, ContextProvider, Session, TokenEstimate } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const isInput = (message: Content.Message) =>
  message.role === "user" && message.content.every((block) => block.type !== "tool_result")

/**
 * Replaces everything before the latest user input with one note listing the
 * earlier inputs. It cuts only at a user input, so no tool_use loses its
 * tool_result, and it returns None when there is nothing before that input.
 */
export const summarizeEarlierTurns: ContextProvider.Reducer = (messages) =>
  Effect.sync(() => {
    const latest = messages.findLastIndex(isInput)
    if (latest <= 0) return Option.none()
    const earlier = messages.slice(0, latest).filter(isInput).map(Content.textOf)
    const note = Content.userText(
      `Earlier in this conversation I asked: ${earlier.map((q) => `"${q.slice(0, 80)}"`).join("; ")}`
    )
    const reduced = [note, { role: "assistant" as const, content: [Content.text("Noted.")] }, ...messages.slice(latest)]
    return TokenEstimate.messages(reduced) < TokenEstimate.messages(messages) ? Option.some(reduced) : Option.none()
  })

// Cheap truncation first, then the summary, then the built-in fallback of dropping turns.
export const provider: ContextProvider.Service = ContextProvider.make(
  ContextProvider.chain(ContextProvider.truncateToolResults(), summarizeEarlierTurns, ContextProvider.dropOldestTurns)
)

export const run = Effect.gen(function* () {
  const history = [
    Content.userText(`What is Effect? ${"(long question) ".repeat(100)}`),
    { role: "assistant" as const, content: [Content.text("A TypeScript library for typed effects.")] }
  ]
  const model = yield* ScriptedModel.make([ScriptedModel.contextOverflow(9_000, 8_000), ScriptedModel.text("ok")])
  const session = yield* Session.make({ model: "any-model", history }).pipe(
    Effect.provide(model.layer),
    Effect.provideService(ContextProvider.ContextProvider, provider)
  )
  const outcome = yield* session.run("And what is a Layer?")
  return { outcome, sent: (yield* model.requests).map((request) => request.messages) }
})
