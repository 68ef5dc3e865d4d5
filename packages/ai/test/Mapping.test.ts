/**
 * Request and response parts, both ways: what reaches the wire (as the fake
 * provider recorded it, through the real @effect/ai clients) and what comes
 * back to the kernel.
 */
import { Content, type ModelError, ModelProvider, ResponsePart } from "@agent-kernel/kernel"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { Response } from "@effect/ai"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { LanguageModelProvider } from "../src/index.js"
import * as StreamParts from "../src/internal/streamParts.js"
import { apis, languageModel, setup, tool } from "./support.js"

const conversation: ModelProvider.ModelRequest = {
  model: "model-1",
  system: "Be brief.",
  max_output_tokens: 123,
  tools: [tool],
  messages: [
    Content.userText("define serendipity"),
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "A lookup will do.", signature: "sig-1" },
        Content.text("Let me look it up."),
        Content.toolUse("toolu_1", "lookup", { word: "serendipity", limit: 1 })
      ]
    },
    { role: "user", content: [Content.toolResult("toolu_1", "not found", true), Content.text("Try again.")] }
  ]
}

const cachedReply = FaultPlan.make([
  { kind: "reply", text: "A happy accident.", usage: { input_tokens: 5, output_tokens: 2, cache_read_tokens: 7 } }
])

describe("requests on the wire", () => {
  it.scoped("anthropic: system, thinking with its signature, tool use and error result, tools, max_tokens, model", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup("anthropic", cachedReply)
      yield* ModelProvider.generate(provider, conversation)
      const [recorded] = yield* server.requests
      expect(recorded?.body).toMatchObject({
        model: "model-1",
        max_tokens: 123,
        system: [{ type: "text", text: "Be brief." }],
        tools: [{ name: "lookup", description: "Looks a word up", input_schema: tool.input_schema }],
        messages: [
          { role: "user", content: [{ type: "text", text: "define serendipity" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "A lookup will do.", signature: "sig-1" },
              { type: "text", text: "Let me look it up." },
              { type: "tool_use", id: "toolu_1", name: "lookup", input: { word: "serendipity", limit: 1 } }
            ]
          },
          {
            role: "user",
            content: [
              // @effect/ai sends a tool result as JSON, so a text result arrives quoted.
              { type: "tool_result", tool_use_id: "toolu_1", content: '"not found"', is_error: true },
              { type: "text", text: "Try again." }
            ]
          }
        ]
      })
    })
  )

  it.scoped("openai: the same conversation as Responses input items, as the fake server recorded them", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup("openai", cachedReply)
      yield* ModelProvider.generate(provider, conversation)
      const [recorded] = yield* server.requests
      expect(recorded?.api).toBe("openai-responses")
      expect(recorded?.body).toMatchObject({
        model: "model-1",
        max_output_tokens: 123,
        tools: [{ type: "function", name: "lookup", parameters: tool.input_schema }],
        input: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "input_text", text: "define serendipity" }] },
          { role: "assistant", content: [{ type: "output_text", text: "Let me look it up." }] },
          {
            type: "function_call",
            call_id: "toolu_1",
            name: "lookup",
            arguments: '{"word":"serendipity","limit":1}'
          },
          { type: "function_call_output", call_id: "toolu_1", output: '"not found"' },
          { role: "user", content: [{ type: "input_text", text: "Try again." }] }
        ]
      })
    })
  )
})

describe.each(apis)("responses from %s", (api) => {
  it.scoped("text and usage, with cache reads counted apart from input as the kernel counts them", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, cachedReply)
      const response = yield* ModelProvider.generate(provider, conversation)
      expect(response.content).toEqual([Content.text("A happy accident.")])
      expect(response.stop_reason).toBe("end_turn")
      expect(response.usage).toEqual({ input_tokens: 5, output_tokens: 2, cache_read_tokens: 7 })
    })
  )

  it.scoped("a tool call comes back as tool_use with its input, and the stop reason says so", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "happy" }]))
      const response = yield* ModelProvider.generate(provider, {
        model: "m",
        messages: [Content.userText("go")],
        tools: [tool]
      })
      expect(response.stop_reason).toBe("tool_use")
      expect(
        Content.toolUses({ role: "assistant", content: response.content }).map((use) => [use.name, use.input])
      ).toEqual([["lookup", { word: "example", limit: 1 }]])
    })
  )

  it.scoped("max_tokens maps to the kernel's stop reason", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text: "cut", stop: "max_tokens" }]))
      expect((yield* ModelProvider.generate(provider, conversation)).stop_reason).toBe("max_tokens")
    })
  )

  it.scoped("a request @effect/ai cannot express is refused before anything is sent", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, cachedReply)
      const error = yield* Effect.flip(
        ModelProvider.generate(provider, {
          model: "m",
          tools: [],
          messages: [{ role: "user", content: [Content.toolUse("t", "lookup", {})] }]
        })
      )
      expect(error._tag).toBe("InvalidRequest")
      expect(error.details?.["message_index"]).toBe(0)
      expect(yield* server.requests).toHaveLength(0)
    })
  )
})

