/**
 * OpenAI-compatible servers that omit tool-call ids, send empty ones or send
 * one id twice, over the wire. The fake server plays each; the OpenAI
 * decoder reads it (streamed and as one JSON body); a kernel Session runs
 * the tools. Every result is kept and sits with its own call,
 * the ids are unique, and the next request sends matching ids on each
 * assistant tool call and its tool message.
 *
 * Real sockets; the kernel's clock is a TestClock moved only to sleeps due
 * soon (see EndToEnd.test.ts), so a failure shows as a status, never a hang.
 */
import { Content, EventBus, type KernelEvent, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FaultPlan } from "../src/testing/index.js"
import { type Api, setup, tool } from "./support.js"

const farTimeouts = { connect: "1 day", firstByte: "1 day", idle: "1 day" } as const

/** Each result says which input it answered, so a result under the wrong id shows. */
const lookupToolbox: Toolbox.Service = {
  definitions: Effect.succeed([tool]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, `definition of ${JSON.stringify(call.input)}`))
}

const inputs = [
  { word: "serendipity", limit: 1 },
  { word: "petrichor", limit: 2 }
] as const
const expectedResults = inputs.map((input) => `definition of ${JSON.stringify(input)}`)

/** A Chat Completions answer with two tool calls and no `id` on either, as some compatible servers send. */
const withoutIds = {
  stream: [
    { choices: [{ index: 0, delta: { role: "assistant", content: null } }] },
    ...inputs.flatMap((input, index) => [
      {
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index, type: "function", function: { name: "lookup", arguments: "" } }] }
          }
        ]
      },
      {
        choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: JSON.stringify(input) } }] } }]
      }
    ]),
    { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    { choices: [], usage: { prompt_tokens: 20, completion_tokens: 10 } }
  ]
    .map((chunk) => `data: ${JSON.stringify({ object: "chat.completion.chunk", model: "fake-model", ...chunk })}\n\n`)
    .concat("data: [DONE]\n\n")
    .join(""),
  json: JSON.stringify({
    object: "chat.completion",
    model: "fake-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: inputs.map((input) => ({
            type: "function",
            function: { name: "lookup", arguments: JSON.stringify(input) }
          }))
        },
        finish_reason: "tool_calls"
      }
    ],
    usage: { prompt_tokens: 20, completion_tokens: 10 }
  })
}

type Case = "omitted" | "empty" | "duplicate"

const firstStep = (which: Case, stream: boolean): FaultPlan.Step =>
  which === "omitted"
    ? {
        kind: "raw",
        status: 200,
        headers: { "content-type": stream ? "text/event-stream" : "application/json" },
        body: stream ? withoutIds.stream : withoutIds.json
      }
    : {
        kind: "reply",
        tool_calls: inputs.map((input) => ({ id: which === "empty" ? "" : "call_same", name: "lookup", input }))
      }

const run = (api: Api, which: Case, stream: boolean) =>
  Effect.gen(function* () {
    const plan = FaultPlan.make([firstStep(which, stream), { kind: "reply", text: "done" }])
    const { server, provider } = yield* setup(api, plan, { stream, timeouts: farTimeouts })
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    const session = yield* Session.make({
      model: "fake-model",
      settings: { ...Settings.defaults, jitter: "none", model_attempt_timeout_ms: 86_400_000 }
    }).pipe(
      Effect.provideService(ModelProvider.ModelProvider, provider),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, lookupToolbox)
    )
    const outcome = yield* TestClockDriver.run(session.run("define two words"), { horizon: "10 minutes" })
    return { outcome, events, requests: yield* server.requests }
  })

const toolUseIds = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_use" ? [block.id] : []))

const toolResults = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block] : []))

/** The OpenAI messages of a recorded request body, as far as these tests read them. */
interface WireMessage {
  readonly role: string
  readonly content?: unknown
  readonly tool_call_id?: string
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly function: { readonly arguments: string } }>
}

const cases: ReadonlyArray<readonly [Case, string]> = [
  ["omitted", "a server that omits the tool-call ids"],
  ["empty", "a server that sends empty tool-call ids"],
  ["duplicate", "a server that sends one tool-call id twice"]
]

describe("tool-call ids an OpenAI-compatible server omits, leaves empty or repeats, end to end", () => {
  for (const stream of [true, false]) {
    for (const [which, title] of cases) {
      it.effect(
        `${title} (${stream ? "stream" : "JSON"}): every result kept with its call, ids unique, the next request matches`,
        () =>
          Effect.gen(function* () {
            const { outcome, events, requests } = yield* run("openai", which, stream)
            assert.strictEqual(outcome.status, "completed", JSON.stringify(outcome.error))
            assert.strictEqual(Content.textOf(outcome.history.at(-1)!), "done")

            // History: the user's question, the two calls, their two results, the answer.
            const [, assistant, results] = outcome.history
            const ids = toolUseIds(assistant)
            assert.lengthOf(ids, 2)
            assert.lengthOf(new Set(ids), 2, `ids ${ids.join(", ")} are not unique`)
            assert.isTrue(
              ids.every((id) => id.length > 0),
              `ids ${JSON.stringify(ids)}`
            )
            assert.deepStrictEqual(
              toolResults(results).map((result) => [result.tool_use_id, result.content, result.is_error]),
              ids.map((id, i) => [id, expectedResults[i], false])
            )
            assert.deepStrictEqual(
              events.flatMap((event) => (event.type === "tool_result" ? [event.id] : [])),
              ids
            )

            // The next request, as the server received it.
            assert.lengthOf(requests, 2)
            const sent = (requests[1]!.body as { readonly messages: ReadonlyArray<WireMessage> }).messages
            const call = sent.findIndex((message) => message.tool_calls !== undefined)
            assert.isAtLeast(call, 0)
            assert.deepStrictEqual(
              sent[call]!.tool_calls!.map((toolCall) => [toolCall.id, JSON.parse(toolCall.function.arguments)]),
              ids.map((id, i) => [id, inputs[i]])
            )
            assert.deepStrictEqual(
              sent.slice(call + 1).map((message) => [message.role, message.tool_call_id, message.content]),
              ids.map((id, i) => ["tool", id, expectedResults[i]])
            )
          })
      )
    }
  }

  it.effect("anthropic: one tool_use id sent twice is made unique too, and the next request matches", () =>
    Effect.gen(function* () {
      const { outcome, requests } = yield* run("anthropic", "duplicate", true)
      assert.strictEqual(outcome.status, "completed", JSON.stringify(outcome.error))
      const [, assistant, results] = outcome.history
      const ids = toolUseIds(assistant)
      assert.lengthOf(new Set(ids), 2)
      assert.deepStrictEqual(
        toolResults(results).map((result) => [result.tool_use_id, result.content]),
        ids.map((id, i) => [id, expectedResults[i]])
      )
      const sent = (
        requests[1]!.body as {
          readonly messages: ReadonlyArray<{ readonly content: ReadonlyArray<Record<string, unknown>> }>
        }
      ).messages
      const blocks = sent.flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      assert.deepStrictEqual(
        blocks.filter((block) => block["type"] === "tool_use").map((block) => block["id"]),
        ids
      )
      assert.deepStrictEqual(
        blocks.filter((block) => block["type"] === "tool_result").map((block) => block["tool_use_id"]),
        ids
      )
    })
  )
})
