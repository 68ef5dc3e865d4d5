/**
 * The run's spans, made with Effect's own `withSpan`: `invoke_agent` for a run (a child of the caller's span,
 * if any), `agent_kernel.turn` under it, and under each turn its model calls (`chat {model}`), retry waits and
 * tool calls (`execute_tool {tool}`). A provider and a toolbox run under their call's span, with the caller's
 * services and references; each span has the OpenTelemetry GenAI attributes, the ambient span annotations
 * first, and ends once. All timing is on the TestClock.
 */
import { Content, EventBus, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as Resource from "@effect/opentelemetry/Resource"
import { assert, describe, it } from "@effect/vitest"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as Tracer from "effect/Tracer"
import { recordingTracer } from "./harness.js"

class Tenant extends Context.Service<Tenant, string>()("Spans/Tenant") {}

/** A reference of the caller's, as a fiber-local value (what was a FiberRef). */
const CallerRef = Context.Reference<number>("Spans/CallerRef", { defaultValue: () => 0 })

const toolbox: Toolbox.Service = {
  definitions: Effect.succeed([{ name: "look", description: "Looks", input_schema: { type: "object" } }]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, `seen ${call.id}`))
}

/** What a call saw: its span, the caller's service and reference, the run's bus and timeouts. */
interface Seen {
  readonly span: string | undefined
  readonly tenant: string | undefined
  readonly ref: number
  readonly bus: EventBus.Service
  readonly attemptMs: number
}

const see: Effect.Effect<Seen> = Effect.gen(function* () {
  const span = yield* Effect.option(Effect.currentSpan)
  const tenant = yield* Effect.serviceOption(Tenant)
  const bus = yield* EventBus.EventBus
  const timeouts = yield* ModelProvider.CurrentCallTimeouts
  return {
    span: Option.getOrUndefined(Option.map(span, (s) => s.name)),
    tenant: Option.getOrUndefined(tenant),
    ref: yield* CallerRef,
    bus,
    attemptMs: Duration.toMillis(timeouts.attempt)
  }
})

describe("what a call sees", () => {
  it.effect(
    "a provider and a tool see their span, the caller's services and references, the run's bus and timeouts",
    () =>
      Effect.gen(function* () {
        const seen: Array<Seen> = []
        const { tracer } = yield* recordingTracer
        const script = [ScriptedModel.toolCalls({ id: "a", name: "look" }), ScriptedModel.text("done")]
        let step = 0
        const provider = ModelProvider.fromGenerate("probe", () =>
          Effect.map(see, (s) => {
            seen.push(s)
            return script[step++]!
          })
        )
        const probing: Toolbox.Service = {
          definitions: toolbox.definitions,
          invoke: (call) =>
            Effect.map(see, (s) => {
              seen.push(s)
              return Content.toolResult(call.id, "ok")
            })
        }
        const session = yield* Session.make({
          model: "m",
          settings: { ...Settings.defaults, model_attempt_timeout_ms: 12_345 }
        }).pipe(
          Effect.provideService(ModelProvider.ModelProvider, provider),
          Effect.provideService(Toolbox.Toolbox, probing)
        )
        const before = yield* Effect.context<never>()
        yield* session
          .run("hi")
          .pipe(Effect.provideService(Tenant, "t-1"), Effect.provideService(CallerRef, 7), Effect.withTracer(tracer))
        assert.strictEqual(yield* Effect.context<never>(), before)
        assert.deepStrictEqual(
          seen.map((s) => [s.span, s.tenant, s.ref, s.attemptMs]),
          [
            ["chat m", "t-1", 7, 12_345],
            ["execute_tool look", "t-1", 7, 12_345],
            ["chat m", "t-1", 7, 12_345]
          ]
        )
        // One bus for the whole run, the provider's and the toolbox's alike.
        assert.strictEqual(new Set(seen.map((s) => s.bus)).size, 1)
      })
  )

  it.effect("each run's calls see that run's caller services and references, traced or not", () =>
    Effect.gen(function* () {
      const seen: Array<Seen> = []
      const provider = ModelProvider.fromGenerate("probe", () =>
        Effect.map(see, (s) => {
          seen.push(s)
          return ScriptedModel.text("ok")
        })
      )
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider)
      )
      const { tracer } = yield* recordingTracer
      yield* session
        .run("1")
        .pipe(Effect.provideService(Tenant, "a"), Effect.provideService(CallerRef, 1), Effect.withTracer(tracer))
      yield* session
        .run("2")
        .pipe(Effect.provideService(Tenant, "b"), Effect.provideService(CallerRef, 2), Effect.withTracer(tracer))
      yield* session
        .run("3")
        .pipe(Effect.provideService(Tenant, "c"), Effect.provideService(CallerRef, 3), Effect.withTracerEnabled(false))
      assert.deepStrictEqual(
        seen.map((s) => [s.span, s.tenant, s.ref]),
        [
          ["chat m", "a", 1],
          ["chat m", "b", 2],
          // With the tracer off the span is Effect's no-op span, under the same name.
          ["chat m", "c", 3]
        ]
      )
    })
  )
})

