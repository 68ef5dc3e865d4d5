import { Content, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import * as OtelMetrics from "@effect/opentelemetry/OtelMetrics"
import * as Resource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import { assert, describe, it } from "@effect/vitest"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A tracer that exports every ended span to memory, through @effect/opentelemetry and the OTel SDK. */
const inMemoryTracer = () => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const layer = OtelTracer.layer.pipe(
    Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)),
    Layer.provide(Resource.layer({ serviceName: "telemetry-test" }))
  )
  return { exporter, layer }
}

/**
 * A toolbox whose `crash` tool dies (the defect a broken toolbox leaves) and whose `refuse` tool answers with
 * an error result (what a plugin's crash, timeout or denial comes back as).
 */
const dyingToolbox: Toolbox.Service = {
  definitions: Effect.succeed([
    { name: "crash", description: "Dies", input_schema: { type: "object" } },
    { name: "refuse", description: "Fails", input_schema: { type: "object" } }
  ]),
  invoke: (call) =>
    call.name === "crash"
      ? Effect.die(new Error("the toolbox's process vanished"))
      : Effect.succeed(Content.toolResult(call.id, "plugin crashed (exit code 1)", true))
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

describe("OpenTelemetry export", () => {
  it.effect("a run with a retry, a fallback and a tool crash exports the GenAI span tree with the retry decision", () =>
    Effect.gen(function* () {
      const { exporter, layer } = inMemoryTracer()
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 2_000 }),
        ScriptedModel.error("overloaded"),
        ScriptedModel.toolCalls({ id: "call-1", name: "crash" }, { id: "call-2", name: "refuse" }),
        ScriptedModel.text("done")
      ])
      const session = yield* Session.make({
        id: "session-otel",
        model: "model-a",
        maxOutputTokens: 512,
        settings: { ...Settings.defaults, max_retries: 1, jitter: "none", fallback_models: ["model-b"] }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, dyingToolbox))
      const outcome = yield* TestClockDriver.run(session.run("go")).pipe(Effect.provide(layer))
      assert.strictEqual(outcome.status, "completed")

      const spans = exporter.getFinishedSpans()
      const named = (name: string) => spans.filter((span) => span.name === name)
      const [root] = named("invoke_agent")
      assert.isDefined(root)
      assert.isUndefined(parentOf(root!))
      assert.deepInclude(root!.attributes, {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "scripted",
        "gen_ai.conversation.id": "session-otel",
        "gen_ai.request.model": "model-a",
        "agent_kernel.run.status": "completed"
      })

      const turns = named("agent_kernel.turn")
      assert.deepStrictEqual(
        turns.map((span) => [span.attributes["agent_kernel.turn"], parentOf(span)]),
        [
          [1, root!.spanContext().spanId],
          [2, root!.spanContext().spanId]
        ]
      )
      const [turn1, turn2] = turns
      const childrenOf = (parent: ReadableSpan) =>
        spans
          .filter((span) => parentOf(span) === parent.spanContext().spanId)
          .sort((a, b) => (a.startTime[0] - b.startTime[0]) * 1e9 + (a.startTime[1] - b.startTime[1]))
          .map((span) => span.name)
      assert.deepStrictEqual(childrenOf(turn1!), [
        "chat model-a",
        "agent_kernel.retry",
        "chat model-a",
        "chat model-b",
        "execute_tool crash",
        "execute_tool refuse"
      ])
      // A fallback holds for the call it saved: the next turn starts again at the head of the chain.
      assert.deepStrictEqual(childrenOf(turn2!), ["chat model-a"])

      const [rateLimited, overloaded] = named("chat model-a")
      assert.deepInclude(rateLimited!.attributes, {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "model-a",
        "gen_ai.request.max_tokens": 512,
        "error.type": "rate_limited",
        "agent_kernel.attempt": 1
      })
      assert.strictEqual(rateLimited!.status.code, 2)
      assert.strictEqual(rateLimited!.kind, 2) // SpanKind.CLIENT
      assert.deepInclude(overloaded!.attributes, { "error.type": "overloaded", "agent_kernel.attempt": 2 })

      const [retry] = named("agent_kernel.retry")
      assert.deepInclude(retry!.attributes, {
        "agent_kernel.retry.category": "rate_limited",
        "agent_kernel.retry.attempt": 1,
        "agent_kernel.retry.delay_ms": 2_000,
        "agent_kernel.retry.source": "retry_after",
        "agent_kernel.retry.retry_after_ms": 2_000,
        "agent_kernel.retry.budget_used": 1
      })
      assert.isNumber(retry!.attributes["agent_kernel.retry.budget_left"])

      const [fallback] = turn1!.events.filter((event) => event.name === "agent_kernel.fallback")
      assert.deepInclude(fallback!.attributes, {
        "agent_kernel.fallback.from": "model-a",
        "agent_kernel.fallback.to": "model-b",
        "agent_kernel.fallback.category": "overloaded"
      })

      const [toolUse] = named("chat model-b")
      const final = named("chat model-a")[2]
      assert.deepInclude(toolUse!.attributes, {
        "gen_ai.response.model": "model-b",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5
      })
      // The span holds an array, which @effect/opentelemetry 4 exports as an OpenTelemetry array attribute.
      const finishReasons = (span: ReadableSpan | undefined) => span?.attributes["gen_ai.response.finish_reasons"]
      assert.deepStrictEqual(finishReasons(toolUse), ["tool_use"])
      assert.deepStrictEqual(finishReasons(final), ["end_turn"])

      // A toolbox that dies is a defect, `unknown` like a provider's; an error result is a `tool_error`.
      const [crash] = named("execute_tool crash")
      assert.deepInclude(crash!.attributes, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "crash",
        "gen_ai.tool.call.id": "call-1",
        "gen_ai.tool.type": "function",
        "error.type": "unknown"
      })
      assert.strictEqual(crash!.status.code, 2)
      const [refused] = named("execute_tool refuse")
      assert.deepInclude(refused!.attributes, { "gen_ai.tool.call.id": "call-2", "error.type": "tool_error" })
      assert.strictEqual(refused!.status.code, 2)
      // Both reached the model as error results, and the run went on.
      const results = outcome.history.flatMap((message) =>
        message.content.filter((block): block is Content.ToolResultBlock => block.type === "tool_result")
      )
      assert.deepStrictEqual(
        results.map((result) => result.is_error),
        [true, true]
      )
    })
  )

  it.effect("a context reduction is an event of the turn's span", () =>
    Effect.gen(function* () {
      const { exporter, layer } = inMemoryTracer()
      const model = yield* ScriptedModel.make([ScriptedModel.contextOverflow(), ScriptedModel.text("ok")])
      const session = yield* Session.make({
        model: "m",
        history: Array.from({ length: 6 }, (_, i) => [
          Content.userText(`question ${i} ${"x".repeat(400)}`),
          { role: "assistant" as const, content: [Content.text(`answer ${i} ${"y".repeat(400)}`)] }
        ]).flat()
      }).pipe(Effect.provide(model.layer))
      const outcome = yield* TestClockDriver.run(session.run("go")).pipe(Effect.provide(layer))
      assert.strictEqual(outcome.status, "completed")
      const [turn] = exporter.getFinishedSpans().filter((span) => span.name === "agent_kernel.turn")
      const [reduced] = turn!.events.filter((event) => event.name === "agent_kernel.context_reduced")
      assert.isDefined(reduced)
      assert.isBelow(
        Number(reduced!.attributes?.["agent_kernel.context.tokens_after"]),
        Number(reduced!.attributes?.["agent_kernel.context.tokens_before"])
      )
    })
  )

  it.effect("token usage and call duration reach OpenTelemetry under the GenAI metric names and tags", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.error("overloaded"), ScriptedModel.text("ok")])
      const session = yield* Session.make({ model: "metered-model" }).pipe(Effect.provide(model.layer))
      yield* TestClockDriver.run(session.run("go"))
      const producer = yield* OtelMetrics.makeProducer().pipe(
        Effect.provide(Resource.layer({ serviceName: "telemetry-test" }))
      )
      const collected = yield* Effect.promise(() => producer.collect())
      const metrics = collected.resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)
      const pointsOf = (name: string) =>
        metrics
          .filter((metric) => metric.descriptor.name === name)
          .flatMap((metric): ReadonlyArray<{ readonly attributes: Record<string, unknown> }> => metric.dataPoints)
          .filter((point) => point.attributes["gen_ai.request.model"] === "metered-model")
      const tokens = pointsOf("gen_ai.client.token.usage")
      assert.deepStrictEqual(tokens.map((point) => point.attributes["gen_ai.token.type"]).sort(), ["input", "output"])
      assert.deepInclude(tokens[0]!.attributes, { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "scripted" })
      const durations = pointsOf("gen_ai.client.operation.duration")
      assert.deepStrictEqual(durations.map((point) => point.attributes["error.type"] ?? "ok").sort(), [
        "ok",
        "overloaded"
      ])
    })
  )

  it.effect("each run's spans carry the span annotations of the fiber that runs it", () =>
    Effect.gen(function* () {
      const { exporter, layer } = inMemoryTracer()
      const model = yield* ScriptedModel.make([
        ScriptedModel.text("one"),
        ScriptedModel.text("two"),
        ScriptedModel.text("three")
      ])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      // One tracer for the three runs: only the annotations differ between them.
      yield* Effect.gen(function* () {
        yield* session.run("first").pipe(Effect.annotateSpans("tenant", "a"))
        yield* session.run("second").pipe(Effect.annotateSpans("tenant", "b"))
        yield* session.run("third")
      }).pipe(Effect.provide(layer))
      const tenants = (name: string) =>
        exporter
          .getFinishedSpans()
          .filter((span) => span.name === name)
          .map((span) => span.attributes["tenant"])
      assert.deepStrictEqual(tenants("invoke_agent"), ["a", "b", undefined])
      assert.deepStrictEqual(tenants("agent_kernel.turn"), ["a", "b", undefined])
    })
  )
})
