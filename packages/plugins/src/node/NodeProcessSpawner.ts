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
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import * as PlatformError from "effect/PlatformError"
import type * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as CommandLine from "effect/process/CommandLine"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as NodeChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Procfs from "../internal/procfs.js"
import * as ProcessSpawner from "../ProcessSpawner.js"

const reasonOf = (code: string | undefined): PlatformError.SystemErrorTag => {
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

const unwrap = (word: CommandLine.Word): string => (Redacted.isRedacted(word) ? Redacted.value(word) : word)

const spawnError = (error: NodeJS.ErrnoException, command: ChildProcess.StandardCommand): PlatformError.PlatformError =>
  PlatformError.systemError({
    _tag: reasonOf(error.code),
    module: "ChildProcess",
    method: "spawn",
    description: error.message,
    pathOrDescriptor: CommandLine.display([command.command, ...command.args]),
    ...(error.syscall === undefined ? {} : { syscall: error.syscall }),
    cause: error
  })

/** The environment `effect/process` gives a command: its own, on top of the host's when it extends it. */
const environmentOf = (options: ChildProcess.CommandOptions): NodeJS.ProcessEnv | undefined => {
  if (options.env === undefined) return undefined
  const env: NodeJS.ProcessEnv = options.extendEnv === true ? { ...process.env } : {}
  for (const [key, value] of Object.entries(options.env)) {
    if (value === undefined) delete env[key]
    else env[key] = unwrap(value)
  }
  return env
}

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

const spawnChild = (command: ChildProcess.StandardCommand) =>
  Effect.callback<NodeChildProcess.ChildProcess, PlatformError.PlatformError>((resume) => {
    const child = NodeChildProcess.spawn(command.command, command.args.map(unwrap), {
      stdio: ["pipe", "pipe", "pipe"],
      cwd: command.options.cwd,
      shell: command.options.shell,
      env: environmentOf(command.options),
      // Its own process group (its pid is the group id), as the portable spawner does.
      detached: true
    })
    const failed = (error: NodeJS.ErrnoException) => resume(Effect.fail(spawnError(error, command)))
    child.once("error", failed)
    child.once("spawn", () => {
      child.off("error", failed)
      resume(Effect.succeed(child))
    })
  })

const hasExited = (child: NodeChildProcess.ChildProcess): boolean =>
  child.exitCode !== null || child.signalCode !== null || child.pid === undefined

/** Kills the group of a child still running and waits for its exit. */
const killAndAwait = (child: NodeChildProcess.ChildProcess): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (hasExited(child)) return resume(Effect.void)
    const exited = () => resume(Effect.void)
    child.once("exit", exited)
    Procfs.signalGroup(child.pid!, "SIGKILL")
    return Effect.sync(() => child.off("exit", exited))
  })

// The owner stops it first (gracefully or not); this makes sure, as the portable spawner does: a
// group still running is killed, and its exit awaited (on the wall clock, bounded), so that a closed
// scope means a dead process even when the owner's own shutdown was cut short by an interruption.
const release = (child: NodeChildProcess.ChildProcess): Effect.Effect<void> =>
  Procfs.onWallClock(Effect.timeoutOption(killAndAwait(child), releaseBoundMillis)).pipe(
    Effect.andThen(
      Effect.sync(() => {
        child.stdin?.destroy()
        child.stdout?.destroy()
        child.stderr?.destroy()
      })
    )
  )

/** Hands every output, end of file and the exit of a child to `emit`, in the order they happen. */
const watch = (child: NodeChildProcess.ChildProcess, emit: (event: ProcessSpawner.Event) => void): void => {
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
}

/** Writes the stdin stream to the child, then closes its stdin. Interruptible, so the scope's close can end it. */
const feedStdin = (child: NodeChildProcess.ChildProcess, input: Stream.Stream<Uint8Array>) => {
  const stdin = child.stdin!
  // Writing to a dead child fails with EPIPE; its exit is reported by `watch`.
  stdin.on("error", () => {})
  return Effect.forkScoped(
    Stream.runForEach(input, (bytes) => Effect.sync(() => stdin.write(bytes))).pipe(
      Effect.ensuring(Effect.sync(() => stdin.end())),
      Effect.interruptible
    )
  )
}

const startStandard = (
  command: ChildProcess.StandardCommand,
  options: ProcessSpawner.StartOptions,
  procAvailable: boolean
) =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(spawnChild(command), release)
    const pid = child.pid!
    watch(child, options.emit)
    yield* feedStdin(child, options.stdin)
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
export const layerSpawner: Layer.Layer<never> = Layer.sync(ProcessSpawner.ProcessSpawner, make)

/**
 * Everything `McpStdio` needs on Node: the Node spawner, and the
 * `ChildProcessSpawner` and `FileSystem` of `@effect/platform-node`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem | Path.Path> =
  Layer.mergeAll(
    layerSpawner,
    NodeChildProcessSpawner.layer.pipe(Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer)))
  )
