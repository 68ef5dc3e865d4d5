/**
 * Request and response parts, both ways: what reaches the wire (as the fake
 * provider recorded it, through the real @effect/ai clients) and what comes
 * back to the kernel.
 */
import { Content, type ModelError, ModelProvider } from "@agent-kernel/kernel"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { Response } from "@effect/ai"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { LanguageModelProvider } from "../src/index.js"
import * as InternalResponse from "../src/internal/response.js"
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

const usage = (fields: Partial<Response.Usage>) =>
  new Response.Usage({ inputTokens: 10, outputTokens: 3, totalTokens: 13, ...fields })

describe("response parts the fake provider cannot produce", () => {
  it("Anthropic thinking keeps its signature; redacted thinking and provider-executed tools are left out", () => {
    const parts: InternalResponse.Parts = [
      Response.responseMetadataPart({ id: Option.none(), modelId: Option.some("claude-x"), timestamp: Option.none() }),
      Response.reasoningPart({ text: "hmm", metadata: { anthropic: { type: "thinking", signature: "sig" } } }),
      Response.reasoningPart({ text: "", metadata: { anthropic: { type: "redacted_thinking", redactedData: "xx" } } }),
      Response.toolCallPart({ id: "s1", name: "AnthropicWebSearch", params: {}, providerExecuted: true }),
      Response.textPart({ text: "answer" }),
      // Decoded, as @effect/ai decodes a provider's parts: only the usage fields the adapter reads.
      Schema.decodeUnknownSync(Response.FinishPart)({
        type: "finish",
        reason: "stop",
        usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13, cachedInputTokens: 4 },
        metadata: { anthropic: { usage: { cache_creation_input_tokens: 9 } } }
      })
    ]
    expect(InternalResponse.toResponse(parts, "requested")).toEqual(
      Either.right({
        model: "claude-x",
        content: [{ type: "thinking", thinking: "hmm", signature: "sig" }, Content.text("answer")],
        stop_reason: "end_turn",
        // Anthropic's input figure already excludes cache reads.
        usage: { input_tokens: 10, output_tokens: 3, cache_read_tokens: 4, cache_write_tokens: 9 }
      })
    )
  })

  it("an OpenAI refusal is kept as text and stops as content_filtered", () => {
    const parts: InternalResponse.Parts = [
      Response.textPart({ text: "", metadata: { openai: { refusal: "I can't help with that." } } }),
      Response.finishPart({ reason: "stop", usage: usage({}) })
    ]
    const response = InternalResponse.toResponse(parts, "m")
    expect(Either.map(response, (r) => [r.content, r.stop_reason])).toEqual(
      Either.right([[Content.text("I can't help with that.")], "content_filtered"])
    )
  })

  it("finish reasons: pause ends the turn, an unnamed reason follows the tool calls, error is a failure", () => {
    const stop = (reason: Response.FinishReason, withTool: boolean) =>
      InternalResponse.toResponse(
        [
          ...(withTool
            ? [Response.toolCallPart({ id: "c", name: "lookup", params: {}, providerExecuted: false })]
            : []),
          Response.finishPart({ reason, usage: usage({}) })
        ],
        "m"
      )
    expect(Either.map(stop("pause", false), (r) => r.stop_reason)).toEqual(Either.right("end_turn"))
    expect(Either.map(stop("unknown", true), (r) => r.stop_reason)).toEqual(Either.right("tool_use"))
    expect(Either.map(stop("other", false), (r) => r.stop_reason)).toEqual(Either.right("end_turn"))
    expect(Either.map(stop("length", false), (r) => r.stop_reason)).toEqual(Either.right("max_tokens"))
    expect(Either.isLeft(stop("error", false))).toBe(true)
  })
})
