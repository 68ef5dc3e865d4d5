/**
 * Request and response parts, both ways: what reaches the wire (as the fake
 * provider recorded it, through the adapter and an effect/ai LanguageModel
 * over the kernel's own providers) and what comes back to the kernel.
 */
import { Content, type ModelError, ModelProvider, ResponsePart } from "@agent-kernel/kernel"
import { ChaosPlans, FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Response from "effect/ai/Response"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { LanguageModelProvider } from "../src/index.js"
import * as Parts from "../src/internal/parts.js"
import * as StreamParts from "../src/internal/streamParts.js"
import { apis, directTransport, kernelProvider, languageModel, setup, tool } from "./support.js"

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
  it.effect("anthropic: system, thinking with its signature, tool use and error result, tools, max_tokens, model", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup("anthropic", cachedReply)
      yield* ModelProvider.generate(provider, conversation)
      const [recorded] = yield* server.requests
      expect(recorded?.body).toMatchObject({
        model: "model-1",
        max_tokens: 123,
        system: "Be brief.",
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
              // The result's text is its model output: it arrives as it is, not quoted as JSON.
              { type: "tool_result", tool_use_id: "toolu_1", content: "not found", is_error: true },
              { type: "text", text: "Try again." }
            ]
          }
        ]
      })
    })
  )

  it.effect("openai: the same conversation as chat messages, as the fake server recorded them", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup("openai", cachedReply)
      yield* ModelProvider.generate(provider, conversation)
      const [recorded] = yield* server.requests
      expect(recorded?.api).toBe("openai")
      expect(recorded?.body).toMatchObject({
        model: "model-1",
        max_completion_tokens: 123,
        tools: [{ type: "function", function: { name: "lookup", parameters: tool.input_schema } }],
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "define serendipity" },
          {
            role: "assistant",
            content: "Let me look it up.",
            tool_calls: [
              {
                id: "toolu_1",
                type: "function",
                function: { name: "lookup", arguments: '{"word":"serendipity","limit":1}' }
              }
            ]
          },
          { role: "tool", tool_call_id: "toolu_1", content: "Error: not found" },
          { role: "user", content: "Try again." }
        ]
      })
    })
  )

  it.effect.each(apis)(
    "%s: the body through the adapter and the LanguageModel is the one the kernel's provider sends itself",
    (api) =>
      Effect.gen(function* () {
        const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "happy" }, { kind: "happy" }]))
        yield* ModelProvider.generate(provider, conversation)
        const direct = yield* Layer.build(kernelProvider(api, server).pipe(Layer.provide(directTransport), Layer.orDie))
        yield* ModelProvider.generate(Context.get(direct, ModelProvider.ModelProvider), conversation)
        const [viaEffectAi, own] = yield* server.requests
        expect(viaEffectAi?.body).toEqual(own?.body)
      })
  )
})

