import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/testing/TestClock"
import * as Fiber from "effect/Fiber"
import { InProcessTools, PluginToolbox } from "../src/index.js"
import { use } from "./helpers.js"

class Greeting extends Context.Service<Greeting, string>()("test/Greeting") {}

class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {}

const tools = [
  InProcessTools.tool({
    name: "add",
    description: "Adds two numbers",
    // A JSON number is finite; Schema.Number admits NaN and the infinities, which JSON carries as strings.
    parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
    handler: ({ a, b }) => Effect.succeed(a + b)
  }),
  InProcessTools.tool({
    name: "greet",
    description: "Greets someone",
    parameters: Schema.Struct({ name: Schema.String.check(Schema.isMinLength(1)) }),
    handler: ({ name }) => Effect.map(Effect.service(Greeting), (greeting) => `${greeting}, ${name}!`)
  }),
  InProcessTools.tool({
    name: "read",
    description: "Reads a file",
    parameters: Schema.Struct({ path: Schema.String }),
    handler: ({ path }) => Effect.fail(new NotFound({ message: `no such file: ${path}` }))
  }),
  InProcessTools.tool({
    name: "buggy",
    description: "Has a bug",
    parameters: Schema.Struct({}),
    handler: () => Effect.sync((): unknown => JSON.parse("{oops"))
  }),
  InProcessTools.tool({
    name: "wait",
    description: "Never finishes",
    parameters: Schema.Struct({}),
    handler: () => Effect.never
  }),
  InProcessTools.tool({
    name: "info",
    description: "Returns structured data",
    parameters: Schema.Struct({}),
    handler: () => Effect.succeed({ files: 3, ok: true })
  })
]

const box = PluginToolbox.make({
  providers: [InProcessTools.make("local", tools)],
  settings: { tool_timeout_ms: 1_000, breaker_consecutive_failures: 2 }
}).pipe(Effect.provideService(Greeting, "Hello"))

describe("in-process tools", () => {
  it.effect("offer JSON Schema definitions built from their parameters", () =>
    Effect.gen(function* () {
      const toolbox = yield* box
      const definitions = yield* toolbox.definitions
      expect(definitions.map((d) => d.name)).toEqual(["add", "greet", "read", "buggy", "wait", "info"])
      expect(definitions[0]).toEqual({
        name: "add",
        description: "Adds two numbers",
        input_schema: {
          type: "object",
          required: ["a", "b"],
          properties: { a: { type: "number" }, b: { type: "number" } },
          additionalProperties: false
        }
      })
    })
  )

  it.effect("decode their input and run handlers with the context they were built in", () =>
    Effect.gen(function* () {
      const toolbox = yield* box
      expect(yield* toolbox.invoke(use("add", { a: 2, b: 3 }))).toMatchObject({ content: "5", is_error: false })
      expect((yield* toolbox.invoke(use("greet", { name: "Ada" }))).content).toBe("Hello, Ada!")
      expect((yield* toolbox.invoke(use("info"))).content).toBe('{"files":3,"ok":true}')
    })
  )

  it.effect("turn bad input into an error the model can correct, without counting it", () =>
    Effect.gen(function* () {
      const toolbox = yield* box
      const result = yield* toolbox.invoke(use("add", { a: "two" }))
      expect(result.is_error).toBe(true)
      expect(result.content).toContain('Invalid arguments for tool "add"')
      expect(result.content).toContain('["a"]')
      expect(result.content).toContain('["b"]')
      for (let i = 0; i < 3; i++) yield* toolbox.invoke(use("greet", { name: "" }))
      expect(yield* toolbox.breakers.get("local")!.counts).toEqual({ consecutive: 0, total: 0 })
    })
  )

  it.effect("report a typed failure as the tool's answer, and a defect as a failure that counts", () =>
    Effect.gen(function* () {
      const toolbox = yield* box
      const failed = yield* toolbox.invoke(use("read", { path: "/nope" }))
      expect(failed).toMatchObject({ content: "no such file: /nope", is_error: true })
      expect(yield* toolbox.breakers.get("local")!.counts).toEqual({ consecutive: 0, total: 0 })
      const defect = yield* toolbox.invoke(use("buggy"))
      expect(defect.is_error).toBe(true)
      expect(defect.content).toContain('Tool "buggy" of plugin "local" failed unexpectedly')
      expect(yield* toolbox.breakers.get("local")!.counts).toEqual({ consecutive: 1, total: 1 })
    })
  )

  it.effect("time out on the Clock, and unknown tools are errors listing what exists", () =>
    Effect.gen(function* () {
      const toolbox = yield* box
      const call = yield* Effect.forkChild(toolbox.invoke(use("wait")))
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(call)).content).toBe(
        'Tool "wait" of plugin "local" timed out after 1000 ms; the call was cancelled.'
      )
      const unknown = yield* toolbox.invoke(use("nope"))
      expect(unknown.is_error).toBe(true)
      expect(unknown.content).toBe('Unknown tool "nope". Available tools: add, greet, read, buggy, wait, info.')
    })
  )
})
