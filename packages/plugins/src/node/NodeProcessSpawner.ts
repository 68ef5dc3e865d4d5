/**
 * The Node spawner: plugin processes started with `node:child_process`,
 * their output and their end reported straight from the `ChildProcess`
 * events, and /proc read synchronously from a file kept open.
 *
 * Why it is faster than the portable spawner: there, the end of file on a
 * pipe travels through a `Stream` (several fiber steps, each a turn of the
 * scheduler) and the look at /proc that tells a dying process from one that
 * only closed its pipe is an asynchronous read on libuv's thread pool. Here
 * the `'end'` listener hands the event on at once, and the look at /proc is
 * one `pread` of a few hundred bytes, so a killed plugin is usually known to
 * be dead from the first end of file on its pipes, before Node reports its
 * exit. On a loaded machine each turn saved is worth milliseconds.
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/platform/Command"
import * as PlatformError from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Procfs from "../internal/procfs.js"
import * as ProcessSpawner from "../ProcessSpawner.js"

const reasonOf = (code: string | undefined): PlatformError.SystemErrorReason => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
    case "EPERM":
      return "PermissionDenied"
    default:
      return "Unknown"
  }
}

const spawnError = (error: NodeJS.ErrnoException, command: Command.StandardCommand): PlatformError.PlatformError =>
  new PlatformError.SystemError({
    reason: reasonOf(error.code),
    module: "Command",
    method: "spawn",
    description: error.message,
    pathOrDescriptor: [command.command, ...command.args].join(" "),
    ...(error.syscall === undefined ? {} : { syscall: error.syscall }),
    cause: error
  })

/** Reads one process's /proc stat from a file opened once; `undefined` once it is reaped. */
const statReader = (pid: number): { readonly read: () => Procfs.ProcStat | undefined; readonly close: () => void } => {
  let fd: number | undefined
  try {
    fd = Fs.openSync(`/proc/${pid}/stat`, "r")
  } catch {
    return { read: () => undefined, close: () => {} }
  }
  const buffer = Buffer.alloc(1024)
  return {
    read: () => {
      if (fd === undefined) return undefined
      try {
        const size = Fs.readSync(fd, buffer, 0, buffer.length, 0)
        return Procfs.parseStat(pid, buffer.toString("latin1", 0, size))
      } catch {
        // ESRCH: reaped.
        return undefined
      }
    },
    close: () => {
      if (fd !== undefined) Fs.closeSync(fd)
      fd = undefined
    }
  }
}

/** How long the release waits for a killed process's exit; SIGKILLed processes still need CPU to exit. */
const releaseBoundMillis = 5_000

const startStandard = (
  command: Command.StandardCommand,
  options: ProcessSpawner.StartOptions,
  procAvailable: boolean
) =>
  Effect.gen(function* () {
    const { emit } = options
    const child = yield* Effect.acquireRelease(
      Effect.async<ChildProcess.ChildProcess, PlatformError.PlatformError>((resume) => {
        const child = ChildProcess.spawn(command.command, command.args, {
          stdio: ["pipe", "pipe", "pipe"],
          cwd: Option.getOrUndefined(command.cwd),
          shell: command.shell,
          env: command.extendEnv
            ? { ...process.env, ...Object.fromEntries(command.env) }
            : Object.fromEntries(command.env),
          // Its own process group (its pid is the group id), as the portable spawner does.
          detached: true
        })
        const failed = (error: NodeJS.ErrnoException) => resume(Effect.fail(spawnError(error, command)))
        child.once("error", failed)
        child.once("spawn", () => {
          child.off("error", failed)
          resume(Effect.succeed(child))
        })
      }),
      // The owner stops it first (gracefully or not); this makes sure, as the portable spawner's
      // `CommandExecutor` does: a group still running is killed, and its exit awaited (on the wall
      // clock, bounded), so that a closed scope means a dead process even when the owner's own
      // shutdown was cut short by an interruption.
      (child) =>
        Effect.async<void>((resume) => {
          const done = () => {
            clearTimeout(bound)
            child.stdin?.destroy()
            child.stdout?.destroy()
            child.stderr?.destroy()
            resume(Effect.void)
          }
          const bound = setTimeout(done, releaseBoundMillis)
          if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done()
          child.once("exit", done)
          Procfs.signalGroup(child.pid, "SIGKILL")
        })
    )
    const pid = child.pid!
    // Errors after the spawn (a failed kill, say) are reported by the events below, never thrown.
    child.on("error", () => {})
    child.once("exit", (code, signal) => emit({ _tag: "Exited", status: { exitCode: code, signal } }))
    for (const pipe of ["stdout", "stderr"] as const) {
      const readable = child[pipe]!
      let closed = false
      const close = (failure?: string) => {
        if (closed) return
        closed = true
        emit(failure === undefined ? { _tag: "Closed", pipe } : { _tag: "Closed", pipe, failure })
      }
      readable.on("data", (bytes: Buffer) => emit({ _tag: "Output", pipe, bytes }))
      readable.once("end", () => close())
      readable.once("error", (error) => close(error.message))
    }
    const stdin = child.stdin!
    // Writing to a dead child fails with EPIPE; its exit is reported by the events above.
    stdin.on("error", () => {})
    // Interruptible whatever the caller's region, so the scope's close can end it.
    yield* Effect.forkScoped(
      Stream.runForEach(options.stdin, (bytes) => Effect.sync(() => stdin.write(bytes))).pipe(
        Effect.ensuring(Effect.sync(() => stdin.end())),
        Effect.interruptible
      )
    )
    const stat = yield* Effect.acquireRelease(
      Effect.sync(() => statReader(pid)),
      (reader) => Effect.sync(() => reader.close())
    )
    return { pid, status: Effect.sync(() => Procfs.statusOf(procAvailable, stat.read())) }
  })

/**
 * Builds the Node spawner. A piped command (`a | b`), which `McpStdio` never
 * makes, is handed to the portable spawner.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): ProcessSpawner.Service => {
  const procAvailable = Fs.existsSync("/proc/self/stat")
  return {
    start: (options) =>
      options.command._tag === "StandardCommand"
        ? startStandard(options.command, options, procAvailable)
        : ProcessSpawner.platform.start(options)
  }
}

/**
 * The Node spawner, set as the one `McpStdio` uses.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSpawner: Layer.Layer<ProcessSpawner.ProcessSpawner> = Layer.sync(ProcessSpawner.ProcessSpawner, make)

/**
 * Everything `McpStdio` needs on Node: the Node spawner, and the
 * `CommandExecutor` and `FileSystem` of `@effect/platform-node`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<
  ProcessSpawner.ProcessSpawner | CommandExecutor.CommandExecutor | FileSystem.FileSystem
> = Layer.mergeAll(layerSpawner, NodeCommandExecutor.layer.pipe(Layer.provideMerge(NodeFileSystem.layer)))
