/**
 * Native streaming over real sockets against the fake server: parts arrive
 * in order and early, a mid-stream failure fails the stream with what it
 * cost, the full request (options and content) reaches the wire of each
 * format, and an option a provider lacks fails before any request.
 */
import { Content, ModelError, ModelProvider, ResponsePart } from "@agent-kernel/kernel"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { FaultPlan } from "../src/testing/index.js"
import { type Api, apis, ioTick, request, setup, tool } from "./support.js"

const joined = (parts: ReadonlyArray<ResponsePart.ResponsePart>): string =>
  parts.flatMap((part) => (part.type === "text_delta" ? [part.text] : [])).join("")

const collect = (provider: ModelProvider.Service, req: ModelProvider.ModelRequest = request()) =>
  Stream.runCollect(provider.stream(req))

describe.each(apis)("streaming (%s)", (api) => {
  it.effect("deltas arrive in order, and the first while the server still holds the rest", () =>
    Effect.gen(function* () {
      const text = "The quick brown fox jumps over the lazy dog."
      // The head is message_start, ping, content_block_start, then deltas (Anthropic); a role chunk, then deltas
      // (OpenAI): hold after the first delta.
      const hold = api === "anthropic" ? 4 : 2
      const { server, provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "reply", text, delta_chars: 4, hold_after_events: hold }])
      )
      const seen = yield* Queue.unbounded<ResponsePart.ResponsePart>()
      const reader = yield* Effect.forkChild(
        Stream.runForEach(provider.stream(request()), (part) => Queue.offer(seen, part))
      )
      // Anthropic reports usage first (message_start); the first text comes next.
      const before: Array<ResponsePart.ResponsePart> = []
      let first = yield* Queue.take(seen)
      while (first.type !== "text_delta") {
        before.push(first)
        first = yield* Queue.take(seen)
      }
      expect(before.every((part) => part.type === "usage")).toBe(true)
      expect(first).toEqual({ type: "text_delta", index: 0, text: "The " })
      // Still held: nothing after the first delta has been written, and the stream is still open.
      for (let i = 0; i < 5; i++) yield* ioTick
      expect(reader.pollUnsafe()).toBeUndefined()
      expect((yield* Queue.clear(seen)).filter((p) => p.type === "text_delta")).toEqual([])
      yield* server.release
      yield* Fiber.join(reader)
      const rest = yield* Queue.clear(seen)
      const parts = [...before, first, ...rest]
      expect(joined(parts)).toBe(text)
      // Each delta is 4 characters, in order.
      const deltas = parts.flatMap((part) => (part.type === "text_delta" ? [part.text] : []))
      expect(deltas.every((delta, i) => delta === text.slice(4 * i, 4 * i + 4))).toBe(true)
      expect(parts.at(-1)).toMatchObject({ type: "finish", stop_reason: "end_turn" })
      expect(parts.some((part) => part.type === "usage")).toBe(true)
    })
  )

  it.effect("tool calls stream as a start and input fragments; the folded response has the parsed input", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          { kind: "reply", text: "Looking.", tool_calls: [{ name: "lookup", input: { word: "fox", limit: 2 } }] }
        ])
      )
      const parts = yield* collect(provider, request({ tools: [tool] }))
      const starts = parts.filter((part) => part.type === "tool_use_start")
      expect(starts).toHaveLength(1)
      expect(starts[0]).toMatchObject({ name: "lookup" })
      expect(parts.filter((part) => part.type === "tool_input_delta").length).toBeGreaterThan(1)
      const response = ResponsePart.toResponse(parts.reduce(ResponsePart.add, ResponsePart.empty), "m")
      expect(response.stop_reason).toBe("tool_use")
      expect(Content.toolUses({ role: "assistant", content: response.content })[0]?.input).toEqual({
        word: "fox",
        limit: 2
      })
    })
  )

  it.effect("a mid-stream error after text: the text was streamed, then the stream fails midStream with usage", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "stream_error", text: "partial answer", error_type: "overloaded_error" }])
      )
      const seen: Array<ResponsePart.ResponsePart> = []
      const error = yield* Effect.flip(
        Stream.runForEach(provider.stream(request()), (part) => Effect.sync(() => seen.push(part)))
      )
      expect(joined(seen)).toBe("partial answer")
      expect(error._tag).toBe("Overloaded")
      expect(error.midStream).toBe(true)
      if (api === "anthropic") expect(error.usage?.input_tokens).toBeGreaterThan(0)
    })
  )

  it.effect("a refusal mid-stream keeps its partial text and finishes content_filtered", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text: "I can't", stop: "refusal" }]))
      const parts = yield* collect(provider)
      expect(joined(parts)).toBe("I can't")
      expect(parts.at(-1)).toMatchObject({ type: "finish", stop_reason: "content_filtered" })
    })
  )

  it.effect("one-shot generate is the stream folded: the same response as streaming, and as JSON", () =>
    Effect.gen(function* () {
      const plan = FaultPlan.make([{ kind: "reply", text: "same answer" }], { after: "repeat_last" })
      const streamed = yield* setup(api, plan)
      const json = yield* setup(api, plan, { stream: false })
      const a = yield* ModelProvider.generate(streamed.provider, request())
      const b = yield* ModelProvider.generate(json.provider, request())
      expect(a.content).toEqual([Content.text("same answer")])
      // Usage differs (the fake server counts input tokens from the body, which says stream: true or not).
      expect([b.content, b.stop_reason, b.model]).toEqual([a.content, a.stop_reason, a.model])
    })
  )
})

