/**
 * How events reach observers and subscribers: each event is published (to the session's stream, then to the
 * observers in registration order) as it happens, before what follows it. So an observer of `turn_ended`
 * sees the turn that ended, a one-shot response's deltas are delivered within the model call (the wall-clock
 * bound counts them, an interrupt during them leaves the response untaken), a turn is announced after the
 * context provider and the toolbox answered, and observers and the stream always agree. An observer's
 * failure never reaches the run. All timing is on the TestClock.
 */
import {
  Content,
  ContextProvider,
  EventBus,
  KernelEvent,
  ModelProvider,
  ResponsePart,
  RetryBudget,
  RetryQuota,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { vi } from "vitest"
import { echoToolbox, ofType, runScript, settle } from "./harness.js"

const withWallClock = (ms: number): Settings.Settings => ({ ...Settings.defaults, max_wall_clock_ms: ms })

interface Made {
  readonly script: ReadonlyArray<ScriptedModel.Step>
  readonly observers: ReadonlyArray<EventBus.Observer>
  readonly settings?: Settings.Settings | undefined
  readonly toolConcurrency?: number | undefined
  readonly contextProvider?: ContextProvider.Service | undefined
  readonly provider?: ModelProvider.Service | undefined
}

const sessionOf = (made: Made) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(made.script)
    return yield* Session.make({
      model: "model-a",
      settings: made.settings,
      toolConcurrency: made.toolConcurrency,
      metrics: false
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          made.provider === undefined ? model.layer : Layer.succeed(ModelProvider.ModelProvider, made.provider),
          Layer.succeed(Toolbox.Toolbox, echoToolbox),
          EventBus.layer(made.observers),
          ContextProvider.layer(made.contextProvider ?? ContextProvider.defaultProvider)
        )
      )
    )
  })

/** An observer that records each event's type, and waits as `hold` says on some. */
const recorder = (seen: Array<string>, hold: (event: KernelEvent.KernelEvent) => Effect.Effect<void> | undefined) => ({
  onEvent: (event: KernelEvent.KernelEvent) =>
    Effect.suspend(() => {
      seen.push(event.type)
      return hold(event) ?? Effect.void
    })
})

const after = (seen: ReadonlyArray<string>, type: string) => seen.slice(seen.indexOf(type) + 1)

describe("one-shot responses observed whole, within the model call", () => {
  it.effect(
    "a slow observer of a one-shot response's text_delta counts against the wall-clock bound, as a stream's does",
    () =>
      Effect.gen(function* () {
        const statusOf = (provider: ModelProvider.Service | undefined) =>
          Effect.gen(function* () {
            const seen: Array<string> = []
            const session = yield* sessionOf({
              script: [ScriptedModel.text("hello")],
              provider,
              settings: withWallClock(1_000),
              observers: [
                recorder(seen, (event) => (event.type === "text_delta" ? Effect.sleep("2 seconds") : undefined))
              ]
            })
            const run = yield* Effect.forkChild(session.run("hi"))
            yield* settle()
            yield* TestClock.adjust("3 seconds")
            const outcome = yield* Fiber.join(run)
            return { status: outcome.status, history: outcome.history.length }
          })
        const streamed: ReadonlyArray<ResponsePart.ResponsePart> = [
          { type: "text_delta", index: 0, text: "hello" },
          { type: "usage", usage: { input_tokens: 10, output_tokens: 5 } },
          { type: "finish", stop_reason: "end_turn" }
        ]
        const stream = yield* statusOf(ModelProvider.make("streaming", () => Stream.fromIterable(streamed)))
        const oneShot = yield* statusOf(undefined)
        expect(stream).toEqual({ status: "wall_clock_exceeded", history: 1 })
        expect(oneShot).toEqual(stream)
      })
  )

  it.effect("a run interrupted while a one-shot response's text_delta is delivered has not taken the response", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const historyAtDelta: Array<number> = []
      let session: Session.Service | undefined
      session = yield* sessionOf({
        script: [ScriptedModel.text("hello")],
        observers: [
          recorder(seen, (event) =>
            event.type === "text_delta"
              ? Effect.flatMap(session!.history, (history) => {
                  historyAtDelta.push(history.length)
                  return Effect.never
                })
              : undefined
          )
        ]
      })
      const run = yield* Effect.forkChild(session.run("hi"))
      yield* settle()
      expect(seen).toContain("text_delta")
      yield* Fiber.interrupt(run)
      expect(historyAtDelta).toEqual([1])
      expect((yield* session.history).length).toBe(1)
    })
  )
})