describe.each(apis)("responses from %s", (api) => {
  it.effect("text and usage, with cache reads counted apart from input as the kernel counts them", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, cachedReply)
      const response = yield* ModelProvider.generate(provider, conversation)
      expect(response.content).toEqual([Content.text("A happy accident.")])
      expect(response.stop_reason).toBe("end_turn")
      expect(response.usage).toEqual({ input_tokens: 5, output_tokens: 2, cache_read_tokens: 7 })
    })
  )

  it.effect("a tool call comes back as tool_use with its input, and the stop reason says so", () =>
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

  it.effect("max_tokens maps to the kernel's stop reason", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text: "cut", stop: "max_tokens" }]))
      expect((yield* ModelProvider.generate(provider, conversation)).stop_reason).toBe("max_tokens")
    })
  )

  it.effect("a request effect/ai cannot express is refused before anything is sent", () =>
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

describe.each(apis)("errors through the adapter (%s)", (api) => {
  it.effect("name the adapter and the request's model, keeping the rest of the provider's error", () =>
    Effect.gen(function* () {
      const server = yield* Effect.orDie(FakeProvider.make(ChaosPlans.contextOverflow))
      // Without configure, the LanguageModel's own model answers: the error it raises names that model.
      const model = yield* Layer.build(languageModel(api, server))
      const provider = yield* LanguageModelProvider.make({ name: "via-effect-ai", dialect: api }).pipe(
        Effect.provideContext(model)
      )
      const error = yield* Effect.flip(
        ModelProvider.generate(provider, { model: "model-asked", messages: [Content.userText("go")], tools: [] })
      )
      expect([error._tag, error.provider, error.model]).toEqual([
        "ContextLengthExceeded",
        "via-effect-ai",
        "model-asked"
      ])
      expect(error._tag === "ContextLengthExceeded" && [error.status, error.promptTokens, error.maxTokens]).toEqual([
        400, 210_000, 200_000
      ])
      expect(error.details?.["rule"]).toMatch(new RegExp(`^${api}\\.`))
    })
  )
})

it.effect("without configure, a request's output limit is refused rather than silently dropped", () =>
  Effect.gen(function* () {
    const server = yield* Effect.orDie(FakeProvider.make(cachedReply))
    const model = yield* Layer.build(languageModel("anthropic", server))
    const provider = yield* LanguageModelProvider.make().pipe(Effect.provideContext(model))
    const refused: ModelError.ModelError = yield* Effect.flip(ModelProvider.generate(provider, conversation))
    expect(refused._tag).toBe("InvalidRequest")
    expect(yield* server.requests).toHaveLength(0)
    const { max_output_tokens: _, ...unlimited } = conversation
    expect((yield* ModelProvider.generate(provider, unlimited)).content).toEqual([Content.text("A happy accident.")])
  })
)

describe.each(apis)("streaming through the adapter (%s)", (api) => {
  it.effect("text deltas arrive in order, the first while the server still holds the rest", () =>
    Effect.gen(function* () {
      const text = "Serendipity is a happy accident."
      // Anthropic: message_start, ping, content_block_start, the first delta. OpenAI: a role chunk, the first delta.
      const hold = api === "anthropic" ? 4 : 2
      const { server, provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "reply", text, delta_chars: 6, hold_after_events: hold }])
      )
      const seen = yield* Queue.unbounded<ResponsePart.ResponsePart>()
      const reader = yield* Effect.forkChild(
        Stream.runForEach(provider.stream({ model: "m", tools: [], messages: [Content.userText("hi")] }), (part) =>
          Queue.offer(seen, part)
        )
      )
      let first = yield* Queue.take(seen)
      while (first.type !== "text_delta") first = yield* Queue.take(seen)
      expect(first).toMatchObject({ type: "text_delta", text: "Serend" })
      expect(reader.pollUnsafe()).toBeUndefined()
      yield* server.release
      yield* Fiber.join(reader)
      const rest = yield* Queue.clear(seen)
      const deltas = [first, ...rest].flatMap((part) => (part.type === "text_delta" ? [part.text] : []))
      expect(deltas.join("")).toBe(text)
      expect(deltas.length).toBeGreaterThan(3)
      expect(rest.at(-1)).toMatchObject({ type: "finish", stop_reason: "end_turn" })
    })
  )
})

