/**
 * The accumulator alone: the one way a response is built from streamed parts.
 */
import { Content, ModelProvider, ResponsePart } from "@agent-kernel/kernel"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as internal from "../src/internal/responsePart.js"

const fold = (parts: ReadonlyArray<ResponsePart.ResponsePart>) => parts.reduce(ResponsePart.add, ResponsePart.empty)

const response: ModelProvider.ModelResponse = {
  model: "m",
  content: [
    { type: "thinking", thinking: "let me see", signature: "sig" },
    { type: "redacted_thinking", data: "opaque" },
    Content.text("Looking it up."),
    Content.toolUse("t1", "lookup", { word: "ünïcode", nested: { list: [1, 2] } })
  ],
  stop_reason: "tool_use",
  usage: { input_tokens: 7, output_tokens: 3, cache_read_tokens: 2, cache_write_tokens: 0 }
}

describe("ResponsePart", () => {
  it("folds interleaved parts of several blocks into blocks in index order", () => {
    const state = fold([
      { type: "tool_use_start", index: 1, id: "t1", name: "lookup" },
      { type: "text_delta", index: 0, text: "Hel" },
      { type: "tool_input_delta", index: 1, json: '{"wo' },
      { type: "text_delta", index: 0, text: "lo" },
      { type: "tool_input_delta", index: 1, json: 'rd":"x"}' },
      { type: "usage", usage: { input_tokens: 1, output_tokens: 1 } },
      { type: "usage", usage: { input_tokens: 1, output_tokens: 9 } },
      { type: "finish", stop_reason: "tool_use", model: "served" }
    ])
    expect(ResponsePart.text(state)).toBe("Hello")
    expect(ResponsePart.toResponse(state, "asked")).toEqual({
      model: "served",
      content: [Content.text("Hello"), Content.toolUse("t1", "lookup", { word: "x" })],
      stop_reason: "tool_use",
      usage: { input_tokens: 1, output_tokens: 9 }
    })
  })

  it("keeps a tool input that is not a JSON object as raw text, with an empty object as input", () => {
    const parts = (json: string): ReadonlyArray<ResponsePart.ResponsePart> => [
      { type: "tool_use_start", index: 0, id: "t", name: "n" },
      { type: "tool_input_delta", index: 0, json },
      { type: "finish", stop_reason: "tool_use" }
    ]
    for (const bad of ['{"word": "x"', "[1]", "3", "null"]) {
      expect(ResponsePart.toResponse(fold(parts(bad)), "m").content).toEqual([
        { type: "tool_use", id: "t", name: "n", input: {}, invalid_input: bad }
      ])
    }
    // A tool without parameters streams no input: that is an empty object, not an error.
    expect(ResponsePart.toResponse(fold(parts("")), "m").content).toEqual([Content.toolUse("t", "n", {})])
  })

  it("a whole response's accumulator, built at once, is the fold of its parts", () => {
    // What a one-shot provider's observers are given: it must be what the stream's fold ends with.
    const invalid: ModelProvider.ModelResponse = {
      model: "m",
      content: [
        { type: "thinking", thinking: "no signature" },
        { ...Content.toolUse("t2", "bad", {}), invalid_input: "[1]" },
        Content.text("")
      ],
      stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 0 }
    }
    for (const whole of [response, invalid])
      expect(internal.ofResponse(whole)).toEqual(fold(ResponsePart.fromResponse(whole)))
  })

  it("without a finish part, infers the stop reason and is not finished", () => {
    const state = fold([{ type: "text_delta", index: 0, text: "cut" }])
    expect(ResponsePart.isFinished(state)).toBe(false)
    expect(ResponsePart.toResponse(state, "m").stop_reason).toBe("end_turn")
  })

  it("every part is described by the schema", () => {
    const decode = Schema.decodeUnknownSync(Schema.Array(ResponsePart.ResponsePart))
    expect(decode(ResponsePart.fromResponse(response))).toEqual(ResponsePart.fromResponse(response))
    expect(() => decode([{ type: "finish", stop_reason: "bored" }])).toThrow()
  })

  it.prop(
    "fromResponse then the fold gives the response back, however its text is chunked",
    [
      Arbitrary.array(Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5 }))), {
        maxLength: 20
      })
    ],
    ([cuts]) => {
      const parts = ResponsePart.fromResponse(response).flatMap((part): ReadonlyArray<ResponsePart.ResponsePart> => {
        if (part.type !== "text_delta" && part.type !== "thinking_delta" && part.type !== "tool_input_delta")
          return [part]
        const whole = part.type === "tool_input_delta" ? part.json : part.text
        const pieces: Array<string> = []
        let at = 0
        for (const cut of cuts) {
          if (at >= whole.length) break
          pieces.push(whole.slice(at, at + cut))
          at += cut
        }
        if (at < whole.length) pieces.push(whole.slice(at))
        return pieces.map((piece) =>
          part.type === "tool_input_delta" ? { ...part, json: piece } : { ...part, text: piece }
        )
      })
      expect(ResponsePart.toResponse(fold(parts), "other")).toEqual(response)
    }
  )

  it.effect("generate folds the stream; a stream without its finish part is a transient mid-stream error", () =>
    Effect.gen(function* () {
      const request: ModelProvider.ModelRequest = { model: "m", messages: [], tools: [] }
      const streaming = ModelProvider.make("s", () => Stream.fromIterable(ResponsePart.fromResponse(response)))
      expect(yield* ModelProvider.generate(streaming, request)).toEqual(response)
      const cut = ModelProvider.make("s", () =>
        Stream.fromIterable<ResponsePart.ResponsePart>([
          { type: "text_delta", index: 0, text: "par" },
          { type: "usage", usage: { input_tokens: 2, output_tokens: 1 } }
        ])
      )
      const error = yield* Effect.flip(ModelProvider.generate(cut, request))
      expect(error.category).toBe("server_error")
      expect(error.midStream).toBe(true)
      expect(error.usage).toEqual({ input_tokens: 2, output_tokens: 1 })
    })
  )

  it.effect("fromGenerate streams the whole response's parts", () =>
    Effect.gen(function* () {
      const provider = ModelProvider.fromGenerate("g", () => Effect.succeed(response))
      const parts = yield* Stream.runCollect(provider.stream({ model: "m", messages: [], tools: [] }))
      expect([...parts]).toEqual(ResponsePart.fromResponse(response))
    })
  )
})