describe("a turn's end published before the next turn starts", () => {
  const twoTurns = [ScriptedModel.toolCalls({ id: "a", name: "echo" }), ScriptedModel.text("done")]

  it.effect("a slow observer of turn_ended under a wall-clock bound: no model_request for a call never made", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      let held = false
      const session = yield* sessionOf({
        script: twoTurns,
        settings: withWallClock(1_000),
        observers: [
          recorder(seen, (event) => {
            if (event.type !== "turn_ended" || held) return undefined
            held = true
            return Effect.sleep("2 seconds")
          })
        ]
      })
      const run = yield* Effect.forkChild(session.run("hi"))
      yield* settle()
      yield* TestClock.adjust("3 seconds")
      const outcome = yield* Fiber.join(run)
      expect(outcome.status).toBe("wall_clock_exceeded")
      expect(after(seen, "turn_ended")).toEqual(["turn_started", "run_ended"])
      expect((yield* session.state).run?.attempt).toBe(0)
    })
  )

  it.effect(
    "a run interrupted while turn_ended is delivered: run_ended counts one turn; stream and observers agree",
    () =>
      Effect.gen(function* () {
        const seen: Array<string> = []
        const ended: Array<number> = []
        const session = yield* sessionOf({
          script: twoTurns,
          observers: [
            recorder(seen, (event) => {
              if (event.type === "run_ended") ended.push(event.turns)
              return event.type === "turn_ended" ? Effect.never : undefined
            })
          ]
        })
        const events = yield* session.subscribe
        const run = yield* Effect.forkChild(session.run("hi"))
        yield* settle()
        expect(seen.at(-1)).toBe("turn_ended")
        yield* Fiber.interrupt(run)
        const streamed = Array.from(
          yield* Stream.runCollect(Stream.takeUntil(events, (event) => event.type === "run_ended"))
        ).map((event) => event.type)
        expect(ended).toEqual([1])
        expect(after(streamed, "turn_ended")).toEqual(["run_ended"])
        expect(after(seen, "turn_ended")).toEqual(["run_ended"])
      })
  )

  it.effect("an observer reading the session's state at turn_ended sees the turn that ended", () =>
    Effect.gen(function* () {
      const turnsAtEnd: Array<number | undefined> = []
      let session: Session.Service | undefined
      session = yield* sessionOf({
        script: twoTurns,
        observers: [
          {
            onEvent: (event) =>
              event.type === "turn_ended"
                ? Effect.map(session!.state, (state) => void turnsAtEnd.push(state.run?.turns))
                : Effect.void
          }
        ]
      })
      yield* session.run("hi")
      expect(turnsAtEnd).toEqual([1, 2])
    })
  )

  it.effect("a context provider's assemble runs before turn_started is delivered", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const session = yield* sessionOf({
        script: twoTurns,
        observers: [recorder(log, () => undefined)],
        contextProvider: {
          ...ContextProvider.defaultProvider,
          assemble: (messages) =>
            Effect.sync(() => {
              log.push("assemble")
              return messages
            })
        }
      })
      yield* session.run("hi")
      expect(log.slice(0, 4)).toEqual(["run_started", "assemble", "turn_started", "model_request"])
      expect(after(log, "turn_ended").slice(0, 3)).toEqual(["assemble", "turn_started", "model_request"])
    })
  )
})

describe("a turn announced once the toolbox answered", () => {
  it.effect("a toolbox's definitions are read before turn_started is delivered", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const model = yield* ScriptedModel.make([ScriptedModel.text("done")])
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        definitions: Effect.flatMap(echoToolbox.definitions, (definitions) =>
          Effect.sync(() => {
            log.push("definitions")
            return definitions
          })
        )
      }
      const session = yield* Session.make({ model: "model-a", metrics: false }).pipe(
        Effect.provide(
          Layer.mergeAll(
            model.layer,
            Layer.succeed(Toolbox.Toolbox, toolbox),
            EventBus.layer([recorder(log, () => undefined)])
          )
        )
      )
      yield* session.run("hi")
      expect(log.slice(0, 4)).toEqual(["run_started", "definitions", "turn_started", "model_request"])
    })
  )
})

