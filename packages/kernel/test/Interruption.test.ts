/**
 * A run interrupted anywhere: at any operation of its start, loop or end; while a model or tool call waits
 * (the call is interrupted and waited for, so its finalizers have run before `run_ended`); as a call
 * completes; during its tools (the results that came back are kept); before a retry runs (its charge is given
 * back); or cut by the wall-clock bound. Every way leaves a status, one `run_ended`, every span ended once and a
 * history in which every tool_use has a tool_result. All timing is on the TestClock.
 */
import { Content, EventBus, type KernelEvent, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as References from "effect/References"
import * as TestClock from "effect/testing/TestClock"
import * as Tracer from "effect/Tracer"
import { echoToolbox, ofType, recordingTracer } from "./harness.js"

class Tenant extends Context.Service<Tenant, string>()("Interruption/Tenant") {}

const answer = ScriptedModel.text("done")

const settingsWith = (attemptTimeoutMs: number): Settings.Settings => ({
  ...Settings.defaults,
  jitter: "none",
  model_attempt_timeout_ms: attemptTimeoutMs
})

/** A session over `generate`, its run events kept in `events`. */
const sessionOf = (
  generate: () => Effect.Effect<ModelProvider.ModelResponse, never>,
  attemptTimeoutMs: number,
  events: Array<KernelEvent.KernelEvent>
) =>
  Effect.gen(function* () {
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    return yield* Session.make({ model: "m", settings: settingsWith(attemptTimeoutMs) }).pipe(
      Effect.provideService(ModelProvider.ModelProvider, ModelProvider.fromGenerate("p", generate)),
      Effect.provideService(EventBus.EventBus, bus)
    )
  })

/** Waits until `started`, then forever; when interrupted, takes `releaseMs` on the Clock to release. */
const hanging = (started: Deferred.Deferred<void>, log: Array<string>, releaseMs: number) =>
  Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
    Effect.onInterrupt(() =>
      Effect.andThen(
        Effect.sleep(releaseMs),
        Effect.sync(() => {
          log.push("call released")
        })
      )
    )
  )

const runEnded = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
  events.flatMap((event) => (event.type === "run_ended" ? [event.status] : []))

/** The fiber ended by interruption only. */
const assertInterrupted = (exit: Exit.Exit<unknown, unknown>) =>
  assert.isTrue(
    Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause),
    `expected an interruption, got ${String(exit)}`
  )

/** Interrupts the fiber from another one, so the clock can be moved while the interruption waits. */
const interruptLater = (fiber: Fiber.Fiber<unknown, unknown>) => Effect.forkChild(Fiber.interrupt(fiber))

const endLogged = (log: Array<string>) =>
  EventBus.make([
    {
      onEvent: (event: KernelEvent.KernelEvent) =>
        Effect.sync(() => {
          if (event.type === "run_ended") log.push(`run_ended ${event.status}`)
        })
    }
  ])

const tools: Toolbox.Service = {
  definitions: Effect.succeed([{ name: "echo", description: "Echo", input_schema: { type: "object" } }]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, "echoed"))
}

/** Answers by the conversation's last message, so a run interrupted anywhere leaves the next one a fitting answer. */
const byLast = ModelProvider.fromGenerate("by-last", (request) => {
  const last = request.messages.at(-1)
  const answered = last?.content.some((block) => block.type === "tool_result") === true
  if (answered) return Effect.succeed(ScriptedModel.text("after tool"))
  const input = last === undefined ? "" : Content.textOf(last)
  return Effect.succeed(
    input === "first"
      ? { ...ScriptedModel.toolCalls({ id: `t-${request.messages.length}`, name: "echo" }), model: request.model }
      : { ...ScriptedModel.text(`answer to ${input}`), model: request.model }
  )
})

