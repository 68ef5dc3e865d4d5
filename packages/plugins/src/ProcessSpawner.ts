/**
 * How a plugin's process is started and watched: the one place that touches
 * the runtime's process API. A spawner starts a command in its own process
 * group with its three pipes, feeds its stdin, and reports, in the order they
 * happened, what it writes, when a pipe reaches end of file and how it
 * exited. It can also say what Linux's /proc shows of it at any moment, which
 * is how a death is seen at the end of file on a pipe, before the runtime
 * reports the exit.
 *
 * The default, `platform`, works wherever `effect/process` runs: it starts
 * the process with the `ChildProcessSpawner` in context and reads /proc
 * through the `FileSystem` in context. `layer` sets another spawner (a test
 * double, a sandbox); `NodeProcessSpawner.layer` from
 * `@agent-kernel/plugins/node` provides what the default needs on Node.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as PlatformError from "effect/PlatformError"
import type * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Procfs from "./internal/procfs.js"

/**
 * How a process ended: an exit code, or the name of the signal that killed it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExitStatus {
  readonly exitCode: number | null
  readonly signal: string | null
}

/**
 * What a started process did, reported in the order it happened.
 *
 * - `Output`: bytes on its stdout or stderr.
 * - `Closed`: end of file on a pipe, or, with `failure`, its reader failed
 *   (no more bytes will be reported from it).
 * - `Exited`: the runtime reaped it.
 *
 * @since 0.1.0
 * @category models
 */
export type Event =
  | { readonly _tag: "Output"; readonly pipe: "stdout" | "stderr"; readonly bytes: Uint8Array }
  | { readonly _tag: "Closed"; readonly pipe: "stdout" | "stderr"; readonly failure?: string }
  | { readonly _tag: "Exited"; readonly status: ExitStatus }

/**
 * What /proc shows of a started process now.
 *
 * - `Running`: alive, or dying and not yet a zombie.
 * - `Zombie`: it has exited and awaits its reaping; its status is known.
 * - `Reaped`: it is gone; its `Exited` event has been or is being reported.
 * - `Unknown`: there is no /proc to read (macOS, Windows).
 *
 * @since 0.1.0
 * @category models
 */
export type Status =
  | { readonly _tag: "Running" }
  | ({ readonly _tag: "Zombie" } & ExitStatus)
  | { readonly _tag: "Reaped" }
  | { readonly _tag: "Unknown" }

/**
 * What `start` is given.
 *
 * @since 0.1.0
 * @category models
 */
export interface StartOptions {
  readonly command: ChildProcess.Command
  /** The bytes for its stdin, in order; the end of the stream closes stdin. */
  readonly stdin: Stream.Stream<Uint8Array>
  /**
   * Called with every event, in order. It must not throw, and it is called
   * outside any fiber (from the runtime's callbacks), so it should only hand
   * the event on (`Queue.offerUnsafe`).
   */
  readonly emit: (event: Event) => void
}

/**
 * A started process.
 *
 * @since 0.1.0
 * @category models
 */
export interface Started {
  readonly pid: number
  /** What /proc shows of it now. */
  readonly status: Effect.Effect<Status>
}

/**
 * A spawner. `start` runs the command in a process group of its own (its pid
 * is the group's id) as a resource of the scope: the scope's close releases
 * what the spawner holds, and kills the group if it still runs. Stopping the
 * process gracefully is the caller's business, before the scope closes.
 *
 * The requirements are those of the portable spawner, so that choosing a
 * spawner never changes what a provider needs from its context.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly start: (
    options: StartOptions
  ) => Effect.Effect<
    Started,
    PlatformError.PlatformError,
    Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem
  >
}

// effect/process reports a signal exit only as the text of an error.
const signalOf = (error: PlatformError.PlatformError): string => {
  const cause = error.reason.cause
  const text = cause instanceof Error ? cause.message : error.message
  return /signal:?\s*'?(SIG[A-Z0-9]+)/.exec(text)?.[1] ?? "unknown signal"
}

const exitOf = (result: Result.Result<ChildProcessSpawner.ExitCode, PlatformError.PlatformError>): ExitStatus =>
  result._tag === "Success"
    ? { exitCode: result.success, signal: null }
    : { exitCode: null, signal: signalOf(result.failure) }

const describe = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause).split("\n", 1)[0] ?? "unknown"

/** Reads a pipe to its end, reporting its bytes by batch and then its end (or why it failed). */
const readPipe = (
  pipe: "stdout" | "stderr",
  stream: Stream.Stream<Uint8Array, PlatformError.PlatformError>,
  emit: (event: Event) => void
): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.exit(
      // By batch, not by element: the fewer steps per read, the sooner a death is seen under load.
      Stream.runForEachArray(stream, (batch) =>
        Effect.sync(() => {
          for (const bytes of batch) emit({ _tag: "Output", pipe, bytes })
        })
      )
    ),
    (exit) =>
      Effect.sync(() => {
        if (Exit.isSuccess(exit)) emit({ _tag: "Closed", pipe })
        else if (!Cause.hasInterruptsOnly(exit.cause)) {
          emit({ _tag: "Closed", pipe, failure: describe(exit.cause) })
        }
      })
  )

/**
 * The portable spawner: the `ChildProcessSpawner` for the process, its
 * `Stream`s for the pipes, and the `FileSystem` for /proc.
 *
 * @since 0.1.0
 * @category constructors
 */
export const platform: Service = {
  start: ({ command, emit, stdin }) =>
    Effect.gen(function* () {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const procfs = yield* Procfs.make
      const handle = yield* spawner.spawn(command)
      const scope = yield* Effect.scope
      // Interruptible whatever the caller's region: the owner may start a process uninterruptibly,
      // and a reader that cannot be interrupted would keep the scope from ever closing.
      const fork = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.forkIn(Effect.interruptible(Effect.ignore(effect)), scope)
      // Writing to a dead child fails with EPIPE; the exit is reported by the exit watcher.
      yield* fork(Stream.run(stdin, handle.stdin))
      yield* fork(readPipe("stdout", handle.stdout, emit))
      yield* fork(readPipe("stderr", handle.stderr, emit))
      yield* fork(
        Effect.flatMap(Effect.result(handle.exitCode), (result) =>
          Effect.sync(() => emit({ _tag: "Exited", status: exitOf(result) }))
        )
      )
      const stat = yield* procfs.statReader(handle.pid)
      return { pid: handle.pid, status: Effect.map(stat, (now) => Procfs.statusOf(procfs.available, now)) }
    })
}

/**
 * The spawner `McpStdio` uses: the one in context, `platform` by default.
 *
 * @since 0.1.0
 * @category references
 */
export const ProcessSpawner: Context.Reference<Service> = Context.Reference<Service>(
  "@agent-kernel/plugins/ProcessSpawner",
  { defaultValue: () => platform }
)

/**
 * A layer that sets the spawner.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (spawner: Service): Layer.Layer<never> => Layer.succeed(ProcessSpawner, spawner)