describe("one-shot and streamed responses show the same tool ids", () => {
  it.effect("tool_use_started ids are unique and equal to the history's tool_use ids, one-shot or streamed", () =>
    Effect.gen(function* () {
      const response = ScriptedModel.toolCalls(
        { id: "", name: "echo" },
        { id: "", name: "echo" },
        { id: "x", name: "echo" }
      )
      const idsOf = (script: ReadonlyArray<ScriptedModel.Step>) =>
        Effect.gen(function* () {
          const events: Array<KernelEvent.KernelEvent> = []
          const session = yield* sessionOf({
            script,
            observers: [{ onEvent: (event) => Effect.sync(() => void events.push(event)) }]
          })
          yield* session.run("hi")
          const started = events.flatMap((event) => (event.type === "tool_use_started" ? [event.id] : []))
          const history = (yield* session.history).flatMap((message) =>
            message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))
          )
          return { started, history }
        })
      const oneShot = yield* idsOf([response, ScriptedModel.text("done")])
      const streamed = yield* idsOf([
        ScriptedModel.streamed(ResponsePart.fromResponse(response)),
        ScriptedModel.text("done")
      ])
      expect(new Set(oneShot.started).size).toBe(3)
      expect(oneShot.started).toEqual(oneShot.history)
      expect(streamed).toEqual(oneShot)
    })
  )
})

describe("EventBus delivery", () => {
  it.effect("a delivery calls each observer's function when its turn comes, after the effects before it", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const observer = (name: string): EventBus.Observer => ({
        onEvent: (event) => {
          const turn = event.type === "turn_started" ? event.turn : 0
          log.push(`call ${name}${turn}`)
          return Effect.sync(() => void log.push(`run ${name}${turn}`))
        }
      })
      const bus = EventBus.of([observer("a"), observer("b")])
      yield* bus.deliver([
        { type: "turn_started", at: 0, turn: 1 },
        { type: "turn_started", at: 0, turn: 2 }
      ] as ReadonlyArray<KernelEvent.KernelEvent>)
      expect(log).toEqual(["call a1", "run a1", "call b1", "run b1", "call a2", "run a2", "call b2", "run b2"])
    })
  )
})

describe("observer guard", () => {
  it.effect("observers that die, throw or interrupt themselves never stop the delivery to the next", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const session = yield* sessionOf({
        script: [ScriptedModel.toolCalls({ id: "a", name: "echo" }), ScriptedModel.text("done")],
        observers: [
          { onEvent: () => Effect.die("dead") },
          {
            onEvent: (event) => {
              if (event.type === "turn_started") throw new Error("thrown")
              return Effect.interrupt
            }
          },
          recorder(seen, () => undefined)
        ]
      })
      const outcome = yield* session.run("hi")
      expect(outcome.status).toBe("completed")
      expect(seen.filter((type) => type === "turn_ended")).toHaveLength(2)
      expect(seen.at(-1)).toBe("run_ended")
    })
  )
})

describe("observers and the stream agree", () => {
  it.effect(
    "with concurrent tools and the deadline passed when runTools starts, observers get what the stream gets",
    () =>
      Effect.gen(function* () {
        const observed: Array<string> = []
        const session = yield* sessionOf({
          script: [ScriptedModel.toolCalls({ id: "a", name: "echo" }), ScriptedModel.text("done")],
          settings: withWallClock(1_000),
          toolConcurrency: 2,
          observers: [recorder(observed, () => undefined)]
        })
        // A shared retry quota (a store) slow to record the call's success: the call is back within the bound,
        // but the bound has passed when the tools would start.
        const slowQuota: RetryQuota.Service = { ...RetryQuota.unlimited, recordSuccess: Effect.sleep("2 seconds") }
        const streamed = yield* Effect.scoped(
          Effect.gen(function* () {
            const events = yield* session.subscribe
            const run = yield* Effect.forkChild(
              session.run("hi").pipe(Effect.provideService(RetryQuota.RetryQuota, slowQuota))
            )
            yield* settle()
            yield* TestClock.adjust("3 seconds")
            const outcome = yield* Fiber.join(run)
            expect(outcome.status).toBe("wall_clock_exceeded")
            return Array.from(
              yield* Stream.runCollect(Stream.takeUntil(events, (event) => event.type === "run_ended"))
            ).map((event) => event.type)
          })
        )
        expect(observed).toEqual(streamed)
      })
  )
})