/** A tracer that counts how many times each span it makes is ended. */
const countingTracer = Effect.map(Effect.tracer, (base) => {
  const ends = new Map<Tracer.Span, number>()
  const tracer = Tracer.make({
    span(options) {
      const span = base.span(options)
      ends.set(span, 0)
      const end = span.end.bind(span)
      Object.defineProperty(span, "end", {
        value: (endTime: bigint, exit: Exit.Exit<unknown, unknown>) => {
          ends.set(span, (ends.get(span) ?? 0) + 1)
          end(endTime, exit)
        }
      })
      return span
    },
    context: base.context
  })
  return { ends, tracer }
})

describe("a run interrupted at every operation", () => {
  // `MaxOpsBeforeYield` makes the caller's fiber yield after its n-th operation; the test interrupts it
  // there. The sweep puts the interruption at every operation of the run's start, loop and end (one with a
  // tool call: two model calls and a tool call).
  it.effect("gives the caller its context back, frees the lock, ends each span once, pairs run events", () =>
    Effect.gen(function* () {
      const problems: Array<string> = []
      const firstEnded = new Map<string, number>()
      for (const maxOps of [10, 11, 12, 13, 14, 15, 16, 17])
        for (let yields = 1; yields <= 45; yields++) {
          const at = `${maxOps}x${yields}`
          const events: Array<KernelEvent.KernelEvent> = []
          const bus = EventBus.of([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
          const { ends, tracer } = yield* countingTracer
          const session = yield* Session.make({ model: "m" }).pipe(
            Effect.provideService(ModelProvider.ModelProvider, byLast),
            Effect.provideService(Toolbox.Toolbox, tools),
            Effect.provideService(EventBus.EventBus, bus)
          )
          let restored: boolean | undefined
          const caller = Effect.flatMap(Effect.context<never>(), (before) =>
            Effect.onExit(session.run("first"), () =>
              Effect.map(Effect.context<never>(), (after) => {
                restored = after === before
              })
            )
          ).pipe(
            Effect.provideService(Tenant, "caller"),
            Effect.withSpan("caller"),
            Effect.withTracer(tracer),
            Effect.provideService(References.MaxOpsBeforeYield, maxOps)
          )
          const first = yield* Effect.forkChild(caller)
          for (let i = 0; i < yields; i++) yield* Effect.yieldNow
          yield* Fiber.interrupt(first)
          const exit = yield* Fiber.await(first)
          if (restored === false) problems.push(`${at}: the caller's context was not put back`)
          const second = yield* Effect.forkChild(session.run("second"))
          yield* TestClock.adjust("1 second")
          if (second.pollUnsafe() === undefined) {
            problems.push(`${at}: the next run never started`)
            yield* Fiber.interrupt(second)
            continue
          }
          const history = yield* session.history
          const unanswered = Content.unansweredToolUses(history)
          if (unanswered.length > 0) problems.push(`${at}: unanswered ${unanswered.join(",")}`)
          const runEvents = events.filter((event) => event.type === "run_started" || event.type === "run_ended")
          const ids = new Set(runEvents.map((event) => event.run_id))
          for (const id of ids) {
            const kinds = runEvents.filter((event) => event.run_id === id).map((event) => event.type)
            if (kinds.join() !== "run_started,run_ended") problems.push(`${at}: ${id} ${kinds.join()}`)
          }
          const statuses = events.flatMap((event) => (event.type === "run_ended" ? [event.status] : []))
          const status = `${statuses.length === 2 ? statuses[0]! : "never started"}${Exit.hasInterrupts(exit) ? "" : ", not interrupted"}`
          firstEnded.set(status, (firstEnded.get(status) ?? 0) + 1)
          // The caller's own span is Effect's (`withSpan`), which an interruption as it starts can leave open.
          for (const [span, count] of ends)
            if (span.name !== "caller" && count !== 1) problems.push(`${at}: span ${span.name} ended ${count} times`)
        }
      assert.deepStrictEqual(problems, [])
      // The sweep interrupted runs before they started, as they ran, and as they ended (a run whose end is
      // under way completes, and its caller is interrupted after it: "completed").
      assert.isAbove(firstEnded.get("never started") ?? 0, 0)
      assert.isAbove(firstEnded.get("interrupted") ?? 0, 0)
      assert.isAbove(firstEnded.get("completed") ?? 0, 0)
      assert.isAbove(firstEnded.get("completed, not interrupted") ?? 0, 0)
    })
  )
})

describe("a run interrupted while a model call waits", () => {
  it.effect("waits for the call's finalizers before it ends; the session then runs the next run", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      // The first call hangs; the next answers.
      let calls = 0
      const session = yield* sessionOf(
        () => (calls++ === 0 ? hanging(started, log, 1_000) : Effect.succeed(answer)),
        5_000,
        events
      )
      const run = yield* Effect.forkChild(session.run("go"))
      yield* Deferred.await(started)
      const interrupting = yield* interruptLater(run)
      yield* TestClock.adjust(999)
      assert.isUndefined(run.pollUnsafe(), "the run ended before its call's finalizer")
      yield* TestClock.adjust(1)
      yield* Fiber.join(interrupting)
      assertInterrupted(yield* Fiber.await(run))
      assert.deepStrictEqual(log, ["call released"])
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
      // The next run on the same session starts and ends normally: its lock was released, nothing fires into it.
      assert.strictEqual((yield* session.run("again")).status, "completed")
      assert.deepStrictEqual(runEnded(events), ["interrupted", "completed"])
    })
  )

  it.effect("the call's finalizers run before run_ended (a one-shot provider)", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(
          ModelProvider.ModelProvider,
          ModelProvider.fromGenerate("p", () => hanging(started, log, 1_000))
        ),
        Effect.provideService(EventBus.EventBus, yield* endLogged(log))
      )
      const run = yield* Effect.forkChild(session.run("go"))
      yield* Deferred.await(started)
      const interrupting = yield* interruptLater(run)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(interrupting)
      assert.deepStrictEqual(log, ["call released", "run_ended interrupted"])
    })
  )

  it.effect("interrupted twice (the second while the first waits for the call's finalizer), it still waits", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      const session = yield* sessionOf(() => hanging(started, log, 1_000), 5_000, events)
      const run = yield* Effect.forkChild(session.run("go"))
      yield* Deferred.await(started)
      const first = yield* interruptLater(run)
      yield* TestClock.adjust(500)
      const second = yield* interruptLater(run)
      yield* TestClock.adjust(499)
      assert.isUndefined(run.pollUnsafe(), "a second interruption cut the wait for the call's finalizer")
      yield* TestClock.adjust(1)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      assertInterrupted(yield* Fiber.await(run))
      assert.deepStrictEqual(log, ["call released"])
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
    })
  )

  it.effect("a call that ignores interruption is waited for to its end", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      let calls = 0
      // Five seconds, uninterruptibly; the attempt's timeout is two.
      const session = yield* sessionOf(
        () => {
          calls++
          return Effect.uninterruptible(Effect.as(Effect.sleep(5_000), answer))
        },
        2_000,
        events
      )
      const run = yield* Effect.forkChild(session.run("go"))
      yield* TestClock.adjust(1_000)
      const interrupting = yield* interruptLater(run)
      yield* TestClock.adjust(3_999)
      assert.isUndefined(run.pollUnsafe(), "the run ended while its call still ran")
      yield* TestClock.adjust(1)
      yield* Fiber.join(interrupting)
      assertInterrupted(yield* Fiber.await(run))
      assert.strictEqual(calls, 1)
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
    })
  )

  it.effect("interrupted as the attempt's timeout fires (same clock tick): the run ends interrupted", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      const session = yield* sessionOf(() => hanging(started, [], 0), 1_000, events)
      const run = yield* Effect.forkChild(session.run("go"))
      yield* Deferred.await(started)
      // An interrupter sleeping to the same instant as the attempt's timeout.
      const interrupting = yield* Effect.forkChild(Effect.andThen(Effect.sleep(1_000), Fiber.interrupt(run)))
      yield* TestClock.adjust(1_000)
      yield* Fiber.join(interrupting)
      assertInterrupted(yield* Fiber.await(run))
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
    })
  )

  for (const order of ["completed, then interrupted", "interrupted, then completed"] as const)
    it.effect(`interrupted as the call completes (${order}): interrupted or completed, never both, nothing left`, () =>
      Effect.gen(function* () {
        const events: Array<KernelEvent.KernelEvent> = []
        const started = yield* Deferred.make<void>()
        const reply = yield* Deferred.make<ModelProvider.ModelResponse>()
        const { spans, tracer } = yield* recordingTracer
        const session = yield* sessionOf(
          () => Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(reply)),
          5_000,
          events
        )
        const run = yield* Effect.forkChild(Effect.withTracer(session.run("go"), tracer))
        yield* Deferred.await(started)
        yield* Effect.sync(() => {
          if (order === "completed, then interrupted") {
            Deferred.doneUnsafe(reply, Exit.succeed(answer))
            run.interruptUnsafe()
          } else {
            run.interruptUnsafe()
            Deferred.doneUnsafe(reply, Exit.succeed(answer))
          }
        })
        const exit = yield* Fiber.await(run)
        const ended = runEnded(events)
        assert.strictEqual(ended.length, 1)
        if (Exit.isSuccess(exit)) assert.deepStrictEqual(ended, [exit.value.status])
        else {
          assertInterrupted(exit)
          assert.deepStrictEqual(ended, ["interrupted"])
        }
        // Every span ended, the model call's once.
        assert.deepStrictEqual(
          spans.filter((span) => span.status._tag !== "Ended").map((span) => span.name),
          []
        )
        assert.strictEqual(spans.filter((span) => span.name === "chat m").length, 1)
      })
    )
})

