/**
 * `InProcessTools.layer`: in-process tools as the toolbox Layer of
 * `Agent.layer({ tools })`, governed by the agent's settings.
 */
import { Agent, Content, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { InProcessTools } from "../src/index.js"

class Greeting extends Context.Service<Greeting, string>()("test/Greeting") {}

const greet = InProcessTools.tool({
  name: "greet",
  description: "Greets someone",
  parameters: Schema.Struct({ name: Schema.String }),
  handler: ({ name }) => Effect.map(Effect.service(Greeting), (greeting) => `${greeting}, ${name}!`)
})

const slow = InProcessTools.tool({
  name: "slow",
  description: "Takes a minute",
  parameters: Schema.Struct({}),
  handler: () => Effect.as(Effect.sleep("1 minute"), "done")
})

const resultsOf = (history: Content.History) =>
  history.flatMap((message) => message.content.flatMap((block) => (block.type === "tool_result" ? [block] : [])))

describe("InProcessTools.layer", () => {
  it.effect("offers the tools and runs them with the services the handlers need", () =>
    Effect.gen(function* () {
      const toolbox = yield* Effect.service(Toolbox.Toolbox)
      const definitions = yield* toolbox.definitions
      expect(definitions.map((tool) => tool.name)).toEqual(["greet", "slow"])
      const result = yield* toolbox.invoke(Content.toolUse("c1", "greet", { name: "Ada" }))
      expect(result).toEqual(Content.toolResult("c1", "Hello, Ada!"))
      const bad = yield* toolbox.invoke(Content.toolUse("c2", "greet", { name: 1 }))
      expect(bad.is_error).toBe(true)
      expect(bad.content).toContain('Expected string, got 1\n  at ["name"]')
    }).pipe(
      Effect.provide(InProcessTools.layer([greet, slow])),
      Effect.provideService(Greeting, "Hello"),
      Effect.scoped
    )
  )

  it.effect("in an agent, the agent's tool_timeout_ms cuts a slow tool short with an error result", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "t1", name: "slow" }),
        ScriptedModel.text("It timed out.")
      ])
      const agent = Agent.layer({
        model: "m",
        provider: model.layer,
        tools: InProcessTools.layer([greet, slow]),
        settings: { tool_timeout_ms: 2_000 }
      })
      const outcome = yield* TestClockDriver.run(
        Agent.run("Go").pipe(Effect.provide(agent), Effect.provideService(Greeting, "Hello"))
      )
      expect(outcome.status).toBe("completed")
      const [result] = resultsOf(outcome.history)
      expect(result?.is_error).toBe(true)
      expect(result?.content).toContain("timed out after 2000 ms")
    })
  )
})
