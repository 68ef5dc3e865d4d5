/**
 * The drain's gate (internal/drain.ts): a step in flight is waited for, a step that would start once
 * the gate is closed does not, and a step that meets the gate twice (an `AgentRun` step run as an
 * activity: its `StepGate` and the engine's `activityExecute`) passes it once, so that a drain begun
 * between the two passes still settles when the step ends.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Drain from "../src/internal/drain.js"

describe("the drain's gate", () => {
  it.effect("waits for the step in flight and starts none once closed", () =>
    Effect.gen(function* () {
      const gate = yield* Drain.make
      const inFlight = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const step = yield* Effect.forkChild(
        gate.pass(Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(inFlight)))
      )
      yield* Deferred.await(started)
      yield* gate.close
      const settled = yield* Effect.forkChild(gate.settled)
      let ranLate = false
      const late = yield* Effect.forkChild(gate.pass(Effect.sync(() => (ranLate = true))))
      yield* Effect.yieldNow
      expect(settled.pollUnsafe()).toBeUndefined()
      yield* Deferred.succeed(inFlight, undefined)
      yield* Fiber.join(step)
      yield* Fiber.join(settled)
      expect(ranLate).toBe(false)
      expect(gate.isClosed()).toBe(true)
      yield* Fiber.interrupt(late)
    })
  )

  // On the live clock: a step or a drain that waits for ever fails in a second instead of hanging the run.
  it.live("a step that meets the gate twice passes it once: a drain begun in between settles when it ends", () =>
    Effect.gen(function* () {
      const gate = yield* Drain.make
      const outerPassed = yield* Deferred.make<void>()
      const drainBegun = yield* Deferred.make<void>()
      // The outer pass (the StepGate), then the drain closes the gate, then the inner pass (activityExecute).
      const step = yield* Effect.forkChild(
        gate.pass(
          Effect.andThen(
            Effect.andThen(Deferred.succeed(outerPassed, undefined), Deferred.await(drainBegun)),
            gate.pass(Effect.succeed("done"))
          )
        )
      )
      yield* Deferred.await(outerPassed)
      yield* gate.close
      yield* Deferred.succeed(drainBegun, undefined)
      expect(yield* Effect.timeoutOption(Fiber.join(step), "1 second")).toEqual(Option.some("done"))
      expect(yield* Effect.timeoutOption(gate.settled, "1 second")).toEqual(Option.some(undefined))
    })
  )
})
