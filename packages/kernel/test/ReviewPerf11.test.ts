/**
 * Review of perf11: a batch's event array is made at its size (`note` makes a
 * new array, `commit` leaves a shared empty one), and telemetry starts each
 * span and writes its first attributes straight into it. These pin what an
 * embedder sees, unchanged from before the branch: each batch a distinct
 * array that nothing writes into once delivered (a bus may keep it), the
 * batches' contents with sequential and concurrent tools and across runs,
 * and each span's name, kind, parent and attribute order (the ambient
 * annotations first, then the span's own, an annotation of the same name
 * overwritten in its place) on Effect's tracer and on OpenTelemetry's.
 */
import { Content, EventBus, type KernelEvent, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import * as Resource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import { assert, describe, it } from "@effect/vitest"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import { recordingTracer } from "./harness.js"

const toolbox: Toolbox.Service = {
  definitions: Effect.succeed([{ name: "look", description: "Looks", input_schema: { type: "object" } }]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, `seen ${call.id}`))
}

/** A bus that keeps every array it is given, with a copy of what it held then. */
const keepingBus = () => {
  const kept: Array<{ readonly array: ReadonlyArray<KernelEvent.KernelEvent>; readonly copy: string }> = []
  const inner = EventBus.of([{ onEvent: () => Effect.void }])
  const bus: EventBus.Service = {
    ...inner,
    deliver: (events) =>
      Effect.suspend(() => {
        kept.push({ array: events, copy: JSON.stringify(events) })
        return inner.deliver(events)
      })
  }
  return { kept, bus }
}

const script = () =>
  ScriptedModel.make([
    ScriptedModel.toolCalls({ id: "a", name: "look" }, { id: "b", name: "look" }, { id: "c", name: "look" }),
    ScriptedModel.text("one"),
    ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
    ScriptedModel.toolCalls({ id: "d", name: "look" }),
    ScriptedModel.text("two")
  ])

describe("review perf11: a batch's array", () => {
  for (const toolConcurrency of [1, 3]) {
    it.effect(
      `each batch is its own array, never written into once delivered (toolConcurrency ${toolConcurrency})`,
      () =>
        Effect.gen(function* () {
          const model = yield* script()
          const { kept, bus } = keepingBus()
          const session = yield* Session.make({
            model: "m",
            settings: { ...Settings.defaults, max_retries: 2, jitter: "none" },
            toolConcurrency
          }).pipe(
            Effect.provide(model.layer),
            Effect.provideService(Toolbox.Toolbox, toolbox),
            Effect.provideService(EventBus.EventBus, bus)
          )
          assert.strictEqual((yield* TestClockDriver.run(session.run("first"))).status, "completed")
          assert.strictEqual((yield* TestClockDriver.run(session.run("second"))).status, "completed")
          assert.isAbove(kept.length, 8)
          for (const { array, copy } of kept) {
            assert.isAbove(array.length, 0)
            assert.strictEqual(JSON.stringify(array), copy)
          }
          assert.strictEqual(new Set(kept.map((k) => k.array)).size, kept.length)
          // Every event once, in order: each run from run_started to run_ended.
          const types = kept.flatMap((k) => k.array.map((event) => event.type))
          assert.strictEqual(types.filter((t) => t === "run_started").length, 2)
          assert.strictEqual(types.filter((t) => t === "run_ended").length, 2)
          assert.strictEqual(types.filter((t) => t === "tool_result").length, 4)
          assert.strictEqual(types[0], "run_started")
          assert.strictEqual(types.at(-1), "run_ended")
          // A run's start is a batch of its own; then its first turn's start and the model request, together.
          assert.deepStrictEqual(
            kept.slice(0, 2).map((k) => k.array.map((event) => event.type)),
            [["run_started"], ["turn_started", "model_request"]]
          )
        })
    )
  }
})

/** What a span showed: its name, kind, parent's name and attribute names in order. */
interface Seen {
  readonly name: string
  readonly kind: Tracer.SpanKind
  readonly parent: string | undefined
  readonly keys: ReadonlyArray<string>
}

const run = [
  "tenant",
  "agent_kernel.turn",
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.conversation.id"
].concat(["gen_ai.request.model", "agent_kernel.run.id", "agent_kernel.run.status"])
const turn = ["tenant", "agent_kernel.turn"]
const chat = [
  "tenant",
  "agent_kernel.turn",
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.request.model"
].concat(["agent_kernel.attempt", "gen_ai.request.max_tokens"])
const retry = ["tenant", "agent_kernel.turn", "gen_ai.request.model", "error.type", "agent_kernel.retry.category"]
  .concat(["agent_kernel.retry.attempt", "agent_kernel.retry.delay_ms", "agent_kernel.retry.source"])
  .concat(["agent_kernel.retry.budget_used", "agent_kernel.retry.budget_left", "agent_kernel.retry.retry_after_ms"])
