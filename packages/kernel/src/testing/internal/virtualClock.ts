import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Scheduler from "effect/Scheduler"

/**
 * Virtual time for a simulated run: a `Clock` whose sleeps wait on a queue of
 * wake-ups, and a `Scheduler` that runs the run's fibers and, whenever none
 * of them has work left, moves time to the earliest wake-up and wakes it.
 * Sleeps on several fibers at once (a call racing its timeout) wake in time
 * order, and those at one instant in the order they began, as under
 * `TestClock`; and the run needs no driver from outside, so it completes
 * under `Effect.runSync` (whose flush drains this scheduler) as well as
 * under any other runner.
 *
 * Use it for one run that waits on nothing but its own fibers and sleeps:
 * time moves whenever the run's fibers are idle.
 *
 * @internal
 */
export interface VirtualTime {
  readonly clock: Clock.Clock
  readonly scheduler: Scheduler.Scheduler
  /** Time stops moving: the run is over (a fiber still sleeping is left asleep). */
  readonly stop: () => void
}

interface WakeUp {
  readonly at: number
  readonly wake: () => void
}

/**
 * A run that never settles (a sleeping loop awaiting what never comes) fails instead of spinning.
 *
 * @internal
 */
export const MAX_WAKE_UPS = 10_000_000

/**
 * Virtual time from `start`. Past `maxWakeUps` wake-ups time stops and
 * `onUnsettled` is called, from the scheduler's drain.
 *
 * @internal
 */
export const make = (start = 0, onUnsettled: () => void = () => {}, maxWakeUps = MAX_WAKE_UPS): VirtualTime => {
  let now = start
  let stopped = false
  let wakeUps = 0
  // Sorted by time; a wake-up goes after those at the same instant.
  const pending: Array<WakeUp> = []
  let tasks: Array<() => void> = []
  let draining = false
  let cancelScheduled: (() => void) | undefined

  const runTasks = () => {
    while (tasks.length > 0) {
      const batch = tasks
      tasks = []
      for (const task of batch) task()
    }
  }

  const drain = () => {
    cancelScheduled?.()
    cancelScheduled = undefined
    if (draining) return
    draining = true
    try {
      runTasks()
      for (let next = pending.shift(); next !== undefined && !stopped; next = pending.shift()) {
        if (++wakeUps > maxWakeUps) {
          // A throw here would escape every fiber: the run is failed through its own effect instead.
          stopped = true
          onUnsettled()
          runTasks()
          break
        }
        now = next.at
        next.wake()
        runTasks()
      }
    } finally {
      draining = false
    }
  }

  const scheduleDrain = () => {
    if (draining || cancelScheduled !== undefined) return
    const handle = setImmediate(drain)
    cancelScheduled = () => clearImmediate(handle)
  }

  const dispatcher: Scheduler.SchedulerDispatcher = {
    scheduleTask: (task) => {
      tasks.push(task)
      scheduleDrain()
    },
    flush: drain
  }

  const sleepUntil = (at: number) =>
    Effect.callback<void>((resume) => {
      const entry: WakeUp = { at, wake: () => resume(Effect.void) }
      let index = pending.length
      while (index > 0 && (pending[index - 1]?.at ?? 0) > at) index--
      pending.splice(index, 0, entry)
      scheduleDrain()
      return Effect.sync(() => {
        const at = pending.indexOf(entry)
        if (at >= 0) pending.splice(at, 1)
      })
    })

  const nanos = () => BigInt(Math.floor(now * 1_000_000))

  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => now,
    currentTimeMillis: Effect.sync(() => now),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: nanos,
    monotonicTimeNanos: Effect.sync(nanos),
    sleep: (duration) =>
      Effect.suspend(() => {
        // Same arithmetic as TestClock (instant + millis), so instants match to the last bit.
        const end = now + Duration.toMillis(duration)
        if (end <= now) return Effect.void
        return Number.isFinite(end) ? sleepUntil(end) : Effect.never
      })
  }

  return {
    clock,
    scheduler: { executionMode: "sync", shouldYield: () => false, makeDispatcher: () => dispatcher },
    stop: () => {
      stopped = true
    }
  }
}

/**
 * Runs an effect in virtual time: its fibers on the virtual scheduler, its
 * sleeps on the virtual clock. A run that does not settle within
 * `maxWakeUps` wake-ups dies, with its fibers interrupted.
 *
 * @internal
 */
export const run = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  start = 0,
  maxWakeUps = MAX_WAKE_UPS
): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const unsettled = Deferred.makeUnsafe<never>()
    const time = make(
      start,
      () => {
        Deferred.doneUnsafe(
          unsettled,
          Effect.die(new Error(`the simulated run did not settle after ${maxWakeUps} wake-ups`))
        )
      },
      maxWakeUps
    )
    // Yielding first moves the fiber onto the virtual scheduler, so the runner's flush (runSync's) drains it.
    return Effect.andThen(Effect.yieldNow, Effect.raceFirst(effect, Deferred.await(unsettled))).pipe(
      Effect.ensuring(Effect.sync(time.stop)),
      Effect.provideService(Clock.Clock, time.clock),
      Effect.provideService(Scheduler.Scheduler, time.scheduler)
    )
  })
