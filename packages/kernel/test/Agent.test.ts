/**
 * The agent in one Layer: a session from a small config, its runs streamed
 * to plain callbacks, its settings decoded once and shared with the Layers
 * built with it, and its session made by the `Sessions` in its config.
 */
import { Agent, Content, type KernelEvent, ModelProvider, type RunOutcome, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"

const answer = ScriptedModel.text("Sunny in Paris.")

/** A toolbox that answers every call with the tool timeout it was built with. */
const settingsToolbox: Layer.Layer<Toolbox.Toolbox> = Layer.effect(
  Toolbox.Toolbox,
  Effect.map(Effect.service(Agent.CurrentSettings), (settings) => ({
    definitions: Effect.succeed([{ name: "timeout", description: "Its timeout", input_schema: { type: "object" } }]),
    invoke: (call) => Effect.succeed(Content.toolResult(call.id, `tool_timeout_ms=${settings.tool_timeout_ms}`))
  }))
)

const toolResults = (outcome: RunOutcome.RunOutcome) =>
  outcome.history.flatMap((message) =>
    message.content.flatMap((block) => (block.type === "tool_result" ? [block] : []))
  )

describe("Agent.layer", () => {
  it.effect("a run streams each text delta to onText and every event to onEvent, in order", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.chunked(answer, [6, 4])])
      const texts: Array<string> = []
      const types: Array<KernelEvent.KernelEvent["type"]> = []
      const outcome = yield* Agent.run("Weather?", {
        onText: (text) => texts.push(text),
        onEvent: (event) => {
          types.push(event.type)
        }
      }).pipe(Effect.provide(Agent.layer({ model: "m", provider: model.layer })))
      expect(outcome.status).toBe("completed")
      expect(texts).toEqual(["Sunny ", "in P", "aris."])
      expect(texts.join("")).toBe(outcome.final_text)
      expect(types[0]).toBe("run_started")
      expect(types.at(-1)).toBe("run_ended")
      expect(types.filter((type) => type === "text_delta")).toHaveLength(3)
    })
  )

  it.effect("after a mid-stream failure onText gets the next attempt's text, with stream_restarted between", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.chunked(answer, [6, 4], { failAfter: 1 }),
        ScriptedModel.chunked(answer, [6, 4])
      ])
      const seen: Array<string> = []
      const outcome = yield* TestClockDriver.run(
        Agent.run("Weather?", {
          onText: (text) => seen.push(text),
          onEvent: (event) => {
            if (event.type === "stream_restarted") seen.push(`<drop ${event.discarded_text_chars}>`)
          }
        }).pipe(Effect.provide(Agent.layer({ model: "m", provider: model.layer })))
      )
      expect(outcome.status).toBe("completed")
      expect(seen).toEqual(["Sunny ", "<drop 6>", "Sunny ", "in P", "aris."])
      expect(outcome.retries.session_total).toBe(1)
    })
  )

  it.effect("an effect returned by onEvent runs in line: what it does is done before the next event", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([answer])
      const order = yield* Ref.make<ReadonlyArray<string>>([])
      yield* Agent.run("Hi", {
        onEvent: (event) =>
          event.type === "run_started" || event.type === "run_ended"
            ? Effect.andThen(
                Effect.yieldNow,
                Ref.update(order, (seen) => [...seen, event.type])
              )
            : Ref.update(order, (seen) => [...seen, "other"])
      }).pipe(Effect.provide(Agent.layer({ model: "m", provider: model.layer })))
      const seen = yield* Ref.get(order)
      expect(seen[0]).toBe("run_started")
      expect(seen.at(-1)).toBe("run_ended")
      expect(seen.slice(1, -1).every((type) => type === "other")).toBe(true)
    })
  )

  it.effect("a callback that throws is logged and the run goes on to its answer", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.chunked(answer, [6])])
      const outcome = yield* Agent.run("Hi", {
        onText: () => {
          throw new Error("the terminal is gone")
        }
      }).pipe(Effect.provide(Agent.layer({ model: "m", provider: model.layer })))
      expect(outcome.status).toBe("completed")
      expect(outcome.final_text).toBe("Sunny in Paris.")
    })
  )

  it.effect("the callbacks are the run's own: a later run without callbacks calls none of them", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([answer, ScriptedModel.text("Again.")])
      const texts: Array<string> = []
      const [first, second] = yield* Effect.gen(function* () {
        const agent = yield* Agent.Agent
        const first = yield* agent.run("One", { onText: (text) => texts.push(text) })
        const second = yield* agent.run("Two")
        return [first, second] as const
      }).pipe(Effect.provide(Agent.layer({ model: "m", provider: model.layer })))
      expect(texts).toEqual(["Sunny in Paris."])
      expect(second.final_text).toBe("Again.")
      // One session: the second run sees the first in its history.
      expect(second.history.length).toBe(first.history.length + 2)
    })
  )

  it.effect("two runs at once are taken one after the other, each streaming to its own callbacks", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([
        (request) => Effect.as(Deferred.await(gate), { ...answer, model: request.model }),
        ScriptedModel.text("Second.")
      ])
      const first: Array<string> = []
      const second: Array<string> = []
      const outcomes = yield* Effect.gen(function* () {
        const agent = yield* Agent.Agent
        const one = yield* Effect.forkChild(agent.run("One", { onEvent: (event) => void first.push(event.type) }))
        yield* Effect.yieldNow
        const two = yield* Effect.forkChild(agent.run("Two", { onEvent: (event) => void second.push(event.type) }))
        yield* Effect.yieldNow
        // The second run waits for the first, which waits for its model.
        expect(second).toEqual([])
        yield* Deferred.succeed(gate, undefined)
        return [yield* Fiber.join(one), yield* Fiber.join(two)]
      }).pipe(Effect.provide(Agent.layer({ model: "m", provider: model.layer })))
      expect(outcomes.map((outcome) => outcome.final_text)).toEqual(["Sunny in Paris.", "Second."])
      expect(first.filter((type) => type === "run_started")).toHaveLength(1)
      expect(second.filter((type) => type === "run_started")).toHaveLength(1)
      expect(first.at(-1)).toBe("run_ended")
      expect(second.at(-1)).toBe("run_ended")
    })
  )

  it.effect("the settings reach the session: max_retries 0 ends a rate-limited call at once", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.rateLimited(), answer])
      const outcome = yield* Agent.run("Hi").pipe(
        Effect.provide(Agent.layer({ model: "m", provider: model.layer, settings: { max_retries: 0 } }))
      )
      expect(outcome.status).toBe("retries_exhausted")
      expect(yield* model.requests).toHaveLength(1)
    })
  )

  it.effect("the toolbox Layer is built with the agent's settings (Agent.CurrentSettings)", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.toolCalls({ id: "t1", name: "timeout" }), answer])
      const outcome = yield* Agent.run("Hi").pipe(
        Effect.provide(
          Agent.layer({
            model: "m",
            provider: model.layer,
            tools: settingsToolbox,
            settings: { tool_timeout_ms: 1_234 }
          })
        )
      )
      expect(toolResults(outcome).map((result) => result.content)).toEqual(["tool_timeout_ms=1234"])
    })
  )

  it.effect("system and request options reach the model's request", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([answer])
      yield* Agent.run("Hi").pipe(
        Effect.provide(
          Agent.layer({
            model: "m",
            provider: model.layer,
            system: "Be brief.",
            maxOutputTokens: 64,
            request: { temperature: 0 }
          })
        )
      )
      const [request] = yield* model.requests
      expect(request?.system).toBe("Be brief.")
      expect(request?.max_output_tokens).toBe(64)
      expect(request?.temperature).toBe(0)
    })
  )

  it.effect("a bad setting value fails the Layer with a SettingsError naming the key", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([answer])
      const error = yield* Effect.flip(
        Agent.run("Hi").pipe(
          Effect.provide(Agent.layer({ model: "m", provider: model.layer, settings: { max_retries: -1 } }))
        )
      )
      expect(error._tag).toBe("SettingsError")
      expect(error.message).toContain("max_retries: Expected a non-negative number, actual -1")
      expect(yield* model.requests).toHaveLength(0)
    })
  )

  it.effect("a Sessions Layer in the config makes the session: its failure is the Layer's SessionError", () =>
    Effect.gen(function* () {
      const made = yield* Ref.make<ReadonlyArray<Agent.SessionOptions>>([])
      const recording = Layer.succeed(Agent.Sessions, {
        make: (options) =>
          Effect.andThen(
            Ref.update(made, (all) => [...all, options]),
            Agent.inMemory.make(options)
          )
      })
      const model = yield* ScriptedModel.make([answer])
      const outcome = yield* Agent.run("Hi").pipe(
        Effect.provide(
          Agent.layer({ model: "m", provider: model.layer, sessions: recording, settings: { max_turns: 7 } })
        )
      )
      expect(outcome.status).toBe("completed")
      expect((yield* Ref.get(made)).map((options) => [options.model, options.settings.max_turns])).toEqual([["m", 7]])
      const failing = Layer.succeed(Agent.Sessions, {
        make: () => Effect.fail(new Agent.SessionError({ message: "the store is gone" }))
      })
      const error = yield* Effect.flip(
        Agent.run("Hi").pipe(Effect.provide(Agent.layer({ model: "m", provider: model.layer, sessions: failing })))
      )
      expect(error).toEqual(new Agent.SessionError({ message: "the store is gone" }))
    })
  )

  it.effect("history is the session's: the input and the answer after a run", () =>
    Effect.gen(function* () {
      const provider = ModelProvider.fromGenerate("p", () => Effect.succeed(answer))
      const history = yield* Effect.gen(function* () {
        const agent = yield* Agent.Agent
        expect(yield* agent.history).toEqual([])
        yield* agent.run("Weather?")
        return yield* agent.history
      }).pipe(
        Effect.provide(Agent.layer({ model: "m", provider: Layer.succeed(ModelProvider.ModelProvider, provider) }))
      )
      expect(history.map(Content.textOf)).toEqual(["Weather?", "Sunny in Paris."])
    })
  )
})