describe("the full request through the adapter", () => {
  it.effect("anthropic: images, a document and redacted thinking reach the wire", () =>
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

  it.effect.each(apis)("%s: cache_control and an option without configure fail before any request", (api) =>
    Effect.gen(function* () {
      const server = yield* Effect.orDie(FakeProvider.make(cachedReply))
      const model = yield* Layer.build(languageModel(api, server))
      const provider = yield* LanguageModelProvider.make().pipe(Effect.provideContext(model))
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

const usage = (inputTokens: Response.Usage["inputTokens"] = { uncached: 10, total: 10 }) =>
  new Response.Usage({ inputTokens, outputTokens: { total: 3 } })

/** The kernel parts of effect/ai stream parts, folded as the kernel folds them. */
const fold = (parts: ReadonlyArray<Response.AnyPart>, model = "requested") => {
  let state = StreamParts.initial(model)
  const out: Array<ResponsePart.ResponsePart> = []
  for (const part of parts) {
    const stepped = StreamParts.step(state, part)
    if (stepped._tag !== "Parts") return Result.fail(stepped)
    state = stepped.state
    out.push(...stepped.parts)
  }
  return Result.succeed({
    parts: out,
    response: ResponsePart.toResponse(out.reduce(ResponsePart.add, ResponsePart.empty), model)
  })
}

const finishPart = (reason: Response.FinishReason, inputTokens?: Response.Usage["inputTokens"]) =>
  Response.makePart("finish", { reason, usage: usage(inputTokens), response: undefined })

const toolCall = (id: string, name: string, params: unknown, providerExecuted = false) =>
  Response.makePart("tool-call", { id, name, params, providerExecuted })

describe("stream parts the fake provider cannot produce", () => {
  it("Anthropic thinking keeps its signature, redacted thinking is kept whole, provider-executed tools are left out", () => {
    const folded = fold([
      Response.makePart("response-metadata", { modelId: "claude-x" }),
      Response.makePart("reasoning-start", { id: "0" }),
      Response.makePart("reasoning-delta", { id: "0", delta: "hmm" }),
      Response.makePart("reasoning-delta", {
        id: "0",
        delta: "",
        metadata: { anthropic: { info: { type: "thinking", signature: "sig" } } }
      }),
      Response.makePart("reasoning-start", {
        id: "1",
        metadata: { anthropic: { info: { type: "redacted_thinking", redactedData: "xx" } } }
      }),
      Response.makePart("tool-params-start", { id: "s1", name: "AnthropicWebSearch", providerExecuted: true }),
      toolCall("s1", "AnthropicWebSearch", {}, true),
      Response.makePart("text-start", { id: "2" }),
      Response.makePart("text-delta", { id: "2", delta: "ans" }),
      Response.makePart("text-delta", { id: "2", delta: "wer" }),
      // Anthropic's input figure already excludes cache reads and writes: it is effect/ai's `uncached`.
      finishPart("stop", { uncached: 10, total: 23, cacheRead: 4, cacheWrite: 9 })
    ])
    expect(Result.map(folded, (f) => f.response)).toEqual(
      Result.succeed({
        model: "claude-x",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "redacted_thinking", data: "xx" },
          Content.text("answer")
        ],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 3, cache_read_tokens: 4, cache_write_tokens: 9 }
      })
    )
    // Each text delta is its own part, as it arrived.
    expect(
      Result.map(folded, (f) => f.parts.filter((part) => part.type === "text_delta").map((part) => part.text))
    ).toEqual(Result.succeed(["ans", "wer"]))
  })

  it("a provider that gives only the total input has its cached tokens taken out, as the kernel counts input", () => {
    const folded = fold([finishPart("stop", { total: 12, cacheRead: 7 })])
    expect(Result.map(folded, (f) => f.response.usage)).toEqual(
      Result.succeed({ input_tokens: 5, output_tokens: 3, cache_read_tokens: 7 })
    )
  })

  it("a tool call streams as a start and input fragments; one given whole becomes a start and its JSON", () => {
    const folded = fold([
      Response.makePart("tool-params-start", { id: "c1", name: "lookup", providerExecuted: false }),
      Response.makePart("tool-params-delta", { id: "c1", delta: '{"word":' }),
      Response.makePart("tool-params-delta", { id: "c1", delta: '"fox"}' }),
      toolCall("c1", "lookup", { word: "fox" }),
      toolCall("c2", "lookup", { word: "dog" }),
      finishPart("tool-calls")
    ])
    expect(
      Result.map(folded, (f) =>
        Content.toolUses({ role: "assistant", content: f.response.content }).map((u) => u.input)
      )
    ).toEqual(Result.succeed([{ word: "fox" }, { word: "dog" }]))
    expect(Result.map(folded, (f) => f.parts.filter((part) => part.type === "tool_input_delta").length)).toEqual(
      Result.succeed(3)
    )
  })

  it("finish reasons: pause ends the turn, an unnamed reason follows the tool calls, error is a failure", () => {
    const stop = (reason: Response.FinishReason, withTool: boolean) =>
      Result.map(
        fold([...(withTool ? [toolCall("c", "lookup", {})] : []), finishPart(reason)], "m"),
        (f) => f.response.stop_reason
      )
    expect(stop("pause", false)).toEqual(Result.succeed("end_turn"))
    expect(stop("unknown", true)).toEqual(Result.succeed("tool_use"))
    expect(stop("other", false)).toEqual(Result.succeed("end_turn"))
    expect(stop("length", false)).toEqual(Result.succeed("max_tokens"))
    expect(stop("content-filter", false)).toEqual(Result.succeed("content_filtered"))
    expect(Result.isFailure(stop("error", false))).toBe(true)
  })
})

describe("kernel parts as effect/ai stream parts", () => {
  it("a tool call's streamed input becomes its params: the JSON object, none as {}, anything else as its text", () => {
    const paramsOf = (...fragments: ReadonlyArray<string>) => {
      let state = Parts.initial()
      for (const part of [
        { type: "tool_use_start", index: 0, id: "c1", name: "lookup" } as const,
        ...fragments.map((json) => ({ type: "tool_input_delta", index: 0, json }) as const)
      ]) {
        state = Parts.step(state, part)[0]
      }
      return Parts.closeAll(state).flatMap((part) => (part.type === "tool-call" ? [part.params] : []))
    }
    expect(paramsOf('{"word":', '"fox"}')).toEqual([{ word: "fox" }])
    expect(paramsOf()).toEqual([{}])
    expect(paramsOf("  ")).toEqual([{}])
    expect(paramsOf("[1,2]")).toEqual(["[1,2]"])
    expect(paramsOf('"fox"')).toEqual(['"fox"'])
    expect(paramsOf("null")).toEqual(["null"])
    expect(paramsOf('{"word":')).toEqual(['{"word":'])
  })
})
