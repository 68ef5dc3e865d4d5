/**
 * The streaming property, over the testkit's streaming arbitraries (`Arbitraries.response`,
 * `chunked`, `streamedCall`): for any chunking of a response (text, thinking, tool input cut
 * anywhere) and any mid-stream failures before it, the final attempt's deltas joined are what
 * history holds, no failed attempt's text reaches history, and each `stream_restarted` comes
 * between the failed attempt's last delta and the next attempt's first, with the characters that
 * attempt showed. First, how often the generators reach each case the property is about.
 */
import { Content, type KernelEvent, type ResponsePart } from "@agent-kernel/kernel"
import { Arbitraries, ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import { echoToolbox, runScript } from "./harness.js"

const callArb = Arbitraries.streamedCall()

const isDelta = (part: ResponsePart.ResponsePart) => part.type === "text_delta" || part.type === "thinking_delta"

const textChars = (parts: ReadonlyArray<ResponsePart.ResponsePart>) =>
  parts.reduce((n, part) => n + (part.type === "text_delta" ? part.text.length : 0), 0)

/** The cases the property is about, as they occur in one generated call. */
const reached = (call: Arbitraries.StreamedCall) => {
  const failed = call.attempts.slice(0, -1)
  const last = call.attempts.at(-1)!.parts
  const toolSplit = call.attempts.some((attempt) => {
    const counts = new Map<number, number>()
    for (const part of attempt.parts)
      if (part.type === "tool_input_delta") counts.set(part.index, (counts.get(part.index) ?? 0) + 1)
    return [...counts.values()].some((count) => count >= 2)
  })
  return {
    "multi-chunk text (final attempt)": last.filter((part) => part.type === "text_delta").length >= 2,
    "a failure after >= 1 delta": failed.some((attempt) => attempt.parts.some(isDelta)),
    "a failure before any delta": failed.some((attempt) => !attempt.parts.some(isDelta)),
    "tool_use input split across chunks": toolSplit,
    "thinking deltas": call.attempts.some((attempt) => attempt.parts.some((part) => part.type === "thinking_delta")),
    "no failure at all": failed.length === 0
  }
}

describe("streaming property", () => {
  it("the generators reach each case: multi-chunk text, failures after and before a delta, split tool input, thinking", () => {
    const cases = Effect.runSync(Arbitrary.sampleEffect(callArb, { count: 1_000, seed: 12 }))
    const counts = new Map<string, number>()
    for (const call of cases)
      for (const [name, hit] of Object.entries(reached(call))) counts.set(name, (counts.get(name) ?? 0) + (hit ? 1 : 0))
    const shares = Object.fromEntries([...counts].map(([name, n]) => [name, n / cases.length]))
    console.log(
      `streamedCall, ${cases.length} seeded cases:\n${Object.entries(shares)
        .map(([name, share]) => `  ${name}: ${(share * 100).toFixed(1)} %`)
        .join("\n")}`
    )
    for (const [name, share] of Object.entries(shares)) expect(share, name).toBeGreaterThan(0.15)
  })

  it.effect(
    "for any chunking and mid-stream failures: the final attempt's deltas are history, failed text never is, restarts in place",
    () =>
      Effect.gen(function* () {
        const reach = yield* Arbitraries.checkReach(
          callArb,
          (call) =>
            Effect.gen(function* () {
              const steps = call.attempts.map((attempt) =>
                ScriptedModel.streamed(attempt.parts, attempt.failure === undefined ? {} : { failure: attempt.failure })
              )
              const asksForTools = call.response.stop_reason === "tool_use"
              const { outcome, events } = yield* runScript(
                asksForTools ? [...steps, ScriptedModel.text("done")] : steps,
                {
                  toolbox: echoToolbox
                }
              )
              expect(outcome.status).toBe("completed")
              const last = call.attempts.length
              const turn1 = events.filter((event) => !("turn" in event) || event.turn === 1)
              const deltas = (type: "text_delta" | "thinking_delta", attempt: number) =>
                turn1
                  .filter((event): event is KernelEvent.EventOf<typeof type> => event.type === type)
                  .filter((event) => event.attempt === attempt)
                  .map((event) => event.text)
                  .join("")
              // History holds the final answer, and nothing of the failed attempts.
              const answered = outcome.history[1]!
              expect(answered).toEqual({ role: "assistant", content: call.response.content })
              expect(outcome.history.filter((message) => message.role === "assistant")).toHaveLength(
                asksForTools ? 2 : 1
              )
              // The final attempt's deltas, joined, are that answer's text and thinking.
              expect(deltas("text_delta", last)).toBe(Content.textOf(answered))
              expect(deltas("thinking_delta", last)).toBe(
                answered.content.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])).join("")
              )
              // One restart per failed attempt, between its last delta and the next attempt's first.
              const restarts = turn1.filter(
                (event): event is KernelEvent.EventOf<"stream_restarted"> => event.type === "stream_restarted"
              )
              // The final attempt's tool_use_started carry the ids history holds.
              const finalStart = restarts.length === 0 ? 0 : turn1.indexOf(restarts.at(-1)!)
              expect(
                turn1.slice(finalStart).flatMap((event) => (event.type === "tool_use_started" ? [event.id] : []))
              ).toEqual(Content.toolUses(answered).map((block) => block.id))
              expect(restarts.map((restart) => restart.attempt)).toEqual(
                call.attempts.slice(0, -1).map((_, i) => i + 1)
              )
              restarts.forEach((restart, i) => {
                expect(restart.discarded_text_chars).toBe(textChars(call.attempts[i]!.parts))
                const at = turn1.indexOf(restart)
                const isDeltaOf = (attempt: number) => (event: KernelEvent.KernelEvent) =>
                  (event.type === "text_delta" || event.type === "thinking_delta") && event.attempt === attempt
                expect(turn1.findLastIndex(isDeltaOf(i + 1))).toBeLessThan(at)
                const next = turn1.findIndex(isDeltaOf(i + 2))
                if (next >= 0) expect(next).toBeGreaterThan(at)
              })
              return Object.entries(reached(call)).flatMap(([name, hit]) => (hit ? [name] : []))
            }),
          { runs: 80, seed: 1212 }
        )
        // The property's own cases reach what its assertions are about.
        for (const name of [
          "multi-chunk text (final attempt)",
          "a failure after >= 1 delta",
          "a failure before any delta",
          "tool_use input split across chunks"
        ])
          expect(reach.share(name), `${name}: ${reach.summary}`).toBeGreaterThanOrEqual(0.3)
      })
  )
})
