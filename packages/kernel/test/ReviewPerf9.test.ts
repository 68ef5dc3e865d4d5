/**
 * Review of perf9 (a step's model and tool calls): what a call's fiber starts
 * from is now made once a run (the run's refs without their context, the
 * run's services as entries), the spans of a turn share one Option of their
 * parent (cached by identity), and a tool's exit is returned as its effect.
 * These pin what a provider and a toolbox see and what the spans' parents
 * are, across turns, runs, concurrent calls and an interrupted call.
 */
import { Content, EventBus, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import { recordingTracer } from "./harness.js"

class Tenant extends Context.Tag("ReviewPerf9/Tenant")<Tenant, string>() {}

/** What a call saw: its span, the caller's service and ref, the run's bus and timeouts. */
interface Seen {
  readonly span: string | undefined
  readonly tenant: string | undefined
  readonly ref: number
  readonly bus: EventBus.Service
  readonly attemptMs: number
}

const see = (ref: FiberRef.FiberRef<number>): Effect.Effect<Seen> =>
  Effect.gen(function* () {
    const span = yield* Effect.option(Effect.currentSpan)
    const tenant = yield* Effect.serviceOption(Tenant)
    const bus = yield* EventBus.EventBus
    const timeouts = yield* ModelProvider.CurrentCallTimeouts
    return {
      span: Option.getOrUndefined(Option.map(span, (s) => s.name)),
      tenant: Option.getOrUndefined(tenant),
      ref: yield* FiberRef.get(ref),
      bus,
      attemptMs: Duration.toMillis(timeouts.attempt)
    }
  })

describe("review perf9: what a call sees", () => {
  it.scoped("a provider and a tool see their span, the caller's services and refs, the run's bus and timeouts", () =>
    Effect.gen(function* () {
      const ref = yield* FiberRef.make(0)
      const seen: Array<Seen> = []
      const { tracer } = yield* recordingTracer
      const script = [ScriptedModel.toolCalls({ id: "a", name: "look" }), ScriptedModel.text("done")]
      let step = 0
      const provider = ModelProvider.fromGenerate("probe", () =>
        Effect.map(see(ref), (s) => {
          seen.push(s)
          return script[step++]!
        })
      )
      const toolbox: Toolbox.Service = {
        definitions: Effect.succeed([{ name: "look", description: "Looks", input_schema: { type: "object" } }]),
        invoke: (call) =>
          Effect.map(see(ref), (s) => {
            seen.push(s)
            return Content.toolResult(call.id, "ok")
          })
      }
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, model_attempt_timeout_ms: 12_345 }
      }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const before = yield* FiberRef.get(FiberRef.currentContext)
      yield* session
        .run("hi")
        .pipe(Effect.provideService(Tenant, "t-1"), Effect.locally(ref, 7), Effect.withTracer(tracer))
      assert.strictEqual(yield* FiberRef.get(FiberRef.currentContext), before)
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
})

describe("review perf9: spans' parents", () => {
  it.effect(
    "every call's span is a child of its own turn's span, across turns, concurrent tools, and two sessions at once",
    () =>
      Effect.gen(function* () {
        const { spans, tracer } = yield* recordingTracer
        const toolbox: Toolbox.Service = {
          definitions: Effect.succeed([{ name: "look", description: "Looks", input_schema: { type: "object" } }]),
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
            Effect.provideService(Toolbox.Toolbox, toolbox)
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

  it.effect(
    "an interrupted suspended model call ends its span once, interrupted; the next run's spans are its own",
    () =>
      Effect.gen(function* () {
        const { spans, tracer } = yield* recordingTracer
        const ends = new Map<Tracer.Span, number>()
        const counting = Tracer.make({
          span: (...args) => {
            const span = tracer.span(...args)
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
        const running = yield* Effect.fork(session.run("hi").pipe(Effect.withTracer(counting)))
        yield* TestClock.adjust(Duration.seconds(1))
        yield* Fiber.interrupt(running)
        const first = spans.filter((span) => span.name === "chat m")
        assert.strictEqual(first.length, 1)
        assert.strictEqual(first[0]!.status._tag, "Ended")
        const exit = first[0]!.status._tag === "Ended" ? first[0]!.status.exit : undefined
        assert.isTrue(exit !== undefined && Exit.isInterrupted(exit))
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

describe("review perf9: nothing stale across runs", () => {
  it.scoped("each run's calls see that run's caller services and refs, traced or not", () =>
    Effect.gen(function* () {
      const ref = yield* FiberRef.make(0)
      const seen: Array<Seen> = []
      const provider = ModelProvider.fromGenerate("probe", () =>
        Effect.map(see(ref), (s) => {
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
        .pipe(Effect.provideService(Tenant, "a"), Effect.locally(ref, 1), Effect.withTracer(tracer))
      yield* session
        .run("2")
        .pipe(Effect.provideService(Tenant, "b"), Effect.locally(ref, 2), Effect.withTracer(tracer))
      yield* session
        .run("3")
        .pipe(Effect.provideService(Tenant, "c"), Effect.locally(ref, 3), Effect.withTracerEnabled(false))
      assert.deepStrictEqual(
        seen.map((s) => [s.span, s.tenant, s.ref]),
        [
          ["chat m", "a", 1],
          ["chat m", "b", 2],
          [undefined, "c", 3]
        ]
      )
    })
  )
})
