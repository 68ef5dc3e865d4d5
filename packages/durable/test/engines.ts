/**
 * What the tests of stopped runs on every engine share: the three engines over fresh SQLite files,
 * `DurableSessions` with a `Bodies` map the test can see, a toolbox that records the calls it
 * invokes, and `AgentRun` registered with its bodies counted.
 */
import { AgentRun, DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, Settings, Toolbox } from "@agent-kernel/kernel"
import type { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { holds, settle, settleFloorMillis, turns } from "./eventLoop.js"

/** The tests' settings: no jitter, so retry waits are exact on the TestClock. */
export const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

/** A toolbox with no definitions that records the id of every call it runs in `invoked` and answers "wrote". */
export const recordingTools = (invoked: Array<string>): Toolbox.Service => ({
  definitions: Effect.succeed([]),
  invoke: (call) =>
    Effect.sync(() => {
      invoked.push(call.id)
      return Content.toolResult(call.id, "wrote")
    })
})

/** The instants at which the sleeps in flight on the TestClock end (see `recordedClock`). */
export class Sleeps extends Context.Service<Sleeps, Array<number>>()("test/Sleeps") {}

/**
 * The TestClock, with every sleep in flight noted by the instant it ends (effect 4's TestClock keeps its
 * queue to itself), so that a test can tell whether something waits on the clock. Provided over a test's
 * whole context (the engines' layers and the fibers the test forks), with the `Sleeps` it records.
 */
export const recordedClock: Layer.Layer<Sleeps> = Layer.effectContext(
  Effect.map(Clock.Clock, (clock) => {
    const test = clock as TestClock.TestClock
    const ends: Array<number> = []
    const recording: TestClock.TestClock = {
      currentTimeMillisUnsafe: () => test.currentTimeMillisUnsafe(),
      currentTimeMillis: test.currentTimeMillis,
      currentTimeNanosUnsafe: () => test.currentTimeNanosUnsafe(),
      currentTimeNanos: test.currentTimeNanos,
      monotonicTimeNanosUnsafe: () => test.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: test.monotonicTimeNanos,
      adjust: (duration) => test.adjust(duration),
      setTime: (timestamp) => test.setTime(timestamp),
      withLive: (effect) => test.withLive(effect),
      sleep: (duration) =>
        Effect.suspend(() => {
          const end = test.currentTimeMillisUnsafe() + Duration.toMillis(duration)
          ends.push(end)
          return Effect.ensuring(
            test.sleep(duration),
            Effect.sync(() => ends.splice(ends.indexOf(end), 1))
          )
        })
    }
    return Context.make(Sleeps, ends).pipe(Context.add(Clock.Clock, recording))
  })
)

/**
 * A test file's harness; `prefix` names its temporary directories, `toolConcurrency` goes to the
 * runs' config. `invoked` holds the ids of the tool calls the toolbox ran (a test empties it first).
 */
export const make = (prefix: string, options: { readonly toolConcurrency?: number } = {}) => {
  const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), prefix)), "agent.db")
  const invoked: Array<string> = []
  const tools = recordingTools(invoked)
  /** DurableSessions with a `Bodies` map the test can see (and the workflow's registration, `AgentRun.layer`). */
  const sessionsWith = (
    bodies: Map<string, AgentRun.Body>,
    engine: Layer.Layer<Engine.Engine, Engine.StoreError>,
    model: ScriptedModel.ScriptedModel,
    registration: typeof AgentRun.layer = AgentRun.layer
  ) =>
    Layer.effect(DurableSessions.DurableSessions, DurableSessions.make).pipe(
      Layer.provideMerge(registration),
      Layer.provide(Layer.succeed(AgentRun.RunConfig, { model: "m", settings, ...options })),
      Layer.provide(Layer.succeed(AgentRun.Bodies, bodies)),
      Layer.provideMerge(engine),
      Layer.provide(model.layer),
      Layer.provide(Toolbox.layer(tools)),
      Layer.provideMerge(recordedClock)
    )
  const engines = [
    { name: "light engine", engine: () => Engine.layerSqlite(file()) },
    { name: "memory engine", engine: () => Engine.layerMemory },
    { name: "cluster engine (SQLite)", engine: () => Engine.layerClusterSqlite(file()) }
  ] as const
  return { file, invoked, sessionsWith, engines }
}

/**
 * `AgentRun` registered with its bodies counted (`started`). A body started more than `limit` times dies at
 * once instead of running (a defect every engine records as the execution's result), so an engine that starts
 * a body again and again fails the test's count fast instead of spinning until the heap is gone.
 */
export const countedBodies = (limit: number) => {
  const started = { count: 0 }
  const registration: typeof AgentRun.layer = AgentRun.AgentRun.toLayer((payload, executionId) =>
    Effect.suspend(() =>
      ++started.count > limit
        ? Effect.die(`a body started more than ${limit} times`)
        : AgentRun.body(payload, executionId)
    )
  )
  return { started, registration }
}

