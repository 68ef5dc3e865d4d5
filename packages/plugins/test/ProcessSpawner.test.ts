/**
 * The spawner on its own: what it reports, in what order, what /proc shows through it, and
 * what its scope's close leaves behind. Processes are real; waits are for events, never timers.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { McpStdio, PluginToolbox, ProcessSpawner } from "../src/index.js"
import { NodeProcessSpawner } from "../src/node/index.js"
import { eventually, fixture, inflight, isAlive, parse, use } from "./helpers.js"

const spawner = ProcessSpawner.platform

const node = (script: string) => ChildProcess.make(process.execPath, ["-e", script])

/** Starts a command; `until` collects its events until the predicate holds. */
const start = (command: ChildProcess.Command, stdin: Stream.Stream<Uint8Array> = Stream.never) =>
  Effect.gen(function* () {
    const events = yield* Queue.unbounded<ProcessSpawner.Event>()
    const started = yield* spawner.start({ command, stdin, emit: (event) => Queue.offerUnsafe(events, event) })
    const seen: Array<ProcessSpawner.Event> = []
    const until = (done: (seen: ReadonlyArray<ProcessSpawner.Event>) => boolean) =>
      Effect.gen(function* () {
        while (!done(seen)) seen.push(yield* Queue.take(events))
        return seen
      })
    return { started, until }
  })

const text = (events: ReadonlyArray<ProcessSpawner.Event>, pipe: "stdout" | "stderr") =>
  Buffer.concat(events.flatMap((e) => (e._tag === "Output" && e.pipe === pipe ? [e.bytes] : []))).toString("utf8")

const closedAndExited = (events: ReadonlyArray<ProcessSpawner.Event>) =>
  events.filter((e) => e._tag === "Closed").length === 2 && events.some((e) => e._tag === "Exited")

const indexOf = (events: ReadonlyArray<ProcessSpawner.Event>, tag: string, pipe?: string) =>
  events.findIndex((e) => e._tag === tag && (pipe === undefined || ("pipe" in e && e.pipe === pipe)))

describe("the spawner (ProcessSpawner.platform)", () => {
  it.live("reports each pipe's output before its end of file, and the exit with its code", () =>
    Effect.gen(function* () {
      const { started, until } = yield* start(
        node("process.stdout.write('hello'); process.stderr.write('oops'); process.exitCode = 3")
      )
      const events = yield* until(closedAndExited)
      expect(text(events, "stdout")).toBe("hello")
      expect(text(events, "stderr")).toBe("oops")
      expect(indexOf(events, "Output", "stdout")).toBeLessThan(indexOf(events, "Closed", "stdout"))
      expect(indexOf(events, "Output", "stderr")).toBeLessThan(indexOf(events, "Closed", "stderr"))
      expect(events.find((e) => e._tag === "Exited")).toEqual({ _tag: "Exited", status: { exitCode: 3, signal: null } })
      expect(events.find((e) => e._tag === "Closed" && e.failure !== undefined)).toBeUndefined()
      // Reaped once Node reported the exit.
      expect(yield* started.status).toEqual({ _tag: "Reaped" })
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("writes stdin in order and closes it when the stream ends", () =>
    Effect.gen(function* () {
      const bytes = (s: string) => new TextEncoder().encode(s)
      const { until } = yield* start(
        node("process.stdin.pipe(process.stdout)"),
        Stream.make(bytes("first "), bytes("second"))
      )
      // The child exits only once its stdin is closed.
      const events = yield* until(closedAndExited)
      expect(text(events, "stdout")).toBe("first second")
      expect(events.find((e) => e._tag === "Exited")).toEqual({ _tag: "Exited", status: { exitCode: 0, signal: null } })
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("fails to start a command that does not exist with NotFound", () =>
    Effect.gen(function* () {
      const error: PlatformError.PlatformError = yield* Effect.flip(start(ChildProcess.make("/nonexistent/mcp-server")))
      expect(error.reason._tag).toBe("NotFound")
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("kills the group of a process still running when its scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      // A child in the same group: the kill of the group reaches it.
      const { started, until } = yield* Effect.provideService(
        start(ChildProcess.make("bash", ["-c", "sleep 300 & echo $!; wait"])),
        Scope.Scope,
        scope
      )
      const events = yield* until((seen) => /\d+\n/.test(text(seen, "stdout")))
      const sleeper = Number(text(events, "stdout").trim())
      expect(isAlive(sleeper)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      yield* eventually(() => !isAlive(started.pid) && !isAlive(sleeper), "the group to be killed")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("NodeProcessSpawner.layer", () => {
  it.live("is all McpStdio needs on Node: calls are answered, and a kill is process_crashed", () =>
    Effect.gen(function* () {
      const provider = yield* McpStdio.make(fixture("fx"))
      const box = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)], settings: {} })
      expect((yield* box.invoke(use("echo", { text: "over node" }))).content).toBe("over node")
      const pid = (parse((yield* box.invoke(use("pid"))).content) as { pid: number }).pid
      const call = yield* Effect.forkChild(box.invoke(use("hang")))
      yield* inflight(box, 1)
      process.kill(pid, "SIGKILL")
      const result = yield* Fiber.join(call)
      expect(result.is_error).toBe(true)
      expect(result.content).toContain(`process_crashed: killed by signal SIGKILL, pid ${pid}`)
    }).pipe(Effect.provide(NodeProcessSpawner.layer))
  )
})
