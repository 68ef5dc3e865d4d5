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
    parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
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

  it.effect("offer a model a plain JSON Schema of what it writes, with descriptions and checks", () =>
    Effect.gen(function* () {
      const toolbox = yield* natural
      const [definition] = yield* toolbox.definitions
      expect(definition?.input_schema).toEqual({
        type: "object",
        properties: {
          count: { type: "number" },
          whole: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
          finite: { type: "number" },
          described: { type: "number", description: "How many" },
          bounded: { type: "number", minimum: 1, maximum: 10 },
          when: { type: "string", description: "When it starts" },
          note: { type: "string" },
          limit: { type: "number", description: "At most this many" },
          mode: { type: "string", enum: ["fast", "slow"] },
          tags: { type: "array", items: { type: "string" } },
          point: {
            type: "object",
            properties: { x: { type: "number" }, y: { type: "number" } },
            required: ["x", "y"],
            additionalProperties: false
          },
          weights: { type: "object", additionalProperties: { type: "number" } }
        },
        required: ["count", "whole", "finite", "described", "bounded", "when", "mode", "tags", "point", "weights"],
        additionalProperties: false
      })
    })
  )

  it.effect("decode what a model writes: numbers, an ISO date, optional fields left out", () =>
    Effect.gen(function* () {
      const toolbox = yield* natural
      const result = yield* toolbox.invoke(use("plan", goodPlan))
      expect(result).toMatchObject({ is_error: false })
      expect(JSON.parse(result.content)).toEqual({ ...goodPlan, when: "2026-03-01T10:00:00.000Z", isDate: true })
    })
  )

  it.effect("tell a model which argument is wrong and what it sent", () =>
    Effect.gen(function* () {
      const toolbox = yield* natural
      const result = yield* toolbox.invoke(
        use("plan", {
          ...goodPlan,
          count: "two",
          finite: "NaN",
          described: "Infinity",
          bounded: 11,
          when: "soon",
          note: null,
          mode: "medium",
          weights: { a: "heavy" }
        })
      )
      expect(result.is_error).toBe(true)
      expect(result.content).toBe(
        [
          'Invalid arguments for tool "plan"; fix them and call it again:',
          'Expected number, got "two"',
          '  at ["count"]',
          'Expected number, got "NaN"',
          '  at ["finite"]',
          'Expected number, got "Infinity"',
          '  at ["described"]',
          "Expected a value between 1 and 10, got 11",
          '  at ["bounded"]',
          "Expected a valid Date, got Invalid Date",
          '  at ["when"]',
          "Expected string, got null",
          '  at ["note"]',
          'Expected "fast" | "slow", got "medium"',
          '  at ["mode"]',
          'Expected number, got "heavy"',
          '  at ["weights"]["a"]'
        ].join("\n")
      )
      const add = yield* box
      expect((yield* add.invoke(use("add", { a: "two", b: 3 }))).content).toBe(
        'Invalid arguments for tool "add"; fix them and call it again:\nExpected number, got "two"\n  at ["a"]'
      )
    })
  )
})

const goodPlan = {
  count: 2,
  whole: 3,
  finite: 1.5,
  described: 4,
  bounded: 5,
  when: "2026-03-01T10:00:00Z",
  mode: "fast",
  tags: ["a"],
  point: { x: 1, y: 2 },
  weights: { a: 0.5 }
}

const natural = PluginToolbox.make({
  providers: [
    InProcessTools.make("local", [
      InProcessTools.tool({
        name: "plan",
        description: "Takes the parameters a user writes",
        parameters: Schema.Struct({
          count: Schema.Number,
          whole: Schema.Int,
          finite: Schema.Finite,
          described: Schema.Number.annotate({ description: "How many" }),
          bounded: Schema.Number.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
          when: Schema.Date.annotate({ description: "When it starts" }),
          note: Schema.optional(Schema.String),
          limit: Schema.optional(Schema.Number.annotate({ description: "At most this many" })),
          mode: Schema.Literals(["fast", "slow"]),
          tags: Schema.Array(Schema.String),
          point: Schema.Struct({ x: Schema.Number, y: Schema.Number }),
          weights: Schema.Record(Schema.String, Schema.Number)
        }),
        handler: (parameters) => Effect.succeed({ ...parameters, isDate: parameters.when instanceof Date })
      })
    ])
  ],
  settings: { tool_timeout_ms: 1_000 }
})