const sessionWith = (model: ScriptedModel.ScriptedModel, bus: EventBus.Service, toolConcurrency?: number) =>
  Session.make({ model: "model-a", metrics: false, toolConcurrency }).pipe(
    Effect.provide(
      Layer.mergeAll(
        model.layer,
        Layer.succeed(Toolbox.Toolbox, echoToolbox),
        Layer.succeed(EventBus.EventBus, bus),
        ContextProvider.layer(ContextProvider.defaultProvider)
      )
    )
  )

const oneTool = [ScriptedModel.toolCalls({ id: "a", name: "echo" }), ScriptedModel.text("done")]

describe("the bus provided is the bus delivered through", () => {
  it.effect(
    "a bus from EventBus.of whose deliver was replaced (a spy) still gets the loop's deliveries through it",
    () =>
      Effect.gen(function* () {
        const seen: Array<string> = []
        const bus = EventBus.of([{ onEvent: (event) => Effect.sync(() => seen.push(event.type)) }])
        const deliver = vi.spyOn(bus, "deliver")
        const model = yield* ScriptedModel.make(oneTool)
        const session = yield* sessionWith(model, bus)
        const outcome = yield* session.run("hi")
        expect(outcome.status).toBe("completed")
        expect(seen).toContain("run_ended")
        expect(deliver).toHaveBeenCalled()
      })
  )

  it.effect("an observer that throws as the loop starts a batch is logged; the next observer gets it all", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const bus = EventBus.of([
        {
          onEvent: (event) => {
            if (event.type === "turn_started" || event.type === "turn_ended") throw new Error("observer broke")
            return Effect.void
          }
        },
        { onEvent: (event) => Effect.sync(() => seen.push(event.type)) }
      ])
      const model = yield* ScriptedModel.make(oneTool)
      const session = yield* sessionWith(model, bus)
      const outcome = yield* session.run("hi")
      expect(outcome.status).toBe("completed")
      expect(seen.filter((type) => type === "turn_started" || type === "turn_ended")).toEqual([
        "turn_started",
        "turn_ended",
        "turn_started",
        "turn_ended"
      ])
      expect(seen.at(-1)).toBe("run_ended")
    })
  )

  it.effect(
    "an observer recording in its function's body, interrupted while it holds turn_ended, saw what the stream saw",
    () =>
      Effect.gen(function* () {
        const bodies: Array<string> = []
        const bus = EventBus.of([
          {
            onEvent: (event) => {
              bodies.push(event.type)
              return event.type === "turn_ended" ? Effect.never : Effect.void
            }
          }
        ])
        const model = yield* ScriptedModel.make(oneTool)
        const session = yield* sessionWith(model, bus)
        const events = yield* session.subscribe
        const run = yield* Effect.forkChild(session.run("hi"))
        yield* settle()
        expect(bodies.at(-1)).toBe("turn_ended")
        yield* Fiber.interrupt(run)
        const streamed = Array.from(
          yield* Stream.runCollect(Stream.takeUntil(events, (event) => event.type === "run_ended"))
        ).map((event) => event.type)
        expect(bodies).toEqual(streamed)
      })
  )

  it.effect("concurrent tools' events reach two observers in the same order, each batch once", () =>
    Effect.gen(function* () {
      const first: Array<string> = []
      const second: Array<string> = []
      const record = (into: Array<string>) => (event: KernelEvent.KernelEvent) =>
        Effect.sync(() => into.push(event.type === "tool_result" ? `${event.type}:${event.id}` : event.type))
      const bus = EventBus.of([{ onEvent: record(first) }, { onEvent: record(second) }])
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }, { id: "c", name: "echo" }),
        ScriptedModel.text("done")
      ])
      const session = yield* sessionWith(model, bus, 3)
      const outcome = yield* session.run("hi")
      expect(outcome.status).toBe("completed")
      expect(second).toEqual(first)
      expect(first.filter((type) => type.startsWith("tool_result")).sort()).toEqual([
        "tool_result:a",
        "tool_result:b",
        "tool_result:c"
      ])
      expect(first.filter((type) => type === "run_ended")).toHaveLength(1)
    })
  )
})