describe("spans' parents", () => {
  it.effect(
    "every call's span is a child of its own turn's span, across turns, concurrent tools, and two sessions at once",
    () =>
      Effect.gen(function* () {
        const { spans, tracer } = yield* recordingTracer
        const slow: Toolbox.Service = {
          definitions: toolbox.definitions,
          // Suspends, so that concurrent calls and the two sessions interleave.
          invoke: (call) => Effect.as(Effect.sleep(Duration.millis(10)), Content.toolResult(call.id, "ok"))
        }
        const sessionOf = Effect.gen(function* () {
          const model = yield* ScriptedModel.make([
            ScriptedModel.toolCalls({ id: "a", name: "look" }, { id: "b", name: "look" }),
            ScriptedModel.toolCalls({ id: "c", name: "look" }),
            ScriptedModel.text("done")
          ])
          return yield* Session.make({ model: "m", toolConcurrency: 2 }).pipe(
            Effect.provide(model.layer),
            Effect.provideService(Toolbox.Toolbox, slow)
          )
        })
        const [one, two] = [yield* sessionOf, yield* sessionOf]
        yield* TestClockDriver.run(
          Effect.all([one.run("hi"), two.run("hi")], { concurrency: 2 }).pipe(Effect.withTracer(tracer))
        )
        const runs = spans.filter((span) => span.name === "invoke_agent")
        const turns = spans.filter((span) => span.name === "agent_kernel.turn")
        const calls = spans.filter((span) => span.name === "chat m" || span.name === "execute_tool look")
        assert.strictEqual(runs.length, 2)
        assert.strictEqual(turns.length, 6)
        assert.strictEqual(calls.length, 6 + 6)
        for (const turn of turns) assert.include(runs, Option.getOrUndefined(turn.parent))
        // Each turn has one chat span and its tool spans (2, 1, 0), all children of it.
        const children = turns.map((turn) =>
          calls.filter((call) => Option.getOrUndefined(call.parent) === turn).map((call) => call.name)
        )
        assert.deepStrictEqual(children.map((names) => names.length).sort(), [1, 1, 2, 2, 3, 3])
        for (const span of spans) assert.strictEqual(span.status._tag, "Ended", span.name)
      })
  )

  it.effect("a run's span is a child of the caller's span", () =>
    Effect.gen(function* () {
      const { spans, tracer } = yield* recordingTracer
      const model = yield* ScriptedModel.make([ScriptedModel.text("ok")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      yield* session.run("hi").pipe(Effect.withSpan("request"), Effect.withTracer(tracer))
      const request = spans.find((span) => span.name === "request")
      const run = spans.find((span) => span.name === "invoke_agent")
      assert.strictEqual(Option.getOrUndefined(run!.parent), request)
    })
  )

  it.effect("a span a wrapper of the seam makes is the run's child; the call's own span is the turn's", () =>
    Effect.gen(function* () {
      const { spans, tracer } = yield* recordingTracer
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "look" }),
        ScriptedModel.text("ok")
      ])
      const session = yield* Session.make({
        model: "m",
        effects: (live) => ({
          model: (request, info) => Effect.withSpan(live.model(request, info), "journal model"),
          tool: (call, info) => Effect.withSpan(live.tool(call, info), "journal tool"),
          sleep: live.sleep
        })
      }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, toolbox))
      yield* session.run("hi").pipe(Effect.withTracer(tracer))
      const parentOf = (name: string) =>
        spans
          .filter((span) => span.name === name)
          .map((span) =>
            Option.getOrUndefined(
              Option.map(span.parent, (parent) => (parent._tag === "Span" ? parent.name : "external"))
            )
          )
      assert.deepStrictEqual(parentOf("journal model"), ["invoke_agent", "invoke_agent"])
      assert.deepStrictEqual(parentOf("journal tool"), ["invoke_agent"])
      assert.deepStrictEqual(parentOf("chat m"), ["agent_kernel.turn", "agent_kernel.turn"])
      assert.deepStrictEqual(parentOf("execute_tool look"), ["agent_kernel.turn"])
    })
  )

  it.effect(
    "an interrupted suspended model call ends its span once, interrupted; the next run's spans are its own",
    () =>
      Effect.gen(function* () {
        const { spans, tracer } = yield* recordingTracer
        const ends = new Map<Tracer.Span, number>()
        const counting = Tracer.make({
          span(options) {
            const span = tracer.span(options)
            const end = span.end.bind(span)
            span.end = (time, exit) => {
              ends.set(span, (ends.get(span) ?? 0) + 1)
              end(time, exit)
            }
            return span
          },
          context: tracer.context
        })
        let calls = 0
        const provider = ModelProvider.fromGenerate("slow", () =>
          calls++ === 0
            ? Effect.as(Effect.sleep(Duration.seconds(5)), ScriptedModel.text("late"))
            : Effect.succeed(ScriptedModel.text("ok"))
        )
        const session = yield* Session.make({ model: "m" }).pipe(
          Effect.provideService(ModelProvider.ModelProvider, provider)
        )
        const running = yield* Effect.forkChild(session.run("hi").pipe(Effect.withTracer(counting)))
        yield* TestClock.adjust(Duration.seconds(1))
        yield* Fiber.interrupt(running)
        const first = spans.filter((span) => span.name === "chat m")
        assert.strictEqual(first.length, 1)
        assert.strictEqual(first[0]!.status._tag, "Ended")
        const exit = first[0]!.status._tag === "Ended" ? first[0]!.status.exit : undefined
        assert.isTrue(exit !== undefined && Exit.hasInterrupts(exit))
        const outcome = yield* session.run("again").pipe(Effect.withTracer(counting))
        assert.strictEqual(outcome.status, "completed")
        const chats = spans.filter((span) => span.name === "chat m")
        const turns = spans.filter((span) => span.name === "agent_kernel.turn")
        assert.strictEqual(chats.length, 2)
        assert.strictEqual(Option.getOrUndefined(chats[1]!.parent), turns[turns.length - 1])
        for (const span of spans) assert.strictEqual(ends.get(span), 1, span.name)
      })
  )
})

/** What a span showed: its name, kind, parent's name and attribute names in order. */
interface Shape {
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

describe("each span's name, kind, parent and attributes in order", () => {
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
            Effect.annotateSpans("agent_kernel.turn", "ambient"),
            Effect.annotateSpans("tenant", "t"),
            Effect.withTracer(tracer)
          )
      )
      assert.strictEqual(outcome.status, "completed")
      const seen: Array<Shape> = spans.map((span) => ({
        name: span.name,
        kind: span.kind,
        parent: Option.getOrUndefined(Option.map(span.parent, (p) => (p._tag === "Span" ? p.name : "external"))),
        keys: Array.from(span.attributes.keys())
      }))
      // A model call that answered: its span ends with the response's model, finish reasons and usage.
      const answered: Shape = {
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
      // The span's own value wins over an ambient annotation of the same name (a run's span and a retry's
      // wait write no turn of their own).
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
        Layer.provide(Resource.layer({ serviceName: "spans-test" }))
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
        session.run("go").pipe(Effect.annotateSpans("agent_kernel.turn", "x"), Effect.annotateSpans("tenant", "t"))
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