const tool = ["tenant", "agent_kernel.turn", "gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id"].concat(
  ["gen_ai.tool.type"]
)

describe("review perf11: each span's name, kind, parent and attributes in order", () => {
  it.effect("on Effect's tracer, with ambient annotations (one of them a name the kernel also writes)", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
        ScriptedModel.toolCalls({ id: "a", name: "look" }),
        ScriptedModel.text("done")
      ])
      const { spans, tracer } = yield* recordingTracer
      const session = yield* Session.make({
        id: "s",
        model: "m",
        maxOutputTokens: 64,
        settings: { ...Settings.defaults, max_retries: 2, jitter: "none" }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, toolbox))
      const outcome = yield* TestClockDriver.run(
        session
          .run("go")
          .pipe(
            Effect.annotateSpans("tenant", "t"),
            Effect.annotateSpans("agent_kernel.turn", "ambient"),
            Effect.withTracer(tracer)
          )
      )
      assert.strictEqual(outcome.status, "completed")
      const seen: Array<Seen> = spans.map((span) => ({
        name: span.name,
        kind: span.kind,
        parent: Option.getOrUndefined(Option.map(span.parent, (p) => (p._tag === "Span" ? p.name : "external"))),
        keys: Array.from(span.attributes.keys())
      }))
      // A model call that answered: its span ends with the response's model, finish reasons and usage.
      const answered: Seen = {
        name: "chat m",
        kind: "client",
        parent: "agent_kernel.turn",
        keys: [
          ...chat,
          "gen_ai.response.model",
          "gen_ai.response.finish_reasons",
          "gen_ai.usage.input_tokens",
          "gen_ai.usage.output_tokens"
        ]
      }
      assert.deepStrictEqual(seen, [
        { name: "invoke_agent", kind: "internal", parent: undefined, keys: run },
        { name: "agent_kernel.turn", kind: "internal", parent: "invoke_agent", keys: turn },
        { name: "chat m", kind: "client", parent: "agent_kernel.turn", keys: [...chat, "error.type"] },
        { name: "agent_kernel.retry", kind: "internal", parent: "agent_kernel.turn", keys: retry },
        answered,
        { name: "execute_tool look", kind: "internal", parent: "agent_kernel.turn", keys: tool },
        { name: "agent_kernel.turn", kind: "internal", parent: "invoke_agent", keys: turn },
        answered
      ])
      // The span's own value wins over an ambient annotation of the same name, as it did (a run's span and a
      // retry's wait write no turn of their own).
      const values = spans.map((span) => span.attributes.get("agent_kernel.turn"))
      assert.deepStrictEqual(values, ["ambient", 1, 1, "ambient", 1, 1, 2, 2])
      for (const span of spans) assert.strictEqual(span.status._tag, "Ended")
    })
  )

  it.effect("with the tracer disabled no span is made, and the run is the same", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "look" }),
        ScriptedModel.text("done")
      ])
      const { spans, tracer } = yield* recordingTracer
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const outcome = yield* TestClockDriver.run(
        session.run("go").pipe(Effect.withTracerEnabled(false), Effect.withTracer(tracer))
      )
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual(spans.length, 0)
    })
  )

  it.effect("on OpenTelemetry: the same attributes, in the same order", () =>
    Effect.gen(function* () {
      const exporter = new InMemorySpanExporter()
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
      const layer = OtelTracer.layer.pipe(
        Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)),
        Layer.provide(Resource.layer({ serviceName: "review-perf11" }))
      )
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "look" }),
        ScriptedModel.text("done")
      ])
      const session = yield* Session.make({ id: "s", model: "m", maxOutputTokens: 64 }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const outcome = yield* TestClockDriver.run(
        session.run("go").pipe(Effect.annotateSpans("tenant", "t"), Effect.annotateSpans("agent_kernel.turn", "x"))
      ).pipe(Effect.provide(layer))
      assert.strictEqual(outcome.status, "completed")
      const byName = new Map(exporter.getFinishedSpans().map((span) => [span.name, span]))
      assert.deepStrictEqual(Object.keys(byName.get("invoke_agent")!.attributes), run)
      assert.deepStrictEqual(Object.keys(byName.get("agent_kernel.turn")!.attributes), turn)
      assert.deepStrictEqual(Object.keys(byName.get("execute_tool look")!.attributes), tool)
      assert.deepStrictEqual(Object.keys(byName.get("chat m")!.attributes).slice(0, chat.length), chat)
      assert.strictEqual(byName.get("execute_tool look")!.kind, 0 /* INTERNAL */)
      assert.strictEqual(byName.get("chat m")!.kind, 2 /* CLIENT */)
    })
  )
})
