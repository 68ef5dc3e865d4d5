import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as VirtualClock from "../src/testing/internal/virtualClock.js"

describe("virtual time", () => {
  it.effect("a run that settles within the wake-up limit ends with time where its last sleep woke", () =>
    Effect.gen(function* () {
      const ended = yield* VirtualClock.run(
        Effect.andThen(Effect.sleep(Duration.millis(250)).pipe(Effect.repeat({ times: 9 })), Clock.currentTimeMillis),
        0,
        10
      )
      assert.strictEqual(ended, 2_500)
    })
  )

  it.effect(
    "a run that never settles dies, with its fibers interrupted, instead of throwing out of the scheduler",
    () =>
      Effect.gen(function* () {
        const interrupted = yield* Ref.make(false)
        const endless = Effect.forever(Effect.sleep(Duration.millis(1))).pipe(
          Effect.onInterrupt(() => Ref.set(interrupted, true))
        )
        const exit = yield* Effect.exit(VirtualClock.run(endless, 0, 100))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) {
          const defect = Cause.squash(exit.cause)
          assert.include(defect instanceof Error ? defect.message : String(defect), "did not settle after 100 wake-ups")
        }
        assert.isTrue(yield* Ref.get(interrupted))
      })
  )
})
