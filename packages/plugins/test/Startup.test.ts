import { Agent } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import { McpStdio, PluginError, PluginToolbox } from "../src/index.js"
import { eventually, fixture, liveGroup, processesWith, spawners } from "./helpers.js"

const bound = 5_000

const wallPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/** Waits on the wall clock, with a generous ceiling, until `find` finds something. */
const until = <A>(find: Effect.Effect<A | undefined>, what: string): Effect.Effect<A> =>
  Effect.gen(function* () {
    const deadline = Date.now() + 60_000
    for (;;) {
      const found = yield* find
      if (found !== undefined) return found
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* wallPause(10)
    }
  })

let runs = 0
const tagged = () => `--tag=startup-${process.pid}-${++runs}`

/** Moves the TestClock on by the bound until the fiber ends: a timer set after a move still fires at the next. */
const advanceUntilDone = <A, E>(fiber: Fiber.Fiber<A, E>, step = bound) =>
  Effect.gen(function* () {
    while (fiber.pollUnsafe() === undefined) {
      yield* TestClock.adjust(step)
      yield* wallPause(10)
    }
    return yield* Fiber.await(fiber)
  })

const expectStartupTimeout = (exit: Exit.Exit<unknown, PluginError.PluginError>, request: string) => {
  expect(Exit.isFailure(exit)).toBe(true)
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error : undefined
  expect(error).toBeInstanceOf(PluginError.StartupTimeout)
  expect(error).toMatchObject({ provider: "mute", request, timeoutMillis: bound, category: "timeout" })
  expect(error?.message).toContain(`Plugin "mute" did not answer ${request} within ${bound} ms of starting`)
}

// The bound runs on the TestClock; the processes are real, and nothing waits on how fast they start.
describe.each(spawners)("a plugin's start is bounded, $name", ({ context }) => {
  it.effect("a server that never answers initialize fails its start, named, and is killed", () =>
    Effect.gen(function* () {
      const tag = tagged()
      const provider = yield* McpStdio.make({
        ...fixture("mute", "--hang-at-startup", tag),
        startupTimeoutMillis: bound
      })
      const listing = yield* Effect.forkChild(provider.list)
      const pid = yield* until(
        Effect.sync(() => processesWith(tag)[0]),
        "the server to run"
      )
      expectStartupTimeout(yield* advanceUntilDone(listing), "initialize")
      yield* eventually(() => liveGroup(pid).length === 0, `group ${pid} to be gone`)
      expect((yield* provider.stats).pid).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(context))
  )

  it.effect("a server that never answers its first tools/list fails its start, named, and is killed", () =>
    Effect.gen(function* () {
      const provider = yield* McpStdio.make({ ...fixture("mute", "--hang-at-list"), startupTimeoutMillis: bound })
      const listing = yield* Effect.forkChild(provider.list)
      // Only once initialize is answered does the clock move: the bound that ends it is the listing's.
      const pid = yield* until(
        Effect.map(provider.stats, (stats) => (stats.protocolVersion === undefined ? undefined : stats.pid)),
        "initialize to be answered"
      )
      expectStartupTimeout(yield* advanceUntilDone(listing), "tools/list")
      yield* eventually(() => liveGroup(pid).length === 0, `group ${pid} to be gone`)
      expect((yield* provider.stats).pid).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(context))
  )
})

describe.each(spawners)("in an agent, $name", ({ context }) => {
  it.effect("a toolbox's server made without a bound takes the agent's plugin_startup_timeout_ms", () =>
    Effect.gen(function* () {
      const tag = tagged()
      const model = yield* ScriptedModel.make([ScriptedModel.text("no tools today")])
      const tools = PluginToolbox.layer({ providers: [McpStdio.make(fixture("mute", "--hang-at-startup", tag))] })
      const agent = Agent.layer({
        model: "m",
        provider: model.layer,
        tools: Layer.provide(tools, context),
        settings: { plugin_startup_timeout_ms: 1_000 }
      })
      const warnings: Array<string> = []
      const run = yield* Effect.forkChild(
        Agent.run("hi", {
          onEvent: (event) => (event.type === "warning" ? Effect.sync(() => warnings.push(event.message)) : Effect.void)
        }).pipe(Effect.provide(agent))
      )
      const pid = yield* until(
        Effect.sync(() => processesWith(tag)[0]),
        "the server to run"
      )
      const exit = yield* advanceUntilDone(run, 1_000)
      expect(Exit.isSuccess(exit) ? exit.value.status : exit).toBe("completed")
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain('Plugin "mute" did not answer initialize within 1000 ms of starting')
      yield* eventually(() => liveGroup(pid).length === 0, `group ${pid} to be gone`)
    })
  )
})

describe("the start-up bound", () => {
  it("is 30 s unless the config says otherwise", () => {
    expect(McpStdio.defaultStartupTimeoutMillis).toBe(30_000)
  })
})
