import { assert, describe, it } from "@effect/vitest"
import { assertEquals } from "@effect/vitest/utils"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as ChildProcess from "node:child_process"
import type { Readable } from "node:stream"
import * as Output from "./internal/output.js"

/** A real child process running `script`, killed with the scope. */
const child = (script: string) =>
  Effect.acquireRelease(
    Effect.sync(() => ChildProcess.spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] })),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

const listeners = (process: ChildProcess.ChildProcessByStdio<null, Readable, Readable>) => ({
  stdout: process.stdout.listenerCount("data"),
  stderr: process.stderr.listenerCount("data"),
  exit: process.listenerCount("exit")
})

describe("the wait for a runner's line", () => {
  it.live("succeeds on the line, and leaves no listener on the process", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const process = yield* child(`console.log("listening on 1"); setTimeout(() => {}, 60_000)`)
        const before = listeners(process)
        yield* Output.awaitOutput(process, "listening on", () => "exited")
        assert.deepStrictEqual(listeners(process), before)
      })
    )
  )

  it.live("fails with the exit code and the output when the process exits first", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const process = yield* child(`console.error("no database"); process.exit(3)`)
        const exit = yield* Effect.exit(
          Output.awaitOutput(process, "listening on", (code, output) => `${code}: ${output.trim()}`)
        )
        assertEquals(exit, Exit.fail("3: no database"))
      })
    )
  )

  it.live("interrupted, leaves no listener on the process", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const process = yield* child(`setTimeout(() => {}, 60_000)`)
        const before = listeners(process)
        const waiting = yield* Effect.forkChild(Output.awaitOutput(process, "listening on", () => "exited"))
        // Interrupted while it waits: its listeners are on.
        yield* Effect.repeat(Effect.yieldNow, { until: () => listeners(process).stdout > before.stdout })
        yield* Fiber.interrupt(waiting)
        assert.deepStrictEqual(listeners(process), before)
      })
    )
  )
})
