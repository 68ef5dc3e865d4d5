/**
 * Back-pressure (issue 12): a session's event stream is bounded and never lossy. A subscriber
 * that falls `subscriberCapacity` events behind holds up the run, and with it the provider's
 * stream, which is not read meanwhile; an observer holds up the run by being called in line.
 */
import { EventBus, type KernelEvent, ModelProvider, type ResponsePart, Session } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ofType } from "./harness.js"

const TEXT = "Back-pressure holds up the stream; it never drops a delta."

/** The answer as one text delta a character, then its finish. */
const parts: ReadonlyArray<ResponsePart.ResponsePart> = [
  ...Array.from(TEXT, (char): ResponsePart.ResponsePart => ({ type: "text_delta", index: 0, text: char })),
  { type: "usage", usage: { input_tokens: 10, output_tokens: TEXT.length } },
  { type: "finish", stop_reason: "end_turn" }
]

/** A provider whose stream is pulled one part at a time, counting the parts read from it. */
const countingProvider = (pulled: { count: number }): ModelProvider.Service =>
  ModelProvider.make("counting", () =>
    Stream.unfoldEffect(0, (i) =>
      Effect.sync(() => {
        if (i >= parts.length) return Option.none()
        pulled.count = i + 1
        return Option.some([parts[i]!, i + 1] as const)
      })
    )
  )

const deltasOf = (events: ReadonlyArray<KernelEvent.KernelEvent>): string =>
  ofType(events, "text_delta")
    .map((event) => event.text)
    .join("")

const untilEnded = (events: Stream.Stream<KernelEvent.KernelEvent>) =>
  Stream.takeUntil(events, (event) => event.type === "run_ended")

