/**
 * The contract every provider meets, run against both wire formats, streaming
 * and not: content, tool calls (including streamed incremental JSON), tool
 * results, system prompt, tool definitions, usage.
 */
import { describe, expect, it } from "@effect/vitest"
import { Content, ModelProvider } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { OpenAi } from "../src/index.js"
import { FaultPlan } from "../src/testing/index.js"
import { type Api, failure, request, setup, tool } from "./support.js"

type Body = Record<string, unknown> & { messages: Array<Record<string, unknown>> }

const bodyOf = (value: unknown): Body => value as Body

const modes: ReadonlyArray<readonly [Api, boolean]> = [
  ["anthropic", true],
  ["anthropic", false],
  ["openai", true],
  ["openai", false]
]

describe.each(modes)("provider contract (%s, stream=%s)", (api, stream) => {
  it.effect("returns text, the stop reason, the model and usage", () =>
    Effect.gen(function* () {
      const { provider, server } = yield* setup(
        api,
        FaultPlan.make([
          {
            kind: "reply",
            text: "The quick brown fox jumps over the lazy dog.",
            usage: { input_tokens: 42, output_tokens: 11, cache_read_tokens: 7 }
          }
        ]),
        { stream }
      )
      const response = yield* ModelProvider.generate(provider, request({ model: "model-x" }))
      expect(response.content).toEqual([{ type: "text", text: "The quick brown fox jumps over the lazy dog." }])
      expect(response.stop_reason).toBe("end_turn")
      expect(response.model).toBe("model-x")
      expect(response.usage).toEqual({ input_tokens: 42, output_tokens: 11, cache_read_tokens: 7 })
      const [recorded] = yield* server.requests
      expect(recorded?.model).toBe("model-x")
      expect(recorded?.stream).toBe(stream)
      expect(recorded?.api).toBe(api)
    })
  )

  it.effect("maps max_tokens", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text: "cut", stop: "max_tokens" }]), {
        stream
      })
      expect((yield* ModelProvider.generate(provider, request())).stop_reason).toBe("max_tokens")
    })
  )

  it.effect("sends the system prompt, the tools and max_output_tokens in the wire format", () =>
    Effect.gen(function* () {
      const { provider, server } = yield* setup(api, FaultPlan.make([{ kind: "reply" }]), { stream })
      yield* ModelProvider.generate(provider, request({ system: "Be brief.", tools: [tool], max_output_tokens: 321 }))
      const [recorded] = yield* server.requests
      const body = bodyOf(recorded?.body)
      if (api === "anthropic") {
        expect(body["system"]).toBe("Be brief.")
        expect(body["max_tokens"]).toBe(321)
        expect(body["tools"]).toEqual([
          { name: tool.name, description: tool.description, input_schema: tool.input_schema }
        ])
      } else {
        expect(body.messages[0]).toEqual({ role: "system", content: "Be brief." })
        expect(body["max_completion_tokens"]).toBe(321)
        expect(body["tools"]).toEqual([
          {
            type: "function",
            function: { name: tool.name, description: tool.description, parameters: tool.input_schema }
          }
        ])
      }
      expect(body["stream"] ?? false).toBe(stream)
    })
  )

  it.effect("round-trips a tool call: tool_use, then the tool result, then end_turn", () =>
    Effect.gen(function* () {
      const { provider, server } = yield* setup(api, FaultPlan.happy, { stream })
      const first = yield* ModelProvider.generate(provider, request({ tools: [tool] }))
      expect(first.stop_reason).toBe("tool_use")
      const uses = first.content.filter((block) => block.type === "tool_use")
      expect(uses).toHaveLength(1)
      const use = uses[0] as Content.ToolUseBlock
      expect(use.name).toBe("lookup")
      expect(use.input).toEqual({ word: "example", limit: 1 })

      const history: ReadonlyArray<Content.Message> = [
        Content.userText("hello"),
        { role: "assistant", content: first.content },
        { role: "user", content: [Content.toolResult(use.id, "definition: a sample")] }
      ]
      const second = yield* ModelProvider.generate(provider, request({ tools: [tool], messages: history }))
      expect(second.stop_reason).toBe("end_turn")
      expect(Content.textOf({ role: "assistant", content: second.content })).toContain("definition: a sample")

      const recorded = yield* server.requests
      const body = bodyOf(recorded[1]?.body)
      if (api === "anthropic") {
        expect(body.messages[1]).toEqual({
          role: "assistant",
          content: [
            { type: "text", text: "I'll use the lookup tool." },
            { type: "tool_use", id: use.id, name: "lookup", input: { word: "example", limit: 1 } }
          ]
        })
        expect(body.messages[2]).toEqual({
          role: "user",
          content: [{ type: "tool_result", tool_use_id: use.id, content: "definition: a sample", is_error: false }]
        })
      } else {
        expect(body.messages[1]).toEqual({
          role: "assistant",
          content: "I'll use the lookup tool.",
          tool_calls: [
            { id: use.id, type: "function", function: { name: "lookup", arguments: '{"word":"example","limit":1}' } }
          ]
        })
        expect(body.messages[2]).toEqual({ role: "tool", tool_call_id: use.id, content: "definition: a sample" })
      }
    })
  )

  it.effect("sends an error tool result so the model can tell it failed", () =>
    Effect.gen(function* () {
      const { provider, server } = yield* setup(api, FaultPlan.happy, { stream })
      const history: ReadonlyArray<Content.Message> = [
        Content.userText("go"),
        { role: "assistant", content: [Content.toolUse("call_1", "lookup", { word: "x", limit: 1 })] },
        { role: "user", content: [Content.toolResult("call_1", "the plugin crashed", true), Content.text("and?")] }
      ]
      yield* ModelProvider.generate(provider, request({ tools: [tool], messages: history }))
      const [recorded] = yield* server.requests
      const body = bodyOf(recorded?.body)
      if (api === "anthropic") {
        expect(body.messages[2]).toEqual({
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "the plugin crashed", is_error: true },
            { type: "text", text: "and?" }
          ]
        })
      } else {
        expect(body.messages.slice(2)).toEqual([
          { role: "tool", tool_call_id: "call_1", content: "Error: the plugin crashed" },
          { role: "user", content: "and?" }
        ])
      }
    })
  )

  it.effect("assembles several tool calls with nested, unicode input (streamed as incremental JSON)", () =>
    Effect.gen(function* () {
      const inputA = { query: "naïve café ☕", filters: [{ field: "lang", values: ["fr", "en"] }], limit: 10 }
      const inputB = { path: "/tmp/x", flags: { recursive: true, depth: null } }
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          {
            kind: "reply",
            text: "Two calls.",
            tool_calls: [
              { id: "call_a", name: "search", input: inputA },
              { id: "call_b", name: "list", input: inputB }
            ]
          }
        ]),
        { stream }
      )
      const response: ModelProvider.ModelResponse = yield* ModelProvider.generate(provider, request({ tools: [tool] }))
      expect(response.stop_reason).toBe("tool_use")
      expect(response.content).toEqual([
        { type: "text", text: "Two calls." },
        { type: "tool_use", id: "call_a", name: "search", input: inputA },
        { type: "tool_use", id: "call_b", name: "list", input: inputB }
      ])
    })
  )

  it.effect("a mid-stream failure carries no partial content; the next call returns the whole answer once", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          { kind: "stream_error", text: "Once upon a", error_type: "overloaded_error", message: "Overloaded" },
          { kind: "reply", text: "Once upon a time." }
        ]),
        { stream }
      )
      const error = yield* Effect.flip(ModelProvider.generate(provider, request()))
      expect(["Overloaded", "ServerError"]).toContain(error._tag)
      const response = yield* ModelProvider.generate(provider, request())
      expect(response.content).toEqual([{ type: "text", text: "Once upon a time." }])
    })
  )
})

