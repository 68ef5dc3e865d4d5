import { Content, Metrics, Session, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Meter from "../src/internal/meter.js"
import { recordingTracer } from "./harness.js"

describe("observing a run", () => {
  it.effect("session.subscribe streams every event of the run, in order, ending with run_ended", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.rateLimited(), ScriptedModel.text("ok")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const events = yield* session.subscribe
      const collected = yield* Effect.forkChild(
        Stream.runCollect(events.pipe(Stream.takeUntil((event) => event.type === "run_ended")))
      )
      yield* TestClockDriver.run(session.run("hi"))
      const types = Array.from(yield* Fiber.join(collected), (event) => event.type)
      assert.deepStrictEqual(types, [
        "run_started",
        "turn_started",
        "model_request",
        "retry_scheduled",
        "model_request",
        "text_delta",
        "model_response",
        "turn_ended",
        "run_ended"
      ])
    })
  )

  it.effect("the loop carries spans: invoke_agent, turn, chat {model}", () =>
    Effect.gen(function* () {
      const { spans, tracer } = yield* recordingTracer
      const model = yield* ScriptedModel.make([ScriptedModel.text("ok")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      yield* session.run("hi").pipe(Effect.withTracer(tracer))
      assert.includeMembers(
        spans.map((span) => span.name),
        ["invoke_agent", "agent_kernel.turn", "chat m"]
      )
    })
  )

  it.effect(
    "a tool's code runs under its execute_tool span, which a failure's cause names, and every span carries the caller's span annotations",
    () =>
      Effect.gen(function* () {
        const { spans, tracer: recording } = yield* recordingTracer
        const current: Array<string> = []
        const toolbox: Toolbox.Service = {
          definitions: Effect.succeed([
            { name: "look", description: "Reads its span", input_schema: { type: "object" } },
            { name: "crash", description: "Dies", input_schema: { type: "object" } }
          ]),
          invoke: (call) =>
            Effect.flatMap(Effect.orDie(Effect.currentSpan), (span) => {
              current.push(span.name)
              return call.name === "crash"
                ? Effect.die(new Error("the tool broke"))
                : Effect.succeed(Content.toolResult(call.id, "ok"))
            })
        }
        const model = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "a", name: "look" }, { id: "b", name: "crash" }),
          ScriptedModel.text("done")
        ])
        const session = yield* Session.make({ model: "m" }).pipe(
          Effect.provide(model.layer),
          Effect.provideService(Toolbox.Toolbox, toolbox)
        )
        const outcome = yield* session
          .run("hi")
          .pipe(Effect.annotateSpans("tenant", "t-1"), Effect.withTracer(recording))
        assert.deepStrictEqual(current, ["execute_tool look", "execute_tool crash"])
        const crashed = outcome.history
          .flatMap((message) => message.content)
          .find((block) => block.type === "tool_result" && block.tool_use_id === "b")
        assert.include(crashed?.type === "tool_result" ? crashed.content : "", "at execute_tool crash")
        // After the calls the run's context is its own again: the next turn's spans are children of the run's.
        const run = spans.find((span) => span.name === "invoke_agent")
        const turns = spans.filter((span) => span.name === "agent_kernel.turn")
        assert.strictEqual(turns.length, 2)
        for (const turn of turns) assert.strictEqual(Option.getOrUndefined(turn.parent), run)
        assert.isAbove(spans.length, 5)
        for (const span of spans) assert.strictEqual(span.attributes.get("tenant"), "t-1", span.name)
      })
  )

  it.effect("metrics count retries by category, turns, and runs by status", () =>
    Effect.gen(function* () {
      const retries = Metric.withAttributes(Metrics.retries, { category: "overloaded" })
      const completed = Metric.withAttributes(Metrics.runs, { status: "completed" })
      const [retriesBefore, turnsBefore, runsBefore] = [
        (yield* Metric.value(retries)).count,
        (yield* Metric.value(Metrics.turns)).count,
        (yield* Metric.value(completed)).count
      ]
      const model = yield* ScriptedModel.make([ScriptedModel.error("overloaded"), ScriptedModel.text("ok")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      yield* TestClockDriver.run(session.run("hi"))
      assert.strictEqual((yield* Metric.value(retries)).count - retriesBefore, 1)
      assert.strictEqual((yield* Metric.value(Metrics.turns)).count - turnsBefore, 1)
      assert.strictEqual((yield* Metric.value(completed)).count - runsBefore, 1)
    })
  )

  it.effect("a run's counters carry the metric labels of the fiber that runs it", () =>
    Effect.gen(function* () {
      const tenant = (metric: Metric.Counter<number>) => Metric.withAttributes(metric, { tenant: "observability-test" })
      const completed = tenant(Metric.withAttributes(Metrics.runs, { status: "completed" }))
      const [turnsBefore, runsBefore, untaggedBefore] = [
        (yield* Metric.value(tenant(Metrics.turns))).count,
        (yield* Metric.value(completed)).count,
        (yield* Metric.value(Metric.withAttributes(Metrics.runs, { status: "completed" }))).count
      ]
      const model = yield* ScriptedModel.make([ScriptedModel.text("ok")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      yield* session
        .run("hi")
        .pipe(Effect.provideService(Metric.CurrentMetricAttributes, { tenant: "observability-test" }))
      assert.strictEqual((yield* Metric.value(tenant(Metrics.turns))).count - turnsBefore, 1)
      assert.strictEqual((yield* Metric.value(completed)).count - runsBefore, 1)
      // The run is counted under the fiber's labels only, not also without them.
      assert.strictEqual(
        (yield* Metric.value(Metric.withAttributes(Metrics.runs, { status: "completed" }))).count,
        untaggedBefore
      )
    })
  )
})

describe("metrics switch", () => {
  it.effect("a session made with metrics: false leaves the global counters alone", () =>
    Effect.gen(function* () {
      const before = (yield* Metric.value(Metrics.turns)).count
      const model = yield* ScriptedModel.make([ScriptedModel.text("ok")])
      const session = yield* Session.make({ model: "m", metrics: false }).pipe(Effect.provide(model.layer))
      yield* session.run("hi")
      assert.strictEqual((yield* Metric.value(Metrics.turns)).count, before)
    })
  )
})

describe("the GenAI meter", () => {
  it("is one per provider name, shared by the sessions of every provider object of that name", () => {
    // Providers made per session (a common shape) still share one meter.
    expect(Meter.forProvider("tenant-1")).toBe(Meter.forProvider("tenant-1"))
    expect(Meter.forProvider("tenant-2")).not.toBe(Meter.forProvider("tenant-1"))
  })
})