it.scoped("without configure, a request's output limit is refused rather than silently dropped", () =>
  Effect.gen(function* () {
    const server = yield* Effect.orDie(FakeProvider.make(cachedReply))
    const model = yield* Layer.build(languageModel("anthropic", server))
    const provider = yield* LanguageModelProvider.make().pipe(Effect.provide(model))
    const refused: ModelError.ModelError = yield* Effect.flip(ModelProvider.generate(provider, conversation))
    expect(refused._tag).toBe("InvalidRequest")
    expect(yield* server.requests).toHaveLength(0)
    const { max_output_tokens: _, ...unlimited } = conversation
    expect((yield* ModelProvider.generate(provider, unlimited)).content).toEqual([Content.text("A happy accident.")])
  })
)

describe.each(apis)("streaming through the adapter (%s)", (api) => {
  it.scoped("text deltas arrive in order, the first while the server still holds the rest", () =>
    Effect.gen(function* () {
      const text = "Serendipity is a happy accident."
      // Anthropic: message_start, ping, content_block_start, the first delta. Responses: created, item added, delta.
      const hold = api === "anthropic" ? 4 : 3
      const { server, provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "reply", text, delta_chars: 6, hold_after_events: hold }])
      )
      const seen = yield* Queue.unbounded<ResponsePart.ResponsePart>()
      const reader = yield* Effect.fork(
        Stream.runForEach(provider.stream({ model: "m", tools: [], messages: [Content.userText("hi")] }), (part) =>
          Queue.offer(seen, part)
        )
      )
      let first = yield* Queue.take(seen)
      while (first.type !== "text_delta") first = yield* Queue.take(seen)
      expect(first).toMatchObject({ type: "text_delta", text: "Serend" })
      expect(Option.isNone(yield* reader.poll)).toBe(true)
      yield* server.release
      yield* Fiber.join(reader)
      const rest = Chunk.toReadonlyArray(yield* Queue.takeAll(seen))
      const deltas = [first, ...rest].flatMap((part) => (part.type === "text_delta" ? [part.text] : []))
      expect(deltas.join("")).toBe(text)
      expect(deltas.length).toBeGreaterThan(3)
      expect(rest.at(-1)).toMatchObject({ type: "finish", stop_reason: "end_turn" })
    })
  )
})

describe("the full request through the adapter", () => {
  it.scoped("anthropic: images, a document and redacted thinking reach the wire", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup("anthropic", cachedReply)
      yield* ModelProvider.generate(provider, {
        model: "model-1",
        tools: [],
        messages: [
          {
            role: "user",
            content: [
              Content.text("What is this?"),
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" } }
            ]
          },
          {
            role: "assistant",
            content: [{ type: "redacted_thinking", data: "opaque" }, Content.text("A cat.")]
          },
          Content.userText("Sure?")
        ]
      })
      const [recorded] = yield* server.requests
      expect(recorded?.body).toMatchObject({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" } }
            ]
          },
          {
            role: "assistant",
            content: [
              { type: "redacted_thinking", data: "opaque" },
              { type: "text", text: "A cat." }
            ]
          },
          { role: "user" }
        ]
      })
    })
  )

  it.scoped.each(apis)("%s: cache_control and an option without configure fail before any request", (api) =>
    Effect.gen(function* () {
      const server = yield* Effect.orDie(FakeProvider.make(cachedReply))
      const model = yield* Layer.build(languageModel(api, server))
      const provider = yield* LanguageModelProvider.make().pipe(Effect.provide(model))
      const cached = yield* Effect.flip(
        ModelProvider.generate(provider, {
          model: "m",
          tools: [],
          system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
          messages: [Content.userText("hi")]
        })
      )
      expect(cached._tag).toBe("InvalidRequest")
      expect(cached.message).toContain("cache_control")
      const tempered = yield* Effect.flip(
        ModelProvider.generate(provider, {
          model: "m",
          tools: [],
          temperature: 0.2,
          messages: [Content.userText("hi")]
        })
      )
      expect(tempered._tag).toBe("InvalidRequest")
      expect(tempered.details?.["option"]).toBe("temperature")
      expect(yield* server.requests).toHaveLength(0)
    })
  )
})

const usage = (fields: Partial<Response.Usage>) =>
  new Response.Usage({ inputTokens: 10, outputTokens: 3, totalTokens: 13, ...fields })

