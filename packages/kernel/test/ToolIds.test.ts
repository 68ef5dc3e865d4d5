/**
 * Tool call ids: an id that is empty or repeats an earlier one of the same response is replaced before any tool
 * runs, so history, events, the post-model-response hook, the toolbox's results and the next request all agree,
 * and a replacement never collides with an id of the response.
 */
import { Content, type Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { echoToolbox, ofType, runScript } from "./harness.js"

const toolUseIds = (message: Content.Message | undefined) =>
  message === undefined ? [] : Content.toolUses(message).map((call) => call.id)

const resultIds = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))

const resultsOf = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block] : []))

describe("tool_use ids are made unique before tools run", () => {
  for (const [name, ids] of [
    ["two calls share an id", ["dup", "dup"]],
    ["a server that omits ids sends empty ones", ["", ""]]
  ] as const) {
    it.effect(`${name}: every result is kept, and history, events and the next request agree`, () =>
      Effect.gen(function* () {
        const { outcome, events, calls } = yield* runScript(
          [
            ScriptedModel.toolCalls(
              { id: ids[0], name: "echo", input: { n: 1 } },
              { id: ids[1], name: "echo", input: { n: 2 } }
            ),
            ScriptedModel.text("done")
          ],
          { toolbox: echoToolbox }
        )
        assert.strictEqual(outcome.status, "completed")
        const [, assistant, results] = outcome.history
        const uses = toolUseIds(assistant)
        assert.lengthOf(new Set(uses), 2, `ids ${uses.join(", ")} are not unique`)
        assert.isTrue(uses.every((id) => id !== ""))
        // Each result sits with the call that produced it.
        assert.deepStrictEqual(resultIds(results), uses)
        assert.deepStrictEqual(
          results?.content.map((block) => (block.type === "tool_result" ? block.content : "")),
          ['{"n":1}', '{"n":2}']
        )
        assert.deepStrictEqual(
          ofType(events, "tool_call_started").map((event) => event.id),
          uses
        )
        assert.deepStrictEqual(
          ofType(events, "tool_result").map((event) => event.id),
          uses
        )
        const next = calls[1]!.request.messages
        assert.deepStrictEqual(toolUseIds(next.at(-2)), uses)
        assert.deepStrictEqual(resultIds(next.at(-1)), uses)
      })
    )
  }

  it.effect("a unique id is kept as the model sent it", () =>
    Effect.gen(function* () {
      const { outcome } = yield* runScript(
        [ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }), ScriptedModel.text("done")],
        { toolbox: echoToolbox }
      )
      assert.deepStrictEqual(toolUseIds(outcome.history[1]), ["a", "b"])
    })
  )
})

describe("the unique ids reach every reader", () => {
  it.effect("the post-model-response hook sees the unique ids", () =>
    Effect.gen(function* () {
      const seen: Array<ReadonlyArray<string>> = []
      const { outcome } = yield* runScript(
        [
          ScriptedModel.toolCalls({ id: "", name: "echo", input: {} }, { id: "", name: "echo", input: {} }),
          ScriptedModel.text("done")
        ],
        {
          toolbox: echoToolbox,
          observers: [
            {
              onModelResponse: (response) =>
                Effect.sync(() => {
                  seen.push(response.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])))
                })
            }
          ]
        }
      )
      const ids = Content.toolUses(outcome.history[1]!).map((call) => call.id)
      assert.lengthOf(new Set(ids), 2)
      assert.isTrue(ids.every((id) => id !== ""))
      assert.deepStrictEqual(seen, [ids, []])
    })
  )

  it.effect("a toolbox result's tool_use_id is rewritten to its call's unique id", () =>
    Effect.gen(function* () {
      // A toolbox that answers with the id the model sent, not the one the kernel gave the call.
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: () => Effect.succeed(Content.toolResult("dup", "ok"))
      }
      const { outcome, events } = yield* runScript(
        [
          ScriptedModel.toolCalls({ id: "dup", name: "echo", input: {} }, { id: "dup", name: "echo", input: {} }),
          ScriptedModel.text("done")
        ],
        { toolbox }
      )
      const ids = Content.toolUses(outcome.history[1]!).map((call) => call.id)
      assert.lengthOf(new Set(ids), 2)
      assert.deepStrictEqual(
        resultsOf(outcome.history[2]).map((block) => [block.tool_use_id, block.content]),
        ids.map((id) => [id, "ok"])
      )
      assert.deepStrictEqual(
        ofType(events, "tool_result").map((event) => event.id),
        ids
      )
    })
  )

  it.effect("a replacement id that collides with an id of the response is skipped", () =>
    Effect.gen(function* () {
      // Run 1, turn 1: the fourth call's candidates "x_1.1.3" and "x_1.1.4" are ids of the response.
      const { outcome } = yield* runScript(
        [
          ScriptedModel.toolCalls(
            { id: "x_1.1.3", name: "echo", input: {} },
            { id: "x_1.1.4", name: "echo", input: {} },
            { id: "x", name: "echo", input: {} },
            { id: "x", name: "echo", input: {} }
          ),
          ScriptedModel.text("done")
        ],
        { toolbox: echoToolbox }
      )
      assert.deepStrictEqual(
        Content.toolUses(outcome.history[1]!).map((call) => call.id),
        ["x_1.1.3", "x_1.1.4", "x", "x_1.1.5"]
      )
    })
  )
})