describe("wire details", () => {
  it.effect("anthropic: max_tokens defaults to 4096, empty text blocks and unsigned thinking are not sent", () =>
    Effect.gen(function* () {
      const { provider, server } = yield* setup("anthropic", FaultPlan.make([{ kind: "reply" }]))
      yield* ModelProvider.generate(
        provider,
        request({
          messages: [
            Content.userText("q"),
            {
              role: "assistant",
              content: [{ type: "thinking", thinking: "hmm" }, Content.text(""), Content.text("a")]
            },
            Content.userText("q2")
          ]
        })
      )
      const [recorded] = yield* server.requests
      const body = bodyOf(recorded?.body)
      expect(body["max_tokens"]).toBe(4096)
      expect(body.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "a" }] })
    })
  )

  it.effect("anthropic: signed thinking blocks are sent back", () =>
    Effect.gen(function* () {
      const { provider, server } = yield* setup("anthropic", FaultPlan.make([{ kind: "reply" }]))
      yield* ModelProvider.generate(
        provider,
        request({
          messages: [
            Content.userText("q"),
            {
              role: "assistant",
              content: [{ type: "thinking", thinking: "hmm", signature: "sig" }, Content.text("a")]
            },
            Content.userText("q2")
          ]
        })
      )
      const [recorded] = yield* server.requests
      expect(bodyOf(recorded?.body).messages[1]).toEqual({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "text", text: "a" }
        ]
      })
    })
  )

  it.effect("openai: tool-call arguments that are not JSON reach the toolbox as the raw string", () =>
    Effect.gen(function* () {
      const body = JSON.stringify({
        model: "m",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"word": "x"' } }]
            },
            finish_reason: "tool_calls"
          }
        ],
        usage: { prompt_tokens: 3, completion_tokens: 4 }
      })
      const { provider } = yield* setup(
        "openai",
        FaultPlan.make([{ kind: "raw", status: 200, headers: { "content-type": "application/json" }, body }]),
        { stream: false }
      )
      const response = yield* ModelProvider.generate(provider, request({ tools: [tool] }))
      // Kept, not dropped: the kernel answers it with an error tool_result saying the input was not valid JSON.
      expect(response.content).toEqual([
        { type: "tool_use", id: "c1", name: "lookup", input: {}, invalid_input: '{"word": "x"' }
      ])
      expect(response.stop_reason).toBe("tool_use")
    })
  )

  it("openai: stream_options can be turned off for compatible servers that reject it", () => {
    const base = { model: "m", messages: [], tools: [] }
    const on = Result.getOrThrow(OpenAi.toWire(base, { stream: true, maxTokensField: "max_tokens" }))
    expect(on["stream_options"]).toEqual({ include_usage: true })
    const off = Result.getOrThrow(
      OpenAi.toWire(
        { ...base, max_output_tokens: 5 },
        { stream: true, maxTokensField: "max_tokens", streamUsage: false }
      )
    )
    expect(off["stream_options"]).toBeUndefined()
    expect(off["max_tokens"]).toBe(5)
  })

  it.effect("openai: a compatible server without [DONE] still completes on a finish_reason", () =>
    Effect.gen(function* () {
      const chunk = (delta: unknown, finish: string | null) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      const body = chunk({ content: "Hi" }, null) + chunk({}, "stop")
      const { provider } = yield* setup(
        "openai",
        FaultPlan.make([{ kind: "raw", status: 200, headers: { "content-type": "text/event-stream" }, body }])
      )
      const response = yield* ModelProvider.generate(provider, request())
      expect(response.content).toEqual([{ type: "text", text: "Hi" }])
      expect(response.usage).toEqual({ input_tokens: 0, output_tokens: 0 })
    })
  )

  it.effect("anthropic: streamed thinking keeps its signature; streamed tool input with no deltas is {}", () =>
    Effect.gen(function* () {
      const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
      const body = [
        ev("message_start", {
          type: "message_start",
          message: {
            model: "m",
            usage: { input_tokens: 9, output_tokens: 1, cache_read_input_tokens: 4, cache_creation_input_tokens: 2 }
          }
        }),
        ev("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "thinking", thinking: "" }
        }),
        ev("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta", thinking: "Let me " }
        }),
        ev("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta", thinking: "think." }
        }),
        ev("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "signature_delta", signature: "sig-1" }
        }),
        ev("content_block_stop", { type: "content_block_stop", index: 0 }),
        ev("content_block_start", {
          type: "content_block_start",
          index: 1,
          content_block: { type: "tool_use", id: "t1", name: "lookup", input: {} }
        }),
        ev("content_block_stop", { type: "content_block_stop", index: 1 }),
        ev("message_delta", {
          type: "message_delta",
          delta: { stop_reason: "tool_use" },
          usage: { output_tokens: 20 }
        }),
        ev("message_stop", { type: "message_stop" })
      ].join("")
      const { provider } = yield* setup(
        "anthropic",
        FaultPlan.make([{ kind: "raw", status: 200, headers: { "content-type": "text/event-stream" }, body }])
      )
      const response = yield* ModelProvider.generate(provider, request({ tools: [tool] }))
      expect(response.content).toEqual([
        { type: "thinking", thinking: "Let me think.", signature: "sig-1" },
        { type: "tool_use", id: "t1", name: "lookup", input: {} }
      ])
      expect(response.stop_reason).toBe("tool_use")
      expect(response.usage).toEqual({
        input_tokens: 9,
        output_tokens: 20,
        cache_read_tokens: 4,
        cache_write_tokens: 2
      })
    })
  )

  it.effect("anthropic: unknown event and block types are skipped (forward compatible)", () =>
    Effect.gen(function* () {
      const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
      const body = [
        ev("message_start", {
          type: "message_start",
          message: { model: "m", usage: { input_tokens: 5, output_tokens: 1 } }
        }),
        ev("brand_new_event", { type: "brand_new_event", whatever: true }),
        ev("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "server_tool_use_of_the_future", id: "x" }
        }),
        ev("content_block_stop", { type: "content_block_stop", index: 0 }),
        ev("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
        ev("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "ok" } }),
        ev("content_block_stop", { type: "content_block_stop", index: 1 }),
        ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }),
        ev("message_stop", { type: "message_stop" })
      ].join("")
      const { provider } = yield* setup(
        "anthropic",
        FaultPlan.make([{ kind: "raw", status: 200, headers: { "content-type": "text/event-stream" }, body }])
      )
      const response = yield* ModelProvider.generate(provider, request())
      expect(response.content).toEqual([{ type: "text", text: "ok" }])
      expect(response.usage).toEqual({ input_tokens: 5, output_tokens: 2 })
    })
  )
  it.effect(
    "anthropic: a delta of a type the kernel does not model is skipped; a known delta without its field is not",
    () =>
      Effect.gen(function* () {
        const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
        const delta = (delta: unknown) => ev("content_block_delta", { type: "content_block_delta", index: 0, delta })
        const stream = (middle: string) =>
          [
            ev("message_start", { type: "message_start", message: { model: "m", usage: { input_tokens: 5 } } }),
            ev("content_block_start", {
              type: "content_block_start",
              index: 0,
              content_block: { type: "text", text: "" }
            }),
            delta({ type: "text_delta", text: "o" }),
            middle,
            delta({ type: "text_delta", text: "k" }),
            ev("content_block_stop", { type: "content_block_stop", index: 0 }),
            ev("message_delta", {
              type: "message_delta",
              delta: { stop_reason: "end_turn" },
              usage: { output_tokens: 2 }
            }),
            ev("message_stop", { type: "message_stop" })
          ].join("")
        const raw = (body: string) =>
          FaultPlan.make([{ kind: "raw", status: 200, headers: { "content-type": "text/event-stream" }, body }])
        const skipped = yield* setup("anthropic", raw(stream(delta({ type: "citations_delta", citation: { n: 1 } }))))
        const response = yield* ModelProvider.generate(skipped.provider, request())
        expect(response.content).toEqual([{ type: "text", text: "ok" }])
        const malformed = yield* setup("anthropic", raw(stream(delta({ type: "text_delta", content: "x" }))))
        const error = yield* failure(malformed.provider)
        expect(error._tag).toBe("Unknown")
        expect(error.midStream).toBe(true)
      })
  )
})