const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

it.effect(
  "anthropic: thinking deltas with their signature, and redacted thinking kept whole, as parts and in the response",
  () =>
    Effect.gen(function* () {
      const body = [
        ev("message_start", {
          type: "message_start",
          message: { model: "m", usage: { input_tokens: 5, output_tokens: 1 } }
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
          delta: { type: "signature_delta", signature: "sig-abc" }
        }),
        ev("content_block_stop", { type: "content_block_stop", index: 0 }),
        ev("content_block_start", {
          type: "content_block_start",
          index: 1,
          content_block: { type: "redacted_thinking", data: "opaque" }
        }),
        ev("content_block_stop", { type: "content_block_stop", index: 1 }),
        ev("content_block_start", { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } }),
        ev("content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "42" } }),
        ev("content_block_stop", { type: "content_block_stop", index: 2 }),
        ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }),
        ev("message_stop", { type: "message_stop" })
      ].join("")
      const { provider } = yield* setup(
        "anthropic",
        FaultPlan.make([{ kind: "raw", status: 200, headers: { "content-type": "text/event-stream" }, body }])
      )
      const parts = yield* collect(provider)
      expect(parts.filter((part) => part.type !== "usage")).toEqual([
        { type: "thinking_delta", index: 0, text: "Let me " },
        { type: "thinking_delta", index: 0, text: "think." },
        { type: "thinking_signature", index: 0, signature: "sig-abc" },
        { type: "redacted_thinking", index: 1, data: "opaque" },
        { type: "text_delta", index: 2, text: "42" },
        { type: "finish", stop_reason: "end_turn", model: "m" }
      ])
      const response = ResponsePart.toResponse(parts.reduce(ResponsePart.add, ResponsePart.empty), "m")
      expect(response.content).toEqual([
        { type: "thinking", thinking: "Let me think.", signature: "sig-abc" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "42" }
      ])
      // message_start's input and message_delta's output, merged by the provider.
      expect(response.usage).toEqual({ input_tokens: 5, output_tokens: 9 })
    })
)

// ---------------------------------------------------------------------------
// The full request on the wire

const recordedBody = (api: Api, req: ModelProvider.ModelRequest) =>
  Effect.gen(function* () {
    const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text: "ok" }]))
    yield* ModelProvider.generate(provider, req)
    const [recorded] = yield* server.requests
    return recorded?.body
  })

const refusedBeforeSending = (api: Api, req: ModelProvider.ModelRequest) =>
  Effect.gen(function* () {
    const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "reply", text: "ok" }]))
    const error = yield* Effect.flip(ModelProvider.generate(provider, req))
    expect(yield* server.requests).toHaveLength(0)
    expect(error._tag).toBe("InvalidRequest")
    expect(ModelError.isRetryable(error)).toBe(false)
    return error
  })

