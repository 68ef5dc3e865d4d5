/**
 * The wait for a child process to print a line: what `RunnerProcess.start`
 * waits on before it hands a runner out.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as ChildProcess from "node:child_process"
import type { Readable } from "node:stream"

/**
 * Succeeds once `child` has printed `marker` (on stdout or stderr); fails
 * with `onExit` of the exit code and everything it printed if it exits first.
 * Its listeners are removed however the wait ends, interruption included.
 *
 * @internal
 */
export const awaitOutput = <E>(
  child: ChildProcess.ChildProcessByStdio<null, Readable, Readable>,
  marker: string,
  onExit: (code: number | null, output: string) => E
): Effect.Effect<void, E> =>
  Effect.callback<void, E>((resume) => {
    let output = ""
    const detach = () => {
      child.stdout.off("data", onData)
      child.stderr.off("data", onData)
      child.off("exit", exited)
    }
    const onData = (chunk: Buffer | string) => {
      output += chunk.toString()
      if (!output.includes(marker)) return
      detach()
      resume(Effect.void)
    }
    const exited = (code: number | null) => {
      detach()
      resume(Effect.fail(onExit(code, output)))
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", exited)
    return Effect.sync(detach)
  })
