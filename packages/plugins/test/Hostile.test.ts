/**
 * Hostile MCP servers: a hostile stdout line, a server that closes its stdout, a
 * detached grandchild, and a crash that must be seen without any timer. Processes are real.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import { McpStdio, PluginToolbox } from "../src/index.js"
import { eventually, fixture, inflight, isAlive, spawners, parse, recordEvents, use } from "./helpers.js"

const toolbox = (config: McpStdio.Config, settings: PluginToolbox.Options<never>["settings"] = {}) =>
  Effect.gen(function* () {
    const provider = yield* McpStdio.make(config)
    const box = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)], settings })
    return { provider, box }
  })

const processGroupOf = (pid: number): number => {
  const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
}

/** Whatever a test leaves running is killed at its end, pass or fail: a leaked `sleep 300` outlives the run. */
const killAtEnd = (pid: number) =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      try {
        process.kill(pid, "SIGKILL")
      } catch {}
    })
  )

describe.each(spawners)("hostile MCP servers, $name", ({ context }) => {
  it.live(
    "an oversize line whose id is not valid JSON is a warning; the reader lives on and the call is answered",
    () =>
      Effect.gen(function* () {
        const recorded = yield* recordEvents
        const { box, provider } = yield* toolbox({ ...fixture("fx"), maxMessageBytes: 10_000 })
        const result = yield* Effect.provide(box.invoke(use("hostile-line", { bytes: 50_000 })), recorded.layer)
        expect(result).toMatchObject({ content: "answered after the hostile line", is_error: false })
        const warnings = (yield* recorded.events).flatMap((event) => (event.type === "warning" ? [event.message] : []))
        expect(warnings).toHaveLength(1)
        expect(warnings[0]).toContain('plugin "fx" wrote a bad line on stdout')
        expect(warnings[0]).toContain("exceeded the limit of 10000 bytes")
        // The same process goes on answering.
        expect((yield* box.invoke(use("echo", { text: "still reading" }))).content).toBe("still reading")
        expect(yield* provider.stats).toMatchObject({ spawns: 1, crashes: 0, junkLines: 1 })
      }).pipe(Effect.provide(context)),
    // A reader the line had killed would leave the call to tool_timeout_ms (30 s by default): fail well before.
    20_000
  )

  it.effect(
    "a dead reader is a crash: a server that closes its stdout mid-call and lives on fails the call, is killed and respawned",
    () =>
      Effect.gen(function* () {
        // TestClock, never advanced: no timeout can end these calls.
        const { box, provider } = yield* toolbox(fixture("fx"))
        const first = yield* pidOf(box)
        const result = yield* box.invoke(use("close-stdout"))
        expect(result.is_error).toBe(true)
        expect(result.content).toContain('Plugin "fx" crashed while handling the call')
        expect(result.content).toContain("closed its stdout but kept running")
        yield* eventually(() => !isAlive(first), "the server to be killed")
        expect(yield* pidOf(box)).not.toBe(first)
        expect(yield* provider.stats).toMatchObject({ spawns: 2, crashes: 1 })
      }).pipe(Effect.provide(context))
  )

  it.effect(
    "a crash needs no timer: with the TestClock never advanced, a killed plugin's call is process_crashed",
    () =>
      Effect.gen(function* () {
        const { box } = yield* toolbox(fixture("fx"))
        const pid = yield* pidOf(box)
        const call = yield* Effect.forkChild(box.invoke(use("hang")))
        yield* inflight(box, 1)
        process.kill(pid, "SIGKILL")
        const result = yield* Fiber.join(call)
        expect(result.is_error).toBe(true)
        expect(result.content).toContain(`process_crashed: killed by signal SIGKILL, pid ${pid}`)
      }).pipe(Effect.provide(context))
  )

  it.live("a grandchild that left the process group (setsid) is ended when the scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { box, provider } = yield* Effect.provideService(toolbox(fixture("fx")), Scope.Scope, scope)
      const leader = yield* pidOf(box)
      const detached = (parse((yield* box.invoke(use("spawn-detached"))).content) as { pid: number }).pid
      yield* killAtEnd(detached)
      // It really escaped: a group kill would not reach it.
      expect(processGroupOf(detached)).toBe(detached)
      expect(processGroupOf(detached)).not.toBe(leader)
      expect((yield* provider.stats).pid).toBe(leader)
      yield* Scope.close(scope, Exit.void)
      expect(isAlive(leader)).toBe(false)
      expect(isAlive(detached)).toBe(false)
    }).pipe(Effect.scoped, Effect.provide(context))
  )

  it.live("a tracked detached grandchild is ended when the server crashes, not orphaned", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox(fixture("fx"))
      const leader = yield* pidOf(box)
      const detached = (parse((yield* box.invoke(use("spawn-detached"))).content) as { pid: number }).pid
      yield* killAtEnd(detached)
      // Tracking runs while the server lives (every 100 ms by default); once its parent is dead,
      // an untracked grandchild could no longer be found by its parent pid.
      yield* eventually(
        () => Effect.runSync(provider.stats).descendants.includes(detached),
        "the grandchild to be tracked"
      )
      const crashed = yield* box.invoke(use("crash", { code: 4 }))
      expect(crashed.content).toContain(`process_crashed: exit code 4, pid ${leader}`)
      yield* eventually(() => !isAlive(detached), "the orphan to be killed")
    }).pipe(Effect.provide(context))
  )
})

const pidOf = (box: PluginToolbox.PluginToolbox) =>
  Effect.map(box.invoke(use("pid")), (result) => (parse(result.content) as { pid: number }).pid)