/** The kernel parts of @effect/ai stream parts, folded as the kernel folds them. */
const fold = (parts: ReadonlyArray<Response.AnyPart>, model = "requested") => {
  let state = StreamParts.initial(model)
  const out: Array<ResponsePart.ResponsePart> = []
  for (const part of parts) {
    const stepped = StreamParts.step(state, part)
    if (stepped._tag !== "Parts") return Either.left(stepped)
    state = stepped.state
    out.push(...stepped.parts)
  }
  return Either.right({
    parts: out,
    response: ResponsePart.toResponse(out.reduce(ResponsePart.add, ResponsePart.empty), model)
  })
}

describe("stream parts the fake provider cannot produce", () => {
  it("Anthropic thinking keeps its signature, redacted thinking is kept whole, provider-executed tools are left out", () => {
    const folded = fold([
      Response.responseMetadataPart({ id: Option.none(), modelId: Option.some("claude-x"), timestamp: Option.none() }),
      Response.reasoningStartPart({ id: "0" }),
      Response.reasoningDeltaPart({ id: "0", delta: "hmm" }),
      Response.reasoningDeltaPart({
        id: "0",
        delta: "",
        metadata: { anthropic: { type: "thinking", signature: "sig" } }
      }),
      Response.reasoningStartPart({
        id: "1",
        metadata: { anthropic: { type: "redacted_thinking", redactedData: "xx" } }
      }),
      Response.toolParamsStartPart({ id: "s1", name: "AnthropicWebSearch", providerExecuted: true }),
      Response.toolCallPart({ id: "s1", name: "AnthropicWebSearch", params: {}, providerExecuted: true }),
      Response.textStartPart({ id: "2" }),
      Response.textDeltaPart({ id: "2", delta: "ans" }),
      Response.textDeltaPart({ id: "2", delta: "wer" }),
      // Decoded, as @effect/ai decodes a provider's parts: only the usage fields the adapter reads.
      Schema.decodeUnknownSync(Response.FinishPart)({
        type: "finish",
        reason: "stop",
        usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13, cachedInputTokens: 4 },
        metadata: { anthropic: { usage: { cache_creation_input_tokens: 9 } } }
      })
    ])
    expect(Either.map(folded, (f) => f.response)).toEqual(
      Either.right({
        model: "claude-x",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "redacted_thinking", data: "xx" },
          Content.text("answer")
        ],
        stop_reason: "end_turn",
        // Anthropic's input figure already excludes cache reads.
        usage: { input_tokens: 10, output_tokens: 3, cache_read_tokens: 4, cache_write_tokens: 9 }
      })
    )
    // Each text delta is its own part, as it arrived.
    expect(
      Either.map(folded, (f) => f.parts.filter((part) => part.type === "text_delta").map((part) => part.text))
    ).toEqual(Either.right(["ans", "wer"]))
  })

  it("a tool call streams as a start and input fragments; one given whole becomes a start and its JSON", () => {
    const folded = fold([
      Response.toolParamsStartPart({ id: "c1", name: "lookup", providerExecuted: false }),
      Response.toolParamsDeltaPart({ id: "c1", delta: '{"word":' }),
      Response.toolParamsDeltaPart({ id: "c1", delta: '"fox"}' }),
      Response.toolCallPart({ id: "c1", name: "lookup", params: { word: "fox" }, providerExecuted: false }),
      Response.toolCallPart({ id: "c2", name: "lookup", params: { word: "dog" }, providerExecuted: false }),
      Response.finishPart({ reason: "tool-calls", usage: usage({}) })
    ])
    expect(
      Either.map(folded, (f) =>
        Content.toolUses({ role: "assistant", content: f.response.content }).map((u) => u.input)
      )
    ).toEqual(Either.right([{ word: "fox" }, { word: "dog" }]))
    expect(Either.map(folded, (f) => f.parts.filter((part) => part.type === "tool_input_delta").length)).toEqual(
      Either.right(3)
    )
  })

  it("finish reasons: pause ends the turn, an unnamed reason follows the tool calls, error is a failure", () => {
    const stop = (reason: Response.FinishReason, withTool: boolean) =>
      Either.map(
        fold(
          [
            ...(withTool
              ? [Response.toolCallPart({ id: "c", name: "lookup", params: {}, providerExecuted: false })]
              : []),
            Response.finishPart({ reason, usage: usage({}) })
          ],
          "m"
        ),
        (f) => f.response.stop_reason
      )
    expect(stop("pause", false)).toEqual(Either.right("end_turn"))
    expect(stop("unknown", true)).toEqual(Either.right("tool_use"))
    expect(stop("other", false)).toEqual(Either.right("end_turn"))
    expect(stop("length", false)).toEqual(Either.right("max_tokens"))
    expect(stop("content-filter", false)).toEqual(Either.right("content_filtered"))
    expect(Either.isLeft(stop("error", false))).toBe(true)
  })
})
