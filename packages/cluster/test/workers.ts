/**
 * Worker processes of the multi-process tests (`./worker/*.ts`, run by node
 * with tsx's loader): each prints `ready` once it is set up, starts on a line on stdin,
 * and prints its results as JSON lines.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"

const root = Path.join(import.meta.dirname, "..", "..", "..")

/**
 * @category models
 */
export interface Worker {
  /** Succeeds once the worker printed `ready`. */
  readonly ready: Effect.Effect<void>
  readonly go: Effect.Effect<void>
  /** The first line of its stdout that starts with `{`, once printed. */
  readonly report: Effect.Effect<string>
  /** The exit code, once it has exited (null when a signal ended it). */
  readonly exited: Effect.Effect<number | null>
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<void>
  readonly stderr: () => string
}

/** Starts `test/worker/<name>.ts`; it is killed when the scope closes. */
export const start = (name: string, env: Record<string, string>): Effect.Effect<Worker, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() =>
        // node itself with tsx's loader, not the tsx binary: a signal must reach the worker, not a wrapper.
        ChildProcess.spawn(
          process.execPath,
          ["--import", "tsx", Path.join(import.meta.dirname, "worker", `${name}.ts`)],
          { cwd: root, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] }
        )
      ),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    ),
    (child): Worker => {
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8")
      })
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
      /** Waits until a line of stdout satisfies `found`, checking on every chunk and at exit. */
      const line = (found: (line: string) => boolean) =>
        Effect.async<string>((resume) => {
          const check = () => {
            const hit = stdout.split("\n").find((line) => found(line))
            if (hit === undefined) return
            child.stdout.off("data", check)
            resume(Effect.succeed(hit))
          }
          child.stdout.on("data", check)
          check()
          return Effect.sync(() => child.stdout.off("data", check))
        })
      return {
        ready: Effect.asVoid(line((line) => line === "ready")),
        go: Effect.sync(() => {
          child.stdin.write("go\n")
        }),
        report: Effect.raceFirst(
          line((line) => line.startsWith("{")),
          Effect.flatMap(
            Effect.promise(() => exited),
            (code) => Effect.dieMessage(`the worker exited ${code} before its report: ${stderr}`)
          )
        ),
        exited: Effect.promise(() => exited),
        kill: (signal) =>
          Effect.sync(() => {
            child.kill(signal)
          }),
        stderr: () => stderr
      }
    }
  )
