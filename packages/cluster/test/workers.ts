/**
 * Worker processes of the multi-process tests (`./worker/*.ts`, run by node
 * with tsx's loader). The protocol is lines: a worker prints `ready` once it
 * is set up and reads commands on stdin, one a line (`go` starts its work);
 * it answers a command `NAME` with one line `NAME {json}` (its results are
 * the answer to `go`: `report {json}`).
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const root = Path.join(import.meta.dirname, "..", "..", "..")

/**
 * @category models
 */
export interface Worker {
  readonly pid: number
  /** Succeeds once the worker printed `ready`. */
  readonly ready: Effect.Effect<void>
  /** Sends `go`: the worker starts its work. */
  readonly go: Effect.Effect<void>
  /** The JSON of its `report` line, once printed. */
  readonly report: Effect.Effect<string>
  /** Sends the command `name` and waits for the JSON of the answer to it. */
  readonly ask: (name: string) => Effect.Effect<string>
  /** The exit code, once it has exited (null when a signal ended it). */
  readonly exited: Effect.Effect<number | null>
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<void>
  /**
   * Stops it (SIGSTOP) and waits until the kernel reports it stopped: from
   * then on it runs no code, so it takes in no answer and writes nothing
   * (its child processes still run). Linux: the state is read from /proc.
   */
  readonly freeze: Effect.Effect<void>
  /** Lets a frozen worker run on (SIGCONT). */
  readonly thaw: Effect.Effect<void>
  readonly stderr: () => string
}

/** The process's state letter in /proc (`T`: stopped by a signal), or undefined once it is gone. */
const stateOf = (pid: number): string | undefined => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // The name, in parentheses, may itself hold spaces and parentheses: the state follows the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2)[0]
  } catch {
    return undefined
  }
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
      const lines: Array<string> = []
      let partial = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => {
        const parts = (partial + chunk.toString("utf8")).split("\n")
        partial = parts.pop() ?? ""
        lines.push(...parts)
      })
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
      const died = Effect.flatMap(
        Effect.promise(() => exited),
        (code) => Effect.die(new Error(`the worker exited ${code} before its answer: ${stderr}`))
      )
      /** Waits for the first line from index `from` on that satisfies `found`, checking on every chunk. */
      const line = (found: (line: string) => boolean, from: number) =>
        Effect.raceFirst(
          Effect.callback<string>((resume) => {
            const check = () => {
              const hit = lines.slice(from).find(found)
              if (hit === undefined) return
              child.stdout.off("data", check)
              resume(Effect.succeed(hit))
            }
            child.stdout.on("data", check)
            check()
            return Effect.sync(() => child.stdout.off("data", check))
          }),
          died
        )
      const answer = (name: string, from: number) =>
        Effect.map(
          line((line) => line.startsWith(`${name} `), from),
          (line) => line.slice(name.length + 1)
        )
      const send = (command: string) =>
        Effect.sync(() => {
          child.stdin.write(`${command}\n`)
        })
      return {
        pid: child.pid ?? -1,
        ready: Effect.asVoid(line((line) => line === "ready", 0)),
        go: send("go"),
        report: answer("report", 0),
        ask: (name) =>
          Effect.suspend(() => {
            // Only an answer printed after the command counts.
            const from = lines.length
            return Effect.andThen(send(name), answer(name, from))
          }),
        exited: Effect.promise(() => exited),
        kill: (signal) =>
          Effect.sync(() => {
            child.kill(signal)
          }),
        freeze: Effect.andThen(
          Effect.sync(() => child.kill("SIGSTOP")),
          // SIGSTOP is delivered asynchronously: the worker may run on for a moment after kill() returns.
          Effect.repeat(
            Effect.sync(() => stateOf(child.pid ?? -1)),
            {
              until: (state) => state === "T" || state === undefined,
              schedule: Schedule.spaced("5 millis")
            }
          )
        ).pipe(Effect.asVoid),
        thaw: Effect.sync(() => {
          child.kill("SIGCONT")
        }),
        stderr: () => stderr
      }
    }
  )
