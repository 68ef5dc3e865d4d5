import { Content, ContextProvider, TokenEstimate } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Arbitrary from "effect/Arbitrary"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const assistantTools = (id: string): Content.Message => ({
  role: "assistant",
  content: [Content.text("let me look"), Content.toolUse(id, "read", { path: "x" })]
})
const results = (id: string, size: number): Content.Message => ({
  role: "user",
  content: [Content.toolResult(id, "r".repeat(size))]
})

/** Conversations made of user inputs, each followed by tool round trips and an answer. */
const text = Arbitrary.schema(Schema.String.check(Schema.isMaxLength(400)))
const conversation = Arbitrary.array(
  Arbitrary.all({
    input: text,
    trips: Arbitrary.array(Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3_000 }))), {
      maxLength: 3
    }),
    answer: text
  }),
  { minLength: 1, maxLength: 6 }
).pipe(
  Arbitrary.map((turns) =>
    turns.flatMap((turn, t) => [
      Content.userText(`input ${t}: ${turn.input}`),
      ...turn.trips.flatMap((size, i) => [assistantTools(`u${t}-${i}`), results(`u${t}-${i}`, size)]),
      { role: "assistant" as const, content: [Content.text(turn.answer)] }
    ])
  )
)

/** Every tool_use in an assistant message is answered in the very next message. */
const pairsIntact = (messages: Content.History) =>
  messages.every((message, i) =>
    Content.toolUses(message).every((call) =>
      (messages[i + 1]?.content ?? []).some((block) => block.type === "tool_result" && block.tool_use_id === call.id)
    )
  ) &&
  messages.every((message, i) =>
    message.content.every(
      (block) =>
        block.type !== "tool_result" ||
        Content.toolUses(messages[i - 1] ?? { role: "user", content: [] }).some((call) => call.id === block.tool_use_id)
    )
  )

const latestInput = (messages: Content.History) =>
  [...messages].reverse().find((m) => m.role === "user" && m.content.every((b) => b.type !== "tool_result"))

describe("ContextProvider", () => {
  it.effect("dropOldestTurns cuts at a user input and keeps the latest one", () =>
    Effect.gen(function* () {
      const messages = [
        Content.userText(`first ${"a".repeat(2_000)}`),
        assistantTools("t1"),
        results("t1", 2_000),
        Content.userText("second"),
        { role: "assistant" as const, content: [Content.text("ok")] },
        Content.userText("latest")
      ]
      const reduced = yield* ContextProvider.dropOldestTurns(messages, { estimatedTokens: 0, targetTokens: 100 })
      assert.deepStrictEqual(Option.getOrThrow(reduced).map(Content.textOf), ["second", "ok", "latest"])
    })
  )

  it.effect("truncateToolResults marks what it cut", () =>
    Effect.gen(function* () {
      const messages = [Content.userText("go"), assistantTools("t1"), results("t1", 40_000)]
      const reduced = Option.getOrThrow(
        yield* ContextProvider.truncateToolResults()(messages, { estimatedTokens: 10_000, targetTokens: 2_000 })
      )
      const block = reduced[2]!.content[0]!
      assert.isTrue(
        block.type === "tool_result" && /characters truncated to fit the context window/.test(block.content)
      )
      assert.isAtMost(TokenEstimate.messages(reduced), 2_000)
    })
  )

  it.effect("a lone input cannot shrink: None, which the kernel turns into context_exhausted", () =>
    Effect.gen(function* () {
      const reduced = yield* ContextProvider.defaultProvider.reduce([Content.userText("only this")], {
        estimatedTokens: 10,
        targetTokens: 1
      })
      assert.isTrue(Option.isNone(reduced))
    })
  )

  it.effect.prop(
    "the default chain returns a strictly smaller context that keeps every tool_use with its tool_result and the latest input",
    [conversation, Schema.Finite.check(Schema.isBetween({ minimum: 0.05, maximum: 0.95 }))],
    ([messages, ratio]) =>
      Effect.gen(function* () {
        const before = TokenEstimate.messages(messages)
        const reduced = yield* ContextProvider.defaultProvider.reduce(messages, {
          estimatedTokens: before,
          targetTokens: Math.floor(before * ratio)
        })
        if (Option.isNone(reduced)) return
        assert.isBelow(TokenEstimate.messages(reduced.value), before)
        assert.isTrue(pairsIntact(reduced.value), "a tool_use lost its tool_result")
        assert.deepStrictEqual(latestInput(reduced.value), latestInput(messages))
        assert.strictEqual(reduced.value[0]?.role, "user")
      })
  )
})
