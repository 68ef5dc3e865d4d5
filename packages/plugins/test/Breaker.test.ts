import type { KernelEvent } from "@agent-kernel/kernel"
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import { Gate, McpStdio, PluginToolbox } from "../src/index.js"
import { eventually, fixture, inflight, isAlive, parse, processesWith, recordEvents, use } from "./helpers.js"

const settings = {
  tool_timeout_ms: 5_000,
  breaker_consecutive_failures: 3,
  breaker_total_failures: 20,
  breaker_cooldown_ms: 30_000
}

const toolbox = (config: McpStdio.Config) =>
  Effect.gen(function* () {
    const provider = yield* McpStdio.make(config)
    const box = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)], settings })
    return { provider, box, breaker: box.breakers.get(config.name)! }
  })

const transitions = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
  events.flatMap((event) =>
    event.type === "breaker_changed" ? [`${event.subject}: ${event.from} -> ${event.to}`] : []
  )

// Timing runs on the TestClock (it.effect); processes are real.
describe("timeouts and the circuit breaker, on the TestClock", () => {
  it.effect("a timeout cancels the call with notifications/cancelled, and a late answer is ignored", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox(fixture("fx"))
      yield* box.definitions
      const call = yield* Effect.forkChild(box.invoke(use("slow", { ms: 300, late: true })))
      yield* inflight(box, 1)
      yield* TestClock.adjust("5 seconds")
      const result = yield* Fiber.join(call)
      expect(result.is_error).toBe(true)
      expect(result.content).toBe('Tool "slow" of plugin "fx" timed out after 5000 ms; the call was cancelled.')
      const cancelled = parse((yield* box.invoke(use("cancellations"))).content) as Array<{ reason: string }>
      expect(cancelled).toHaveLength(1)
      expect(cancelled[0]!.reason).toBe("the call timed out after 5000 ms (tool_timeout_ms)")
      // This call outlasts the late answer to the first one, which must not be taken for its own.
      const next = yield* box.invoke(use("slow", { ms: 600 }))
      expect(next).toMatchObject({ content: "slept 600 ms", is_error: false })
      expect(yield* provider.stats).toMatchObject({ spawns: 1, crashes: 0, junkLines: 0 })
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect(
    "three crashes open the breaker: tools withdrawn, no spawn; after the cooldown one probe respawns and closes it",
    () =>
      Effect.gen(function* () {
        const recorded = yield* recordEvents
        yield* Effect.gen(function* () {
          const { box, provider, breaker } = yield* toolbox(fixture("fx"))
          expect((yield* box.definitions).length).toBeGreaterThan(0)
          for (let i = 1; i <= 3; i++) {
            const result = yield* box.invoke(use("crash", { code: i }))
            expect(result.content).toContain(`exit code ${i}`)
            if (i < 3) expect(result.content).toContain("will be restarted")
            else expect(result.content).toContain("circuit breaker is now open")
          }
          expect(yield* breaker.status).toBe("open")
          expect(yield* box.definitions).toEqual([])
          const rejected = yield* box.invoke(use("echo", { text: "x" }))
          expect(rejected.is_error).toBe(true)
          expect(rejected.content).toContain('the circuit breaker of plugin "fx" is open (3 consecutive failures)')
          expect(rejected.content).toContain("retried in 30 s")
          expect(yield* provider.stats).toMatchObject({ spawns: 3, crashes: 3, pid: undefined })

          yield* TestClock.adjust("29 seconds")
          expect((yield* box.invoke(use("echo", { text: "x" }))).content).toContain("retried in 1 s")
          expect((yield* provider.stats).spawns).toBe(3)

          yield* TestClock.adjust("1 second")
          expect(yield* breaker.status).toBe("half_open")
          expect((yield* box.definitions).map((t) => t.name)).toContain("echo")
          const probe = yield* box.invoke(use("echo", { text: "probe" }))
          expect(probe).toMatchObject({ content: "probe", is_error: false })
          expect(yield* breaker.status).toBe("closed")
          expect((yield* provider.stats).spawns).toBe(4)
        }).pipe(Effect.provide(recorded.layer))
        expect(transitions(yield* recorded.events)).toEqual([
          "fx: closed -> open",
          "fx: open -> half_open",
          "fx: half_open -> closed"
        ])
      }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a failed probe reopens the breaker for another cooldown", () =>
    Effect.gen(function* () {
      const { box, provider, breaker } = yield* toolbox(fixture("fx"))
      for (let i = 0; i < 3; i++) yield* box.invoke(use("crash"))
      yield* TestClock.adjust("30 seconds")
      const probe = yield* box.invoke(use("crash", { code: 9 }))
      expect(probe.content).toContain("exit code 9")
      expect(yield* breaker.status).toBe("open")
      expect((yield* box.invoke(use("echo", { text: "x" }))).content).toContain("is open")
      expect((yield* provider.stats).spawns).toBe(4)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("timeouts count toward the same breaker, and opening it kills the hung server", () =>
    Effect.gen(function* () {
      const { box, provider, breaker } = yield* toolbox(fixture("fx"))
      yield* box.definitions
      const pid = (yield* provider.stats).pid!
      // In flight together: a success in between would reset the consecutive count.
      const calls = yield* Effect.forkChild(
        Effect.all([box.invoke(use("hang")), box.invoke(use("hang")), box.invoke(use("hang"))], {
          concurrency: "unbounded"
        })
      )
      yield* inflight(box, 3)
      yield* TestClock.adjust("5 seconds")
      for (const result of yield* Fiber.join(calls)) expect(result.content).toContain("timed out after 5000 ms")
      expect(yield* breaker.status).toBe("open")
      yield* eventually(() => !isAlive(pid), "the hung server to be killed")
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a denial storm trips the same breaker; denied calls spawn nothing", () =>
    Effect.gen(function* () {
      const recorded = yield* recordEvents
      const gate = Gate.layerRules({ deny: [{ tool: "echo", reason: "Echoing is not allowed in this session." }] })
      yield* Effect.gen(function* () {
        const { box, provider, breaker } = yield* toolbox(fixture("fx"))
        yield* box.definitions
        const pid = (yield* provider.stats).pid!
        for (let i = 0; i < 3; i++) {
          const denied = yield* box.invoke(use("echo", { text: "x" }))
          expect(denied.is_error).toBe(true)
          expect(denied.content).toContain('Permission denied: tool "echo" was not run. Echoing is not allowed')
        }
        expect(yield* breaker.status).toBe("open")
        const other = yield* box.invoke(use("pid"))
        expect(other.content).toContain("circuit breaker")
        expect((yield* provider.stats).spawns).toBe(1)
        yield* eventually(() => !isAlive(pid), "the server to be stopped")
      }).pipe(Effect.provide(Layer.merge(recorded.layer, gate)))
      expect(transitions(yield* recorded.events)).toEqual(["fx: closed -> open"])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("crashes and denials add up in one breaker; fixable failures do not count", () =>
    Effect.gen(function* () {
      const gate = Gate.rules({ deny: [{ tool: "echo" }] })
      const { box, breaker } = yield* Effect.provideService(toolbox(fixture("fx")), Gate.Gate, gate)
      for (let i = 0; i < 5; i++) expect((yield* box.invoke(use("fail"))).is_error).toBe(true)
      expect(yield* breaker.counts).toEqual({ consecutive: 0, total: 0 })
      yield* box.invoke(use("crash"))
      yield* box.invoke(use("echo", { text: "x" }))
      expect(yield* breaker.counts).toEqual({ consecutive: 2, total: 2 })
      yield* box.invoke(use("crash"))
      expect(yield* breaker.status).toBe("open")
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect(
    "an interrupted probe is abandoned, not counted: the breaker stays half-open and the next call probes",
    () =>
      Effect.gen(function* () {
        const { box, breaker, provider } = yield* toolbox(fixture("fx"))
        for (let i = 0; i < 3; i++) yield* box.invoke(use("crash"))
        yield* TestClock.adjust("30 seconds")
        const probe = yield* Effect.forkChild(box.invoke(use("hang")))
        // Behind the toolbox every other call is refused while the probe is out: ask the provider itself.
        for (;;) {
          if (Number(yield* provider.call("inflight", {})) >= 1) break
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
        }
        expect((yield* box.invoke(use("echo", { text: "x" }))).content).toContain("a recovery probe is in flight")
        yield* Fiber.interrupt(probe)
        expect(yield* breaker.status).toBe("half_open")
        expect(yield* breaker.counts).toEqual({ consecutive: 3, total: 3 })
        // No second cooldown: the next call is the probe.
        expect(yield* box.invoke(use("echo", { text: "next probe" }))).toMatchObject({
          content: "next probe",
          is_error: false
        })
        expect(yield* breaker.status).toBe("closed")
      }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a server that never answers the handshake times out, is killed, and its tools stay unoffered", () =>
    Effect.gen(function* () {
      const recorded = yield* recordEvents
      const marker = `--tag=hang-${process.pid}-${Date.now()}`
      const { box, provider, breaker } = yield* toolbox(fixture("mute", "--hang-at-startup", marker))
      const listing = yield* Effect.forkChild(Effect.provide(box.definitions, recorded.layer))
      yield* eventually(() => processesWith(marker).length === 1, "the server to start")
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(listing)).toEqual([])
      expect(JSON.stringify(yield* recorded.events)).toContain("timed out after 5000 ms")
      yield* eventually(() => processesWith(marker).length === 0, "the mute server to be killed")
      expect(yield* breaker.counts).toEqual({ consecutive: 1, total: 1 })
      expect((yield* provider.stats).spawns).toBe(1)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  // The scope of a handshake cut at tool_timeout_ms is closed by the interrupted call's own fiber. The
  // stop must still run to its end: cut short, it left the SDK's initialize pending (a timer that kept
  // the CLI from ever exiting) and every descendant outside the process group running.
  it.effect("a handshake cut at tool_timeout_ms still stops the server fully, its detached descendant too", () =>
    Effect.gen(function* () {
      const marker = `--tag=detached-${process.pid}-${Date.now()}`
      // A regression must not leave the grandchild behind for the rest of the suite.
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          for (const pid of processesWith(marker)) process.kill(pid, "SIGKILL")
        })
      )
      const { box } = yield* toolbox(fixture("mute", "--hang-at-startup", "--detached-at-startup", marker))
      const listing = yield* Effect.forkChild(box.definitions)
      yield* eventually(() => processesWith(marker).length === 2, "the server and its detached grandchild to start")
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(listing)).toEqual([])
      yield* eventually(() => processesWith(marker).length === 0, "the server and its grandchild to be killed")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