describe("a failed attempt carries the usage the provider reported before the failure", () => {
  const eventStream = { "content-type": "text/event-stream" }
  const sse = (event: string | undefined, data: unknown) =>
    `${event !== undefined ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`

  it.effect("anthropic: an error event after message_start and message_delta carries the usage reported so far", () =>
    Effect.gen(function* () {
      const body = [
        sse("message_start", {
          type: "message_start",
          message: { model: "m", usage: { input_tokens: 1234, output_tokens: 1, cache_read_input_tokens: 200 } }
        }),
        sse("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "text", text: "" }
        }),
        sse("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: "Half an" }
        }),
        sse("message_delta", { type: "message_delta", delta: {}, usage: { output_tokens: 17 } }),
        sse("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })
      ].join("")
      const { provider } = yield* setup(
        "anthropic",
        FaultPlan.make([{ kind: "raw", status: 200, headers: eventStream, body }])
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("Overloaded")
      expect(error.usage).toEqual({ input_tokens: 1234, output_tokens: 17, cache_read_tokens: 200 })
    })
  )

  it.effect("openai: an error chunk after the usage chunk carries that usage", () =>
    Effect.gen(function* () {
      const body = [
        sse(undefined, { model: "m", choices: [{ index: 0, delta: { content: "Half" }, finish_reason: null }] }),
        sse(undefined, {
          model: "m",
          choices: [],
          usage: { prompt_tokens: 900, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 100 } }
        }),
        sse(undefined, { error: { message: "The server had an error", type: "server_error", code: null } })
      ].join("")
      const { provider } = yield* setup(
        "openai",
        FaultPlan.make([{ kind: "raw", status: 200, headers: eventStream, body }])
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("ServerError")
      expect(error.usage).toEqual({ input_tokens: 800, output_tokens: 40, cache_read_tokens: 100 })
    })
  )

  it.effect.each(["stream_error", "reset", "truncate"] as const)(
    "anthropic: a %s mid-stream carries message_start's usage",
    (kind) =>
      Effect.gen(function* () {
        const step: FaultPlan.Step =
          kind === "stream_error" ? { kind, text: "partial", error_type: "api_error" } : { kind, text: "partial" }
        const { provider } = yield* setup("anthropic", FaultPlan.make([step]))
        const error = yield* failure(provider)
        expect(error.midStream).toBe(true)
        expect(error.usage?.output_tokens).toBe(1)
        expect(error.usage?.input_tokens).toBeGreaterThan(0)
      })
  )

  it.effect("no usage is invented: a failure before any usage report carries none", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        "openai",
        FaultPlan.make([{ kind: "stream_error", text: "partial", error_type: "server_error" }])
      )
      const error = yield* failure(provider)
      expect(error.usage).toBeUndefined()
    })
  )
})