describe("a run interrupted while a tool call waits", () => {
  it.effect("waits for the tool call's finalizers before it ends", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = { ...echoToolbox, invoke: () => hanging(started, log, 1_000) }
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo" }),
        ScriptedModel.text("never")
      ])
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox),
        Effect.provideService(EventBus.EventBus, yield* endLogged(log))
      )
      const run = yield* Effect.forkChild(session.run("go"))
      yield* Deferred.await(started)
      const interrupting = yield* interruptLater(run)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(interrupting)
      assert.deepStrictEqual(log, ["call released", "run_ended interrupted"])
    })
  )

  it.effect("its span ends once, as interrupted, after its finalizer; every span ends", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = { ...echoToolbox, invoke: () => hanging(started, log, 1_000) }
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo" }),
        ScriptedModel.text("never")
      ])
      const { spans, tracer } = yield* recordingTracer
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const run = yield* Effect.forkChild(Effect.withTracer(session.run("go"), tracer))
      yield* Deferred.await(started)
      const interrupting = yield* interruptLater(run)
      yield* TestClock.adjust(999)
      const tool = spans.find((span) => span.name === "execute_tool echo")
      assert.isDefined(tool)
      assert.strictEqual(tool!.status._tag, "Started", "the tool's span ended before its finalizer ran")
      yield* TestClock.adjust(1)
      yield* Fiber.join(interrupting)
      assertInterrupted(yield* Fiber.await(run))
      assert.deepStrictEqual(log, ["call released"])
      const status = tool!.status
      assert.strictEqual(status._tag, "Ended")
      if (status._tag === "Ended") assert.isTrue(Exit.hasInterrupts(status.exit))
      assert.deepStrictEqual(
        spans.filter((span) => span.status._tag !== "Ended").map((span) => span.name),
        []
      )
    })
  )

  it.effect("a call that waited and answered: the tool call after it is interruptible", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never)
      }
      const provider = ModelProvider.fromGenerate("p", () =>
        Effect.as(Effect.sleep(1_000), ScriptedModel.toolCalls({ id: "a", name: "echo" }))
      )
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const run = yield* Effect.forkChild(session.run("go"))
      yield* TestClock.adjust(1_000)
      yield* Deferred.await(started)
      yield* Fiber.interrupt(run)
      assertInterrupted(yield* Fiber.await(run))
    })
  )

  for (const toolConcurrency of [1, 2])
    it.effect(`toolConcurrency ${toolConcurrency}: the results that came back are kept, and events agree`, () =>
      Effect.gen(function* () {
        const secondStarted = yield* Deferred.make<void>()
        const toolbox: Toolbox.Service = {
          ...echoToolbox,
          invoke: (call) =>
            call.id === "a"
              ? Effect.succeed(Content.toolResult(call.id, "REAL RESULT A"))
              : Effect.andThen(Deferred.succeed(secondStarted, undefined), Effect.never)
        }
        const model = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }),
          ScriptedModel.text("never")
        ])
        const events: Array<KernelEvent.KernelEvent> = []
        const session = yield* Session.make({ model: "model-a", toolConcurrency }).pipe(
          Effect.provide(model.layer),
          Effect.provideService(
            EventBus.EventBus,
            EventBus.of([{ onEvent: (e) => Effect.sync(() => events.push(e)) }])
          ),
          Effect.provideService(Toolbox.Toolbox, toolbox)
        )
        const fiber = yield* Effect.forkChild(session.run("go"))
        yield* Deferred.await(secondStarted)
        yield* Fiber.interrupt(fiber)
        const history = yield* session.history
        const results = (history.at(-1)?.content ?? []).flatMap((block) =>
          block.type === "tool_result" ? [[block.tool_use_id, block.content, block.is_error]] : []
        )
        assert.deepStrictEqual(results, [
          ["a", "REAL RESULT A", false],
          ["b", "The run was interrupted before this tool returned.", true]
        ])
        // The event stream says what history says: tool a returned, and nothing returned for b.
        assert.deepStrictEqual(
          ofType(events, "tool_result").map((event) => [event.id, event.preview, event.is_error]),
          [["a", "REAL RESULT A", false]]
        )
        assert.strictEqual(ofType(events, "run_ended")[0]?.status, "interrupted")
      })
    )
})

