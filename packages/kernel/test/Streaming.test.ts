/**
 * Streaming through the kernel: deltas published as parts arrive, restarts that
 * never duplicate text, invalid tool input, unique ids in tool_use_started, final_text.
 */
import {
  Content,
  type KernelEvent,
  ModelError,
  type ModelProvider,
  type ResponsePart,
  Session,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { echoToolbox, ofType, runScript } from "./harness.js"

const answer = ScriptedModel.text("The quick brown fox jumps.")

const integer = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

const historyText = (history: Content.History): string =>
  history
    .filter((message) => message.role === "assistant")
    .map(Content.textOf)
    .join("")

const deltaText = (events: ReadonlyArray<KernelEvent.KernelEvent>): string =>
  ofType(events, "text_delta")
    .map((event) => event.text)
    .join("")

describe("streaming through the kernel", () => {
  it.effect("each delta reaches observers as its part arrives, before the stream has ended", () =>
    Effect.gen(function* () {
      // The observer records, at each delta, whether the model call has already returned.
      const seen: Array<{ readonly text: string; readonly responded: boolean }> = []
      let responded = false
      const { outcome, events } = yield* runScript([ScriptedModel.chunked(answer, [4, 6, 6], { gapMs: 1_000 })], {
        observers: [
          {
            onEvent: (event) =>
              Effect.sync(() => {
                if (event.type === "model_response") responded = true
                if (event.type === "text_delta") seen.push({ text: event.text, responded })
              })
          }
        ]
      })
      expect(seen.map((delta) => delta.text)).toEqual(["The ", "quick ", "brown ", "fox jumps."])
      expect(seen.every((delta) => !delta.responded)).toBe(true)
      // Paced on the TestClock: the deltas carry the times they arrived at.
      const times = ofType(events, "text_delta").map((event) => event.at)
      expect(new Set(times).size).toBe(times.length)
      expect(outcome.final_text).toBe("The quick brown fox jumps.")
      expect(ofType(events, "run_ended")[0]!.final_text).toBe("The quick brown fox jumps.")
    })
  )

  it.effect("a mid-stream failure after text: stream_restarted, then the next attempt; no text twice in history", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* runScript([
        ScriptedModel.chunked(answer, [4, 6], { failAfter: 2 }),
        ScriptedModel.chunked(answer, [10])
      ])
      expect(outcome.status).toBe("completed")
      const restarted = ofType(events, "stream_restarted")
      expect(restarted).toHaveLength(1)
      expect(restarted[0]).toMatchObject({ turn: 1, attempt: 1, category: "overloaded", discarded_text_chars: 10 })
      const types = events.map((event) => event.type)
      // Published before the next attempt's first delta.
      expect(types.indexOf("stream_restarted")).toBeLessThan(types.lastIndexOf("text_delta"))
      const finalDeltas = ofType(events, "text_delta").filter((event) => event.attempt === 2)
      expect(finalDeltas.map((event) => event.text).join("")).toBe(historyText(outcome.history))
      expect(historyText(outcome.history)).toBe("The quick brown fox jumps.")
    })
  )

  it.effect("a tool input that is not valid JSON: an error result, the tool never invoked, the history valid", () =>
    Effect.gen(function* () {
      const invoked: Array<string> = []
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) => Effect.sync(() => invoked.push(call.id)).pipe(Effect.andThen(echoToolbox.invoke(call)))
      }
      const parts: ReadonlyArray<ResponsePart.ResponsePart> = [
        { type: "tool_use_start", index: 0, id: "t1", name: "echo" },
        { type: "tool_input_delta", index: 0, json: '{"word": "x"' },
        { type: "finish", stop_reason: "tool_use" }
      ]
      const { outcome } = yield* runScript([ScriptedModel.streamed(parts), ScriptedModel.text("sorry")], { toolbox })
      expect(outcome.status).toBe("completed")
      expect(invoked).toEqual([])
      const [, call, result] = outcome.history
      expect(call!.content).toEqual([
        { type: "tool_use", id: "t1", name: "echo", input: {}, invalid_input: '{"word": "x"' }
      ])
      const block = result!.content[0] as Content.ToolResultBlock
      expect(block.is_error).toBe(true)
      expect(block.content).toContain("not a valid JSON object")
    })
  )

  it.effect("tool_use_started carries the id the kernel uses, after making ids unique", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* runScript(
        [ScriptedModel.toolCalls({ id: "", name: "echo" }, { id: "", name: "echo" }), ScriptedModel.text("done")],
        { toolbox: echoToolbox }
      )
      const used = Content.toolUses(outcome.history[1]!).map((call) => call.id)
      expect(new Set(used).size).toBe(2)
      expect(ofType(events, "tool_use_started").map((event) => event.id)).toEqual(used)
      expect(ofType(events, "tool_call_started").map((event) => event.id)).toEqual(used)
    })
  )

  it.effect("a thinking block's deltas are thinking_delta events", () =>
    Effect.gen(function* () {
      const response: ModelProvider.ModelResponse = {
        ...answer,
        content: [{ type: "thinking", thinking: "hmm, foxes", signature: "s" }, Content.text("Yes.")]
      }
      const { events } = yield* runScript([ScriptedModel.chunked(response, [3])])
      expect(ofType(events, "thinking_delta").map((event) => event.text)).toEqual(["hmm", ", foxes"])
      expect(ofType(events, "text_delta").map((event) => event.text)).toEqual(["Yes", "."])
    })
  )

  it.effect("property: for any chunking and mid-stream failures, the final attempt's deltas are the history text", () =>
    Effect.gen(function* () {
      const runs = 40
      let restartsSeen = 0
      const cases = Arbitrary.all([
        Arbitrary.schema(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(40))),
        Arbitrary.array(integer(1, 8), { maxLength: 10 }),
        // At least one failure: the property is about restarts.
        Arbitrary.array(integer(0, 6), { minLength: 1, maxLength: 3 })
      ])
      const result = yield* Arbitrary.checkEffect(
        cases,
        ([text, sizes, failures]) =>
          Effect.gen(function* () {
            const response = ScriptedModel.text(text)
            const script = [
              ...failures.map((failAfter) => ScriptedModel.chunked(response, sizes, { failAfter })),
              ScriptedModel.chunked(response, sizes)
            ]
            const { outcome, events } = yield* runScript(script)
            const last = failures.length + 1
            const deltas: ReadonlyArray<KernelEvent.EventOf<"text_delta">> = ofType(events, "text_delta")
            expect(outcome.status).toBe("completed")
            expect(
              deltas
                .filter((event) => event.attempt === last)
                .map((event) => event.text)
                .join("")
            ).toBe(historyText(outcome.history))
            expect(historyText(outcome.history)).toBe(text)
            const restarts = ofType(events, "stream_restarted")
            expect(restarts).toHaveLength(failures.length)
            expect(restarts.map((restart) => restart.discarded_text_chars)).toEqual(
              failures.map((_, i) =>
                deltas.filter((event) => event.attempt === i + 1).reduce((n, event) => n + event.text.length, 0)
              )
            )
            if (restarts.some((restart) => restart.discarded_text_chars > 0)) restartsSeen++
            return true
          }),
        { runs, seed: 12 }
      )
      expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
      // The generator reaches the interesting case: restarts after some text was shown.
      expect(restartsSeen / runs).toBeGreaterThanOrEqual(0.3)
    })
  )

  it.effect(
    "ScriptedModel paces a stream on the TestClock: the first part after firstPartMs, the next gapMs apart",
    () =>
      Effect.gen(function* () {
        const { events } = yield* runScript([
          ScriptedModel.chunked(answer, [4, 6, 6], { firstPartMs: 3_000, gapMs: 250 })
        ])
        const sent = ofType(events, "model_request")[0]!.at
        expect(ofType(events, "text_delta").map((event) => event.at - sent)).toEqual([3_000, 3_250, 3_500, 3_750])
        // Without firstPartMs the first part waits gapMs like the others.
        const even = yield* runScript([ScriptedModel.chunked(answer, [4, 6, 6], { gapMs: 250 })])
        const evenSent = ofType(even.events, "model_request")[0]!.at
        expect(ofType(even.events, "text_delta").map((event) => event.at - evenSent)).toEqual([250, 500, 750, 1_000])
      })
  )

  it.effect("a content filter that fails the stream mid-way: its partial text is kept, in the event and history", () =>
    Effect.gen(function* () {
      const filtered = new ModelError.ContentFiltered({
        provider: "scripted",
        model: "model-a",
        message: "the content filter stopped the stream",
        midStream: true
      })
      const step = ScriptedModel.chunked(answer, [4, 6], { failAfter: 2, failure: filtered })
      // Observed: the deltas are published as they arrive, then the filter's event carries them.
      const observed = yield* runScript([step])
      expect(observed.outcome.status).toBe("content_filtered")
      expect(ofType(observed.events, "content_filtered")).toMatchObject([
        { turn: 1, message: "the content filter stopped the stream", partial_text: "The quick " }
      ])
      expect(deltaText(observed.events)).toBe("The quick ")
      expect(observed.outcome.final_text).toBe("The quick ")
      expect(historyText(observed.outcome.history)).toBe("The quick ")
      expect(ofType(observed.events, "run_ended")[0]!.final_text).toBe("The quick ")
      // Unobserved: nobody listens, the stream is folded without events, and the text is kept all the same.
      const model = yield* ScriptedModel.make([step])
      const session = yield* Session.make({ model: "model-a" }).pipe(Effect.provide(model.layer))
      const outcome = yield* TestClockDriver.run(session.run("hello"))
      expect(outcome.status).toBe("content_filtered")
      expect(outcome.final_text).toBe("The quick ")
      expect(outcome.history.at(-1)).toEqual({ role: "assistant", content: [Content.text("The quick ")] })
    })
  )

  it.effect("a content filter mid-stream before any text: nothing is added to history", () =>
    Effect.gen(function* () {
      const filtered = new ModelError.ContentFiltered({ provider: "scripted", model: "model-a", message: "no" })
      const { outcome, events } = yield* runScript([
        ScriptedModel.chunked(answer, [4], { failAfter: 0, failure: filtered })
      ])
      expect(outcome.status).toBe("content_filtered")
      expect(ofType(events, "content_filtered")[0]!.partial_text).toBe("")
      expect(outcome.history.map((message) => message.role)).toEqual(["user"])
    })
  )

  it.effect("Session.Options.request: the session's request options reach every call", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.rateLimited(), ScriptedModel.text("ok")])
      const request: ModelProvider.RequestOptions = {
        temperature: 0.2,
        stop_sequences: ["END"],
        tool_choice: { type: "auto" },
        metadata: { user_id: "u1" }
      }
      const session = yield* Session.make({ model: "m", request }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, Toolbox.empty)
      )
      yield* TestClockDriver.run(session.run("hi"))
      const requests = yield* model.requests
      expect(requests).toHaveLength(2)
      for (const sent of requests) expect(sent).toMatchObject(request)
    })
  )
})
