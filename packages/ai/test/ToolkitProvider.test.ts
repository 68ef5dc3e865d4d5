/**
 * An effect/ai Toolkit run by the kernel: each handler outcome as a
 * tool_result, and a whole run where an effect/ai model calls an effect/ai
 * tool through the kernel.
 */
import { Content, EventBus, type KernelEvent, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { TestClockDriver } from "@agent-kernel/kernel/testing"
import { FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ToolkitProvider from "../src/ToolkitProvider.js"
import { setup } from "./support.js"

class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { word: Schema.String }) {}

const Define = Tool.make("define", {
  description: "Defines a word",
  parameters: Schema.Struct({ word: Schema.String, limit: Schema.Int }),
  success: Schema.String,
  failure: NotFound
})
const Soft = Tool.make("soft", {
  description: "Returns its failure instead of failing",
  parameters: Schema.Struct({ word: Schema.String }),
  success: Schema.String,
  failure: NotFound,
  failureMode: "return"
})
const Crash = Tool.make("crash", { description: "Always throws", success: Schema.String })

const Dictionary = Toolkit.make(Define, Soft, Crash)

const handlers = Dictionary.toLayer({
  define: ({ word, limit }) =>
    word === "zzz" ? Effect.fail(new NotFound({ word })) : Effect.succeed(`${word}: a happy accident (${limit})`),
  soft: ({ word }) => Effect.fail(new NotFound({ word })),
  crash: () => Effect.sync(() => JSON.parse("{"))
})

const toolbox = ToolkitProvider.layerToolbox("dictionary", Dictionary).pipe(Layer.provide(handlers))

const call = (name: string, input: unknown) =>
  Effect.flatMap(Toolbox.Toolbox, (box) => box.invoke(Content.toolUse(`id-${name}`, name, input)))

describe("ToolkitProvider", () => {
  it.effect("offers the toolkit's tools with their JSON Schema", () =>
    Effect.gen(function* () {
      const definitions = yield* Effect.flatMap(Toolbox.Toolbox, (box) => box.definitions)
      expect(definitions.map((d) => d.name)).toEqual(["define", "soft", "crash"])
      expect(definitions[0]).toMatchObject({
        description: "Defines a word",
        input_schema: { type: "object", required: ["word", "limit"] }
      })
    }).pipe(Effect.provide(toolbox))
  )

  it.effect("every handler outcome comes back as a tool_result; only success is not an error", () =>
    Effect.gen(function* () {
      const ok = yield* call("define", { word: "serendipity", limit: 2 })
      expect(ok).toEqual(Content.toolResult("id-define", "serendipity: a happy accident (2)"))

      const failed = yield* call("define", { word: "zzz", limit: 1 })
      expect(failed.is_error).toBe(true)
      expect(JSON.parse(failed.content)).toEqual({ _tag: "NotFound", word: "zzz" })

      const returned = yield* call("soft", { word: "qq" })
      expect(returned.is_error).toBe(true)
      expect(JSON.parse(returned.content)).toEqual({ _tag: "NotFound", word: "qq" })

      const badArguments = yield* call("define", { word: 42 })
      expect(badArguments.is_error).toBe(true)
      expect(badArguments.content).toContain("Invalid arguments")

      const crashed = yield* call("crash", {})
      expect(crashed.is_error).toBe(true)
      expect(crashed.content).toContain("failed unexpectedly")

      const unknown = yield* call("nope", {})
      expect(unknown.is_error).toBe(true)
      expect(unknown.content).toContain("Unknown tool")
    }).pipe(Effect.provide(toolbox))
  )

  it.effect("a crashing handler counts toward the breaker like any plugin: its tools are withdrawn", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 2; i++) yield* call("crash", {})
      const definitions = yield* Effect.flatMap(Toolbox.Toolbox, (box) => box.definitions)
      expect(definitions).toEqual([])
      const refused = yield* call("define", { word: "serendipity", limit: 1 })
      expect(refused.is_error).toBe(true)
    }).pipe(
      Effect.provide(
        ToolkitProvider.layerToolbox("dictionary", Dictionary, { breaker_consecutive_failures: 2 }).pipe(
          Layer.provide(handlers)
        )
      )
    )
  )

  it.effect("a handler's defect reaches the model as it says itself: an Error's message, another value as JSON", () => {
    const Explode = Tool.make("explode", {
      description: "Dies",
      parameters: Schema.Struct({ how: Schema.String }),
      success: Schema.String
    })
    const Fireworks = Toolkit.make(Explode)
    const dying = Fireworks.toLayer({
      explode: ({ how }) => (how === "error" ? Effect.die(new RangeError("fuse too short")) : Effect.die({ code: 42 }))
    })
    return Effect.gen(function* () {
      const error = yield* call("explode", { how: "error" })
      expect([error.is_error, error.content]).toEqual([
        true,
        expect.stringMatching(/failed unexpectedly: fuse too short$/)
      ])
      const value = yield* call("explode", { how: "value" })
      expect([value.is_error, value.content]).toEqual([
        true,
        expect.stringMatching(/failed unexpectedly: \{"code":42\}$/)
      ])
    }).pipe(Effect.provide(ToolkitProvider.layerToolbox("fireworks", Fireworks).pipe(Layer.provide(dying))))
  })

  it.effect("a run: the effect/ai model calls the effect/ai tool, all through the kernel", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup("anthropic", FaultPlan.make([{ kind: "happy" }, { kind: "happy" }]))
      const events: Array<KernelEvent.KernelEvent> = []
      const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
      const box = yield* Toolbox.Toolbox
      const session = yield* Session.make({ model: "m", settings: { ...Settings.defaults, jitter: "none" } }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider),
        Effect.provideService(EventBus.EventBus, bus),
        Effect.provideService(Toolbox.Toolbox, box)
      )
      const outcome = yield* TestClockDriver.run(session.run("define serendipity"), { horizon: "10 minutes" })
      expect(outcome.status).toBe("completed")
      const results = events.flatMap((event) => (event.type === "tool_result" ? [[event.name, event.is_error]] : []))
      // The fake model calls the first tool offered, with made-up arguments of the right types.
      expect(results).toEqual([["define", false]])
      expect(outcome.final_text).toContain("a happy accident")
    }).pipe(Effect.provide(toolbox))
  )
})