describe("a retry interrupted before it runs is not charged", () => {
  it.effect("an interrupt while a slow observer handles retry_scheduled gives the token back", () =>
    Effect.gen(function* () {
      const inObserver = yield* Deferred.make<void>()
      const events: Array<KernelEvent.KernelEvent> = []
      const model = yield* ScriptedModel.make([ScriptedModel.rateLimited(), ScriptedModel.text("never")])
      const bus = EventBus.of([
        { onEvent: (event) => Effect.sync(() => events.push(event)) },
        {
          onEvent: (event) =>
            event.type === "retry_scheduled"
              ? Effect.andThen(Deferred.succeed(inObserver, undefined), Effect.sleep("1 second"))
              : Effect.void
        }
      ])
      const session = yield* Session.make({ model: "model-a" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(EventBus.EventBus, bus)
      )
      const fiber = yield* Effect.forkChild(session.run("go"))
      yield* Deferred.await(inObserver)
      // The retry was charged when it was decided, and its event says so.
      assert.deepStrictEqual(
        ofType(events, "retry_scheduled").map((event) => event.session_retries_used),
        [1]
      )
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* session.retryBudget, { used: 0, remaining: 20 })
      assert.deepStrictEqual(
        ofType(events, "run_ended").map((event) => [event.status, event.retries.session_total]),
        [["interrupted", 0]]
      )
      assert.lengthOf(yield* model.calls, 1)
    })
  )

  it.effect("an interrupt during a retry's sleep gives the retry's budget token back", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 10_000 }),
        ScriptedModel.text("never")
      ])
      const ended: Array<string> = []
      const scheduled: Array<number> = []
      const bus = yield* EventBus.make([
        {
          onEvent: (event) =>
            Effect.sync(() => {
              if (event.type === "run_ended") ended.push(`${event.status} ${event.retries.session_total}`)
              if (event.type === "retry_scheduled") scheduled.push(event.session_retries_used)
            })
        }
      ])
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(EventBus.EventBus, bus)
      )
      const fiber = yield* Effect.forkChild(session.run("go"))
      yield* TestClock.adjust("1 second")
      // The retry was charged when it was scheduled, and the run is asleep until 10 s.
      assert.deepStrictEqual(scheduled, [1])
      assert.strictEqual((yield* session.retryBudget).used, 1)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(ended, ["interrupted 0"])
      assert.deepStrictEqual(yield* session.retryBudget, { used: 0, remaining: 20 })
      assert.lengthOf(yield* model.calls, 1)
    })
  )
})

