/**
 * An independent review of perf6 (6b5f505: the session state in a MutableRef,
 * a turn's end committed with the next call's events, one-shot responses
 * observed whole, one guarded step per observer call), which was to change no
 * behaviour. Each test passes on the code before it (2d09238); all but the
 * two marked "no change" (guards) fail on perf6. The last shows a bug both
 * had (perf7 fixed it).
 * All timing is on the TestClock.
 */
import {
  ContextProvider,
  EventBus,
  type KernelEvent,
  ModelProvider,
  ResponsePart,
  RetryQuota,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { echoToolbox } from "./harness.js"

const settle = Effect.gen(function* () {
  for (let i = 0; i < 300; i++) yield* Effect.yieldNow()
})

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

describe("perf6 review: one-shot responses observed whole", () => {
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
            const run = yield* Effect.fork(session.run("hi"))
            yield* settle
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
        // On 2d09238 both end wall_clock_exceeded with only the input in history: the delta's delivery is part of
        // the model call, which the bound cuts. On perf6 the one-shot's deltas are queued and delivered after the
        // call, outside the bound: the run completes with the answer kept, unlike the same response streamed.
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
      const run = yield* Effect.fork(session.run("hi"))
      yield* settle
      expect(seen).toContain("text_delta")
      yield* Fiber.interrupt(run)
      // On 2d09238 the delta is delivered during the model call: the response is not yet in history (as with a
      // stream), and an interrupt leaves the input alone. On perf6 the delta goes out with the run's end commit,
      // after the response was taken: a reader already sees the answer, and the interrupted run keeps it.
      expect(historyAtDelta).toEqual([1])
      expect((yield* session.history).length).toBe(1)
    })
  )
})

describe("perf6 review: a turn's end committed with the next call's events", () => {
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
      const run = yield* Effect.fork(session.run("hi"))
      yield* settle
      yield* TestClock.adjust("3 seconds")
      const outcome = yield* Fiber.join(run)
      expect(outcome.status).toBe("wall_clock_exceeded")
      // On 2d09238 the bound is checked after turn_ended's delivery: turn 2 starts and ends at once. On perf6
      // the check ran before it, so turn 2's model_request (attempt 1) is announced for a call never made.
      expect(after(seen, "turn_ended")).toEqual(["turn_started", "run_ended"])
      expect((yield* session.state).run?.attempt).toBe(0)
    })
  )

  it.scoped(
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
        const run = yield* Effect.fork(session.run("hi"))
        yield* settle
        expect(seen.at(-1)).toBe("turn_ended")
        yield* Fiber.interrupt(run)
        const streamed = Array.from(
          yield* Stream.runCollect(Stream.takeUntil(events, (event) => event.type === "run_ended"))
        ).map((event) => event.type)
        // On 2d09238: both see turn_ended then run_ended, which counts 1 turn. On perf6 the state written before
        // the delivery is turn 2's (turns 2, attempt 1), so run_ended says 2 turns, and the stream already holds
        // turn 2's turn_started and model_request, which the observers never get.
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
      // On 2d09238: [1, 2]. On perf6 the first turn_ended is delivered with turn 2's commit: [2, 2].
      expect(turnsAtEnd).toEqual([1, 2])
    })
  )

  it.effect("a context provider's assemble runs before turn_started is delivered, as before", () =>
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
      // On 2d09238 turn_started goes out with model_request, after assemble. On perf6 a commit before assemble
      // delivers it (and the last turn's turn_ended) first, with the state of the new turn.
      expect(log.slice(0, 4)).toEqual(["run_started", "assemble", "turn_started", "model_request"])
      expect(after(log, "turn_ended").slice(0, 3)).toEqual(["assemble", "turn_started", "model_request"])
    })
  )
})

describe("perf6 review: toolbox definitions that are an effect", () => {
  it.effect("a toolbox's definitions are read before turn_started is delivered, as before", () =>
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
      // On 2d09238: run_started, definitions, turn_started. On perf6 a commit before the definitions comes first.
      expect(log.slice(0, 4)).toEqual(["run_started", "definitions", "turn_started", "model_request"])
    })
  )
})

describe("perf6 review: one-shot and streamed responses show the same tool ids (no change; a guard)", () => {
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

describe("perf6 review: EventBus delivery", () => {
  it.effect(
    "a delivery calls each observer's function when its turn comes, after the effects before it (documented)",
    () =>
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
        // On 2d09238 the delivery built every call up front (all calls, then all effects); since perf6 each call
        // is made when its turn comes, as EventBus.Observer.onEvent now documents: what an observer's function
        // does and what its effect does happen in the events' order, observers in registration order.
        expect(log).toEqual(["call a1", "run a1", "call b1", "run b1", "call a2", "run a2", "call b2", "run b2"])
      })
  )
})

describe("perf6 review: observer guard (no change; a guard)", () => {
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

describe("perf6 review: the author's note (also on 2d09238)", () => {
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
        // but the bound has passed when runTools starts, so its commit is built and never run.
        const slowQuota: RetryQuota.Service = { ...RetryQuota.unlimited, recordSuccess: Effect.sleep("2 seconds") }
        const streamed = yield* Effect.scoped(
          Effect.gen(function* () {
            const events = yield* session.subscribe
            const run = yield* Effect.fork(
              session.run("hi").pipe(Effect.provideService(RetryQuota.RetryQuota, slowQuota))
            )
            yield* settle
            yield* TestClock.adjust("3 seconds")
            const outcome = yield* Fiber.join(run)
            expect(outcome.status).toBe("wall_clock_exceeded")
            return Array.from(
              yield* Stream.runCollect(Stream.takeUntil(events, (event) => event.type === "run_ended"))
            ).map((event) => event.type)
          })
        )
        // 2d09238 and perf6: the commit was made when the calls' effect was built, and withinDeadline never ran
        // it, so the observers missed model_response (and tool_use_started on perf6), which the stream got.
        expect(observed).toEqual(streamed)
      })
  )
})