describe("a model_response's time is the call's own", () => {
  it.effect(
    "model_response's at and duration_ms are the call's own, not a slow quota's recordSuccess (a shared store)",
    () =>
      Effect.gen(function* () {
        const responses: Array<{ readonly at: number; readonly duration: number }> = []
        const bus = EventBus.of([
          {
            onEvent: (event) =>
              Effect.sync(() => {
                if (event.type === "model_response") responses.push({ at: event.at, duration: event.duration_ms })
              })
          }
        ])
        const model = yield* ScriptedModel.make([ScriptedModel.text("done")])
        const session = yield* sessionWith(model, bus)
        // SharedRetryQuota over Postgres records a success with a round trip; here it takes 2 s.
        const slowQuota: RetryQuota.Service = { ...RetryQuota.unlimited, recordSuccess: Effect.sleep("2 seconds") }
        const run = yield* Effect.forkChild(
          session.run("hi").pipe(Effect.provideService(RetryQuota.RetryQuota, slowQuota))
        )
        yield* settle()
        yield* TestClock.adjust("3 seconds")
        const outcome = yield* Fiber.join(run)
        expect(outcome.status).toBe("completed")
        expect(responses).toEqual([{ at: 0, duration: 0 }])
      })
  )
})

describe("a request's messages", () => {
  it.effect("requests a provider keeps show, when read after the run, the context each was made with", () =>
    Effect.gen(function* () {
      // 40 tool turns, each request kept by the provider and read after the run.
      const script = [
        ...Array.from({ length: 40 }, (_, i) => ScriptedModel.toolCalls({ id: `c${i}`, name: "echo", input: { i } })),
        ScriptedModel.text("done")
      ]
      const model = yield* ScriptedModel.make(script)
      const session = yield* sessionWith(model, EventBus.of([{ onEvent: () => Effect.void }]))
      const outcome = yield* session.run("hi")
      expect(outcome.status).toBe("completed")
      const requests = yield* model.requests
      expect(requests).toHaveLength(41)
      requests.forEach((request, i) => {
        expect(request.messages).toHaveLength(2 * i + 1)
        // The same array on every read, and the history's prefix as it was.
        expect(request.messages).toBe(request.messages)
        expect(request.messages).toEqual(outcome.history.slice(0, 2 * i + 1))
        expect(Object.keys(request)).toEqual(["model", "tools", "messages"])
      })
      const last = requests[40]!.messages.at(-1)
      expect(last?.role).toBe("user")
      expect(last?.content.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))).toEqual([
        "c39"
      ])
    })
  )
})

describe("a retried call's request", () => {
  it.effect("a retried call makes a new request; the budget is charged once per retry", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 1000 }),
        ScriptedModel.text("done")
      ])
      const retries: Array<number> = []
      const bus = EventBus.of([
        {
          onEvent: (event) =>
            Effect.sync(() => {
              if (event.type === "retry_scheduled") retries.push(event.session_retries_used)
            })
        }
      ])
      const session = yield* sessionWith(model, bus)
      const run = yield* Effect.forkChild(session.run("hi"))
      yield* settle()
      yield* TestClock.adjust("2 seconds")
      const outcome = yield* Fiber.join(run)
      expect(outcome.status).toBe("completed")
      expect(retries).toEqual([1])
      const requests = yield* model.requests
      expect(requests).toHaveLength(2)
      expect(requests[0]).not.toBe(requests[1])
      expect(requests[1]!.messages).toEqual(requests[0]!.messages)
    })
  )
})