describe("the wall-clock bound cuts a waiting call", () => {
  for (const attemptTimeoutMs of [10_000, 2_000])
    it.effect(
      `a model call: ended after its finalizer, wall_clock_exceeded (attempt timeout ${attemptTimeoutMs} ms)`,
      () =>
        Effect.gen(function* () {
          const log: Array<string> = []
          const events: Array<KernelEvent.KernelEvent> = []
          const started = yield* Deferred.make<void>()
          const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
          const session = yield* Session.make({
            model: "m",
            settings: { ...settingsWith(attemptTimeoutMs), max_wall_clock_ms: 2_000 }
          }).pipe(
            Effect.provideService(
              ModelProvider.ModelProvider,
              ModelProvider.fromGenerate("p", () => hanging(started, log, 1_000))
            ),
            Effect.provideService(EventBus.EventBus, bus)
          )
          const run = yield* Effect.forkChild(session.run("go"))
          yield* Deferred.await(started)
          yield* TestClock.adjust(2_999)
          assert.isUndefined(run.pollUnsafe(), "the run ended before its call's finalizer")
          yield* TestClock.adjust(1)
          const outcome = yield* Fiber.join(run)
          assert.deepStrictEqual(log, ["call released"])
          // When the attempt's timeout fires with the bound, either may win; the run ends at the bound anyway.
          assert.strictEqual(outcome.status, "wall_clock_exceeded")
        })
    )

  it.effect("concurrent traced tool calls: each span ends once after its finalizer, wall_clock_exceeded", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) =>
          Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
            Effect.onInterrupt(() =>
              Effect.andThen(
                Effect.sleep(call.id === "a" ? 500 : 1_000),
                Effect.sync(() => {
                  log.push(`released ${call.id}`)
                })
              )
            )
          )
      }
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }),
        ScriptedModel.text("never")
      ])
      const { spans, tracer } = yield* recordingTracer
      const session = yield* Session.make({
        model: "m",
        toolConcurrency: 2,
        settings: { ...Settings.defaults, max_wall_clock_ms: 2_000 }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, toolbox))
      const run = yield* Effect.forkChild(Effect.withTracer(session.run("go"), tracer))
      yield* Deferred.await(started)
      yield* TestClock.adjust(2_999)
      assert.isUndefined(run.pollUnsafe())
      yield* TestClock.adjust(1)
      const outcome = yield* Fiber.join(run)
      assert.strictEqual(outcome.status, "wall_clock_exceeded")
      assert.deepStrictEqual(log, ["released a", "released b"])
      const toolSpans = spans.filter((span) => span.name === "execute_tool echo")
      assert.strictEqual(toolSpans.length, 2)
      for (const tool of toolSpans) {
        assert.strictEqual(tool.status._tag, "Ended")
        if (tool.status._tag === "Ended") assert.isTrue(Exit.hasInterrupts(tool.status.exit))
      }
      assert.deepStrictEqual(
        spans.filter((span) => span.status._tag !== "Ended").map((span) => span.name),
        []
      )
    })
  )
})