describe("back-pressure on the session's event stream", () => {
  it.scoped("a subscriber that never reads holds up the run at exactly its capacity, then gets every event", () =>
    Effect.gen(function* () {
      const capacity = Session.SubscriberCapacity.make(8)
      const pulled = { count: 0 }
      const observed: Array<KernelEvent.KernelEvent> = []
      const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => observed.push(event)) }])
      const session = yield* Session.make({ model: "model-a", subscriberCapacity: capacity }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, countingProvider(pulled)),
        Effect.provideService(EventBus.EventBus, bus)
      )
      const events = yield* session.subscribe
      const run = yield* Effect.fork(session.run("hello"))
      for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
      // The observer is called after an event is in the buffer: it saw exactly what the buffer holds.
      expect(Option.isNone(yield* Fiber.poll(run))).toBe(true)
      expect(observed).toHaveLength(capacity)
      // The provider's stream is not read while the run waits: one part past what was published at most.
      expect(pulled.count).toBeLessThan(parts.length)
      expect(pulled.count).toBeLessThanOrEqual(capacity + 1)
      const read = yield* Effect.fork(Stream.runCollect(untilEnded(events)))
      const outcome = yield* Fiber.join(run)
      const received = Array.from(yield* Fiber.join(read))
      expect(outcome.status).toBe("completed")
      expect(received).toEqual(observed)
      expect(deltasOf(received)).toBe(TEXT)
      expect(outcome.final_text).toBe(TEXT)
    })
  )

  it.scoped("a stalled subscriber that goes away (its scope closes) releases the run it held up", () =>
    Effect.gen(function* () {
      const capacity = Session.SubscriberCapacity.make(4)
      const pulled = { count: 0 }
      const session = yield* Session.make({ model: "model-a", subscriberCapacity: capacity }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, countingProvider(pulled))
      )
      const scope = yield* Scope.make()
      yield* Scope.extend(session.subscribe, scope)
      const run = yield* Effect.fork(session.run("hello"))
      for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
      expect(Option.isNone(yield* Fiber.poll(run))).toBe(true)
      yield* Scope.close(scope, Exit.void)
      const outcome = yield* Fiber.join(run)
      expect(outcome.status).toBe("completed")
      expect(outcome.final_text).toBe(TEXT)
      expect(pulled.count).toBe(parts.length)
    })
  )

  it.scoped("interrupting a run held up by a subscriber: the run ends once it reads, and it still gets run_ended", () =>
    Effect.gen(function* () {
      const capacity = Session.SubscriberCapacity.make(4)
      const session = yield* Session.make({ model: "model-a", subscriberCapacity: capacity }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, countingProvider({ count: 0 }))
      )
      const events = yield* session.subscribe
      const run = yield* Effect.fork(session.run("hello"))
      for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
      const interrupting = yield* Effect.fork(Fiber.interrupt(run))
      for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
      // The interrupted run answers what is pending and publishes run_ended: that, too, waits for the reader.
      expect(Option.isNone(yield* Fiber.poll(interrupting))).toBe(true)
      const received = Array.from(yield* Stream.runCollect(untilEnded(events)))
      yield* Fiber.join(interrupting)
      expect(received.at(-1)).toMatchObject({ type: "run_ended", status: "interrupted" })
      // What was published before the interruption is all there, in order, with nothing dropped.
      expect(TEXT.startsWith(deltasOf(received))).toBe(true)
      expect((yield* session.state).run?.final_text).toBe("")
    })
  )

  it.scoped("a sleeping observer and a slower sleeping subscriber: every delta in order, the lag bounded", () =>
    Effect.gen(function* () {
      const capacity = Session.SubscriberCapacity.make(4)
      // How far the subscriber is behind the loop, in events: the buffer plus the chunk it holds.
      let published = 0
      let read = 0
      let highWater = 0
      const observed: Array<KernelEvent.KernelEvent> = []
      const bus = yield* EventBus.make([
        {
          onEvent: (event) =>
            Effect.sync(() => {
              observed.push(event)
              published++
              highWater = Math.max(highWater, published - read)
            }).pipe(Effect.zipRight(Effect.sleep("1 millis")))
        }
      ])
      const model = yield* ScriptedModel.make([ScriptedModel.streamed(parts)])
      const session = yield* Session.make({ model: "model-a", subscriberCapacity: capacity }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(EventBus.EventBus, bus)
      )
      const events = yield* session.subscribe
      const reader = yield* Effect.fork(
        Stream.runCollect(
          untilEnded(events).pipe(
            Stream.tap(() => Effect.sleep("20 millis")),
            Stream.tap(() => Effect.sync(() => read++))
          )
        )
      )
      const outcome = yield* TestClockDriver.run(session.run("hello"))
      const received = Array.from(yield* TestClockDriver.run(Fiber.join(reader)))
      expect(outcome.status).toBe("completed")
      expect(deltasOf(observed)).toBe(TEXT)
      expect(received).toEqual(observed)
      // The stream reads at most `capacity` events from the buffer at once, so the subscriber is at
      // most twice the capacity behind (plus the one it sleeps on); an unbounded buffer lets the
      // loop run ahead by nearly every event of the run.
      expect(observed.length).toBeGreaterThan(10 * capacity)
      expect(highWater).toBeLessThanOrEqual(2 * capacity + 1)
    })
  )

  it("the capacity is validated: a whole number from 1 to 2^20", () => {
    const decode = Schema.decodeUnknownEither(Session.SubscriberCapacity)
    expect(Either.isRight(decode(1))).toBe(true)
    expect(Either.isRight(decode(1_024))).toBe(true)
    expect(Either.isRight(decode(1_048_576))).toBe(true)
    for (const bad of [0, -1, 1.5, 1_048_577, 2 ** 32, Number.NaN, Number.POSITIVE_INFINITY, "8"])
      expect(Either.isLeft(decode(bad))).toBe(true)
    expect(() => Session.SubscriberCapacity.make(0)).toThrow()
    expect(Session.defaultSubscriberCapacity).toBe(1_024)
  })
})