/** Each option, and the body fields it must produce, per wire format. */
const optionCases: ReadonlyArray<{
  readonly name: string
  readonly request: Partial<ModelProvider.ModelRequest>
  readonly anthropic: Record<string, unknown>
  readonly openai: Record<string, unknown>
}> = [
  { name: "temperature", request: { temperature: 0.3 }, anthropic: { temperature: 0.3 }, openai: { temperature: 0.3 } },
  { name: "top_p", request: { top_p: 0.9 }, anthropic: { top_p: 0.9 }, openai: { top_p: 0.9 } },
  {
    name: "stop_sequences",
    request: { stop_sequences: ["END", "STOP"] },
    anthropic: { stop_sequences: ["END", "STOP"] },
    openai: { stop: ["END", "STOP"] }
  },
  {
    name: "tool_choice auto",
    request: { tools: [tool], tool_choice: { type: "auto" } },
    anthropic: { tool_choice: { type: "auto" } },
    openai: { tool_choice: "auto" }
  },
  {
    name: "tool_choice any",
    request: { tools: [tool], tool_choice: { type: "any" } },
    anthropic: { tool_choice: { type: "any" } },
    openai: { tool_choice: "required" }
  },
  {
    name: "tool_choice none",
    request: { tools: [tool], tool_choice: { type: "none" } },
    anthropic: { tool_choice: { type: "none" } },
    openai: { tool_choice: "none" }
  },
  {
    name: "tool_choice tool",
    request: { tools: [tool], tool_choice: { type: "tool", name: "lookup" } },
    anthropic: { tool_choice: { type: "tool", name: "lookup" } },
    openai: { tool_choice: { type: "function", function: { name: "lookup" } } }
  },
  {
    name: "parallel_tool_calls",
    request: { tools: [tool], parallel_tool_calls: false },
    anthropic: { tool_choice: { type: "auto", disable_parallel_tool_use: true } },
    openai: { parallel_tool_calls: false }
  },
  {
    name: "metadata.user_id",
    request: { metadata: { user_id: "user-42" } },
    anthropic: { metadata: { user_id: "user-42" } },
    openai: { user: "user-42" }
  },
  {
    name: "extra",
    request: { extra: { service_tier: "priority", custom: { a: 1 } } },
    anthropic: { service_tier: "priority", custom: { a: 1 } },
    openai: { service_tier: "priority", custom: { a: 1 } }
  }
]

describe.each(apis)("request options on the wire (%s)", (api) => {
  it.effect.each(optionCases)("$name appears in the recorded request body", (c) =>
    Effect.gen(function* () {
      const body = yield* recordedBody(api, request(c.request))
      expect(body).toMatchObject(api === "anthropic" ? c.anthropic : c.openai)
    })
  )

  it.effect("an extra key that collides with a modelled field fails before any request", () =>
    Effect.gen(function* () {
      const error = yield* refusedBeforeSending(api, request({ extra: { temperature: 2 } }))
      expect(error.message).toContain("extra.temperature")
      expect(error.details?.["option"]).toBe("extra")
    })
  )
})

