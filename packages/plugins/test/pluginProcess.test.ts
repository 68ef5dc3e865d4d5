import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ChildProcess from "effect/process/ChildProcess"
import * as Queue from "effect/Queue"
import * as PluginProcess from "../src/internal/pluginProcess.js"
import { eventually, isAlive, spawners } from "./helpers.js"

const ticker = ChildProcess.make(process.execPath, ["-e", "setInterval(() => process.stdout.write('tick\\n'), 5)"])

const spawn = (onStdout: PluginProcess.Options["onStdout"]) =>
  Effect.gen(function* () {
    const stdin = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    return yield* PluginProcess.spawn({
      provider: "ticker",
      command: ticker,
      stderrTailBytes: 1024,
      shutdownGraceMillis: 300,
      groupPollMillis: 10,
      descendantPollMillis: 100,
      stdin,
      onStdout,
      onStarted: Effect.void,
      onEnd: () => Effect.void
    })
  })

describe.each(spawners)("a plugin process, $name", ({ context }) => {
  it("is stopped gracefully when its scope closes cleanly or is interrupted, at once when it fails", () => {
    expect(PluginProcess.shutdownMode(Exit.void)).toBe("graceful")
    expect(PluginProcess.shutdownMode(Exit.interrupt())).toBe("graceful")
    expect(PluginProcess.shutdownMode(Exit.fail("its breaker opened"))).toBe("immediate")
    expect(PluginProcess.shutdownMode(Exit.failCause(Cause.die(new Error("bug"))))).toBe("immediate")
  })

  it.live("whose stdout reader dies has ended: a crash, and the process is killed", () =>
    Effect.gen(function* () {
      const proc = yield* spawn(() => Effect.die(new Error("the reader broke")))
      const end = yield* Deferred.await(proc.ended)
      expect(end._tag).toBe("Exited")
      if (end._tag === "Exited") {
        expect(end.pid).toBe(proc.pid)
        expect(end.detail).toContain("Its stdout reader failed")
        expect(end.detail).toContain("the reader broke")
      }
      yield* eventually(() => !isAlive(proc.pid), "the process to be killed")
    }).pipe(Effect.provide(context))
  )

  it.live("that is stopped ends with the reason, and its scope's close kills it", () =>
    Effect.gen(function* () {
      const lines: Array<number> = []
      const pid = yield* Effect.scoped(
        Effect.gen(function* () {
          const proc = yield* spawn((chunks) => Effect.sync(() => lines.push(chunks.length)))
          yield* eventually(() => lines.length > 0, "a line to be read")
          yield* proc.stop("no longer needed")
          expect(yield* Deferred.await(proc.ended)).toEqual({ _tag: "Stopped", reason: "no longer needed" })
          return proc.pid
        })
      )
      expect(isAlive(pid)).toBe(false)
    }).pipe(Effect.provide(context))
  )
})
