/**
 * Waiting in event-loop turns, not virtual time, for the durable tests: the
 * SQL drivers answer on the event loop, which the TestClock does not move.
 */
import * as Effect from "effect/Effect"

/** One event-loop turn: a fiber yield, then a `setImmediate`. */
const turn = Effect.zipRight(
  Effect.yieldNow(),
  Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
)

/**
 * `n` event-loop turns: room for whatever would happen next (a resumed run's SQL and fibers) to
 * happen before a test checks that it did not. The local SQLite driver answers within a turn or two.
 */
export const turns = (n: number): Effect.Effect<void> =>
  Effect.forEach(Array.from({ length: n }), () => turn, { discard: true })

/** Event-loop turns until `check` holds; a defect after `limit` turns. */
export const settle = <E, R>(check: Effect.Effect<boolean, E, R>, limit = 5_000): Effect.Effect<void, E, R> =>
  Effect.gen(function* () {
    for (let n = 0; n < limit; n++) {
      if (yield* check) return
      yield* turn
    }
    return yield* Effect.dieMessage("never settled")
  })