describe("options a provider lacks fail before any request, naming option and provider", () => {
  it.effect("anthropic: top_k and thinking reach the wire", () =>
    Effect.gen(function* () {
      const body = yield* recordedBody("anthropic", request({ top_k: 40, thinking: { budget_tokens: 2048 } }))
      expect(body).toMatchObject({ top_k: 40, thinking: { type: "enabled", budget_tokens: 2048 } })
    })
  )

  it.effect("openai: reasoning_effort reaches the wire", () =>
    Effect.gen(function* () {
      const body = yield* recordedBody("openai", request({ reasoning_effort: "low" }))
      expect(body).toMatchObject({ reasoning_effort: "low" })
    })
  )

  const lacking: ReadonlyArray<readonly [Api, string, Partial<ModelProvider.ModelRequest>]> = [
    ["anthropic", "reasoning_effort", { reasoning_effort: "high" }],
    ["anthropic", "temperature", { temperature: 1.5 }],
    ["openai", "top_k", { top_k: 40 }],
    ["openai", "thinking", { thinking: { budget_tokens: 1024 } }],
    ["openai", "stop_sequences", { stop_sequences: ["a", "b", "c", "d", "e"] }],
    [
      "openai",
      "cache_control",
      { system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }] }
    ],
    ["openai", "cache_control", { tools: [{ ...tool, cache_control: { type: "ephemeral" } }] }],
    [
      "openai",
      "document",
      {
        messages: [
          {
            role: "user",
            content: [{ type: "document", source: { type: "url", url: "https://example.test/a.pdf" } }]
          }
        ]
      }
    ]
  ]
  it.effect.each(lacking.map(([api, option, req]) => ({ api, option, req })))("$api: $option", ({ api, option, req }) =>
    Effect.gen(function* () {
      const error = yield* refusedBeforeSending(api, request(req))
      expect(error.details?.["option"]).toBe(option)
      expect(error.message).toContain(option)
      expect(error.message).toContain(api)
    })
  )
})

// ---------------------------------------------------------------------------
// Content on the wire

const image: Content.ContentBlock = {
  type: "image",
  source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }
}
const imageUrl: Content.ContentBlock = { type: "image", source: { type: "url", url: "https://example.test/cat.png" } }
const pdf: Content.ContentBlock = {
  type: "document",
  source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" }
}

describe("content on the wire", () => {
  it.effect("anthropic: thinking with its signature and redacted thinking go back verbatim", () =>
    Effect.gen(function* () {
      const body = yield* recordedBody(
        "anthropic",
        request({
          messages: [
            Content.userText("think"),
            {
              role: "assistant",
              content: [
                { type: "thinking", thinking: "hmm", signature: "sig-123" },
                { type: "redacted_thinking", data: "opaque-blob" },
                Content.text("Answer.")
              ]
            },
            Content.userText("again")
          ]
        })
      )
      expect(body).toMatchObject({
        messages: [
          {},
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hmm", signature: "sig-123" },
              { type: "redacted_thinking", data: "opaque-blob" },
              { type: "text", text: "Answer." }
            ]
          },
          {}
        ]
      })
    })
  )

  it.effect("anthropic: images and documents (base64 and URL), cache_control on system, tools and messages", () =>
    Effect.gen(function* () {
      const cache = { type: "ephemeral", ttl: "1h" } as const
      const body = yield* recordedBody(
        "anthropic",
        request({
          system: [{ type: "text", text: "Be brief.", cache_control: cache }],
          tools: [{ ...tool, cache_control: { type: "ephemeral" } }],
          messages: [
            {
              role: "user",
              content: [image, imageUrl, { ...pdf, cache_control: cache }, { type: "text", text: "What is this?" }]
            }
          ]
        })
      )
      expect(body).toMatchObject({
        system: [{ type: "text", text: "Be brief.", cache_control: cache }],
        tools: [{ name: "lookup", cache_control: { type: "ephemeral" } }],
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              { type: "image", source: { type: "url", url: "https://example.test/cat.png" } },
              {
                type: "document",
                source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" },
                cache_control: cache
              },
              { type: "text", text: "What is this?" }
            ]
          }
        ]
      })
    })
  )

  it.effect(
    "openai: images as image_url (base64 as a data URL), a base64 document as a file, system blocks joined",
    () =>
      Effect.gen(function* () {
        const body = yield* recordedBody(
          "openai",
          request({
            system: [
              { type: "text", text: "Be brief." },
              { type: "text", text: "Answer in English." }
            ],
            messages: [{ role: "user", content: [Content.text("What is this?"), image, imageUrl, pdf] }]
          })
        )
        expect(body).toMatchObject({
          messages: [
            { role: "system", content: "Be brief.\n\nAnswer in English." },
            {
              role: "user",
              content: [
                { type: "text", text: "What is this?" },
                { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
                { type: "image_url", image_url: { url: "https://example.test/cat.png" } },
                { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0xLjQ=" } }
              ]
            }
          ]
        })
      })
  )
})