const looking: Toolbox.Service = {
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

const fiveSteps = () =>
  ScriptedModel.make([
    ScriptedModel.toolCalls({ id: "a", name: "look" }, { id: "b", name: "look" }, { id: "c", name: "look" }),
    ScriptedModel.text("one"),
    ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
    ScriptedModel.toolCalls({ id: "d", name: "look" }),
    ScriptedModel.text("two")
  ])

describe("each delivery's array", () => {
  for (const toolConcurrency of [1, 3]) {
    it.effect(
      `each delivery is its own array, never written into once delivered (toolConcurrency ${toolConcurrency})`,
      () =>
        Effect.gen(function* () {
          const model = yield* fiveSteps()
          const { kept, bus } = keepingBus()
          const session = yield* Session.make({
            model: "m",
            settings: { ...Settings.defaults, max_retries: 2, jitter: "none" },
            toolConcurrency
          }).pipe(
            Effect.provide(model.layer),
            Effect.provideService(Toolbox.Toolbox, looking),
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
        })
    )
  }
})

describe("a plugin's events", () => {
  it("KernelEvent.stamp adds the Clock time and keeps every field", () => {
    const event: KernelEvent.Unstamped = { type: "warning", message: "careful" }
    assert.deepStrictEqual(KernelEvent.stamp(event, 42), { type: "warning", message: "careful", at: 42 })
  })

  it.effect("a plugin's event published on the run's bus is stamped with the run's Clock", () =>
    Effect.gen(function* () {
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) =>
          Effect.andThen(EventBus.publish({ type: "warning", message: `from ${call.name}` }), echoToolbox.invoke(call))
      }
      const { outcome, events } = yield* runScript(
        [ScriptedModel.toolCalls({ id: "a", name: "echo", input: {} }), ScriptedModel.text("done")],
        { toolbox }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        ofType(events, "warning").map((event) => [event.message, typeof event.at]),
        [["from echo", "number"]]
      )
    })
  )
})

describe("an event serialises its type and time first", () => {
  // The events a retry decision makes are built without their time, then stamped: they read the same.
  it.effect('JSON.stringify of every event, those of a retry decision included, starts {"type":…,"at":', () =>
    Effect.gen(function* () {
      const noJitter = { jitter: "none" } as const
      const quota = yield* RetryQuota.make(RetryBudget.fixed(1))
      const runs = [
        yield* runScript([ScriptedModel.error("overloaded", { midStream: true }), ScriptedModel.text("whole")], {
          settings: noJitter
        }),
        yield* runScript([ScriptedModel.error("overloaded"), ScriptedModel.text("from b")], {
          settings: { ...noJitter, max_retries: 0, fallback_models: ["model-b"] }
        }),
        yield* runScript([ScriptedModel.rateLimited(), ScriptedModel.rateLimited(), ScriptedModel.text("never")], {
          settings: noJitter
        }).pipe(Effect.provideService(RetryQuota.RetryQuota, quota)),
        yield* runScript([ScriptedModel.error("content_filtered")]),
        yield* runScript([ScriptedModel.refusal("I can start, but")])
      ]
      const events = runs.flatMap((run) => run.events)
      const types = new Set(events.map((event) => event.type))
      for (const type of [
        "retry_scheduled",
        "stream_restarted",
        "fallback",
        "retry_quota_exhausted",
        "content_filtered"
      ])
        expect(types.has(type as KernelEvent.EventType), type).toBe(true)
      const misordered = events
        .map((event) => JSON.stringify(event))
        .filter((json, i) => !json.startsWith(`{"type":"${events[i]!.type}","at":${events[i]!.at},`))
      expect(misordered).toEqual([])
    })
  )

  it("KernelEvent.stamp puts the time second, after the type", () => {
    const fields = {
      turn: 1,
      from: "model-a",
      to: "model-b",
      category: "overloaded",
      session_retries_used: 1,
      session_retries_left: 19
    } as const
    const stamped = KernelEvent.stamp({ type: "fallback", ...fields }, 42)
    expect(Object.keys(stamped)).toEqual(["type", "at", ...Object.keys(fields)])
    expect(stamped).toEqual({ type: "fallback", at: 42, ...fields })
  })
})