/** The execution id of run `run` of session `id`, in the session's current life. */
export const executionOf = (id: string, run: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly life: string | null }>`SELECT life FROM agent_sessions WHERE id = ${id}`
    return yield* AgentRun.AgentRun.executionId({
      session_id: id,
      ...(row?.life == null ? {} : { life: row.life }),
      run,
      input: Content.userText("")
    })
  })

/**
 * Whether the engine's result of the execution is `Suspended`: its body has ended waiting, on a durable
 * wait (whose wake-up it armed before it suspended, so the TestClock can move) or a JournalError. Every
 * engine forgets the result when the body starts again (the light and memory engines poll the new
 * body's fiber, the cluster engine resets the run's reply), so it is not the suspension of an earlier wait.
 */
export const suspended = (executionId: string) =>
  Effect.map(
    AgentRun.AgentRun.poll(executionId),
    Option.exists((result) => result._tag === "Suspended")
  )

/** Event-loop turns until the model has been called `n` times. */
export const callsReach = (model: ScriptedModel.ScriptedModel, n: number) =>
  settle(Effect.map(model.calls, (calls) => calls.length === n))

/**
 * Run 1 of session "s" started on a fiber of its own (the caller), once the model has been called `calls`
 * times; with the run's execution id.
 */
export const startedRun = (model: ScriptedModel.ScriptedModel, calls = 1) =>
  Effect.gen(function* () {
    const sessions = yield* DurableSessions.DurableSessions
    const caller = yield* Effect.forkChild(sessions.run("s", "go"))
    const executionId = yield* Effect.andThen(callsReach(model, calls), executionOf("s", 1))
    return { caller, executionId }
  })

/** Whether the engine says the execution is suspended on a JournalError. */
export const suspendedOnJournal = (executionId: string) =>
  Effect.map(AgentRun.AgentRun.poll(executionId), (result) => Option.isSome(AgentRun.suspendedOn(result)))

/**
 * Twenty event-loop turns, then more until `fiber` ends or something waits on the TestClock (a wake-up is
 * due): the steps before a caller's next
 * poll include the execution id's hash, on libuv's thread pool, which a count of event-loop turns outran on
 * a loaded machine (the clock moved before the poll's sleep began, and the join then waited for ever).
 * `holds`' real-time floor ends the wait for a fiber waiting on neither.
 */
const waitingOnTheClock = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.andThen(
    turns(20),
    holds(
      Effect.gen(function* () {
        if (fiber.pollUnsafe() !== undefined) return true
        const now = yield* Clock.currentTimeMillis
        return (yield* Sleeps).some((at) => at > now)
      })
    )
  )

/**
 * Moves the TestClock on a second at a time while `fiber` has not ended: the caller of a suspended run
 * polls it each second (`AgentRun.AgentRun`'s `suspendedRetrySchedule`, `AgentRun.journalFailure`). At
 * most twice `seconds` in all: the fiber's own waits stay bounded (a run that wrongly waits on a deadline
 * further away still never ends, and its test fails).
 */
const movingTheClock = <A, E>(fiber: Fiber.Fiber<A, E>, seconds: number) =>
  Effect.gen(function* () {
    const ended = Effect.sync(() => fiber.pollUnsafe() !== undefined)
    const start = performance.now()
    for (let n = 0; n < 2 * seconds && !(yield* ended); n++) {
      if (n >= seconds) {
        // Past its seconds, the fiber may wait off the event loop (the execution id's hash, on libuv's
        // pool, which a loaded machine starves) before its next poll: the caller's own poll keeps a wake-up
        // due, so `waitingOnTheClock` did not wait for it, and the seconds ran out before it was back. The
        // clock moves on only after 50 ms of real time without the fiber ending, until the real-time floor
        // `holds` has.
        if (performance.now() - start >= settleFloorMillis) break
        if (yield* holds(ended, 20, 50)) break
      }
      yield* waitingOnTheClock(fiber)
      yield* TestClock.adjust("1 second")
    }
  })

/**
 * Joins `fiber`, moving the TestClock on while it waits (`movingTheClock`); a fiber that still has not
 * ended is joined (and the test times out) as before.
 */
export const joinPolling = <A, E>(fiber: Fiber.Fiber<A, E>, seconds = 30) =>
  Effect.andThen(movingTheClock(fiber, seconds), Fiber.join(fiber))

/**
 * Whether `fiber` ends: the TestClock moved on while it has not, as in `joinPolling`, then event-loop turns
 * until it has (`holds`: at least 20 s of real time, for the execution id's hash on libuv's pool). `false`
 * only for a fiber that never ends, where `joinPolling` would wait for ever; a count of turns alone was too
 * few on a loaded machine (the hash had not come back), and so were its seconds when the hash came back
 * after the caller's poll had spent them (the same starved pool `joinPolling` waits out past its seconds).
 */
export const endsPolling = <A, E>(fiber: Fiber.Fiber<A, E>, seconds = 10): Effect.Effect<boolean, never, Sleeps> =>
  Effect.andThen(movingTheClock(fiber, seconds), holds(Effect.sync(() => fiber.pollUnsafe() !== undefined)))
