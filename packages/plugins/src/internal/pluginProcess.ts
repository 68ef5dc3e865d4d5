/**
 * A plugin's process as a scoped resource: started in its own process group
 * by the `ProcessSpawner` in context, watched until it ends, and stopped
 * with everything it started when the scope closes.
 *
 * What the spawner reports (output, end of file, exit) is handled by one
 * fiber, in the order it happened, so an answer written just before a crash
 * reaches its call before the crash does. The end is one `Deferred`,
 * completed by whichever sign of death comes first: the child's exit, its
 * stdout or stderr reaching end of file while /proc shows it a zombie
 * (usually sooner than the exit is reported), the exit of another process
 * that read its requests (the server under a launcher, `watchGroup`), or its
 * stdout reader dying (then no answer could ever arrive). How it is stopped is decided from the `Exit` the scope
 * closes with: a success or an interruption gets the MCP shutdown (close
 * stdin, wait, SIGTERM, wait, SIGKILL); a failure (a broken server, a
 * tripped breaker) gets SIGKILL at once.
 *
 * What it started is known through its `ProcessTree` (/proc): tracked by
 * parent pid while it lives, and swept for as it stops, so that one that left
 * the process group or the session (`setsid`, a daemon) is ended with the
 * rest.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import type * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as CommandLine from "effect/process/CommandLine"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as PluginError from "../PluginError.js"
import * as ProcessSpawner from "../ProcessSpawner.js"
import * as ProcessTree from "./processTree.js"
import * as Procfs from "./procfs.js"

/** How a plugin process ended. @internal */
export type End =
  | {
      readonly _tag: "Exited"
      readonly pid: number
      readonly exitCode: number | null
      readonly signal: string | null
      readonly detail?: string
    }
  | { readonly _tag: "Stopped"; readonly reason: string }

/** @internal */
export interface Options {
  readonly provider: string
  readonly command: ChildProcess.Command
  readonly stderrTailBytes: number
  readonly shutdownGraceMillis: number
  /** How often the other readers of its requests are checked, once `watchGroup` ran. */
  readonly groupPollMillis: number
  /** How often descendants are looked for; 0 turns tracking off. */
  readonly descendantPollMillis: number
  /** The bytes for its stdin, in order; ending the queue closes stdin. */
  readonly stdin: Queue.Queue<Uint8Array, Cause.Done>
  /** The stdout bytes, in order. A failure or a defect here is a dead reader: the plugin is treated as crashed. */
  readonly onStdout: (chunks: ReadonlyArray<Uint8Array>) => Effect.Effect<void>
  /** Called once the process runs. */
  readonly onStarted: Effect.Effect<void>
  /** Called once, as soon as the end is known, before anything is killed. */
  readonly onEnd: (end: End) => Effect.Effect<void>
}

/** @internal */
export interface Proc {
  readonly pid: number
  readonly ended: Deferred.Deferred<End>
  /** The last bytes of its stderr, as text. */
  readonly stderrTail: () => string
  /**
   * Records the processes besides it that read its requests (they hold its
   * stdin) now, and from then on treats the exit of any of them as the
   * plugin's end: the server under a launcher that outlives it
   * (`bash -c 'node server; sleep 30'`). A helper started in the background
   * (`sh -c 'sleep 1 & exec server'`) reads nothing and ends as it likes.
   */
  readonly watchGroup: Effect.Effect<void>
  /** The descendants being tracked, for reports and tests. */
  readonly descendants: Effect.Effect<ReadonlyArray<number>>
  /** Ends it with `Stopped` (in-flight calls fail with the reason); the scope's close stops the processes. */
  readonly stop: (reason: string) => Effect.Effect<void>
}

/**
 * How the processes are stopped when the scope closes: a success or an
 * interruption (the session closed, the user pressed Ctrl-C) asks nicely; a
 * failure (the server broke, its breaker opened, a run was cut mid-call)
 * does not wait for a broken server.
 * @internal
 */
export const shutdownMode = (exit: Exit.Exit<unknown, unknown>): "graceful" | "immediate" =>
  Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? "graceful" : "immediate"

/**
 * After end of file on a pipe and a first look that found it still running,
 * the further looks for the zombie before concluding the process lives on
 * without the pipe: after 1, 2, 4 … 128 ms. A killed process is usually a
 * zombie by the time the end of file is read, or soon after (its exit is then
 * reported too); the looks cover a process still tearing down its threads.
 */
const confirmation = Schedule.max([Schedule.exponential("1 millis"), Schedule.recurs(8)])

const describe = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause).split("\n", 1)[0] ?? "unknown"

/** Which pipes reached end of file, and whether a fiber is still looking for the zombie. */
interface PipeState {
  readonly closed: ReadonlySet<"stdout" | "stderr">
  readonly confirming: boolean
}

/** One running plugin process and what is known of it. */
interface Watched {
  readonly pid: number
  readonly options: Options
  readonly procfs: Procfs.Procfs
  readonly tree: ProcessTree.ProcessTree
  readonly status: Effect.Effect<ProcessSpawner.Status>
  readonly ended: Deferred.Deferred<End>
  readonly reaped: Deferred.Deferred<void>
  readonly stderrDone: Deferred.Deferred<void>
  readonly stderr: TailBuffer
  /** Set by the first sign of death, so that a later one (its echo) does not name the end. */
  readonly dying: Ref.Ref<boolean>
  readonly pipes: Ref.Ref<PipeState>
  readonly readerBroken: Ref.Ref<boolean>
  readonly scope: Scope.Scope
  /** Runs an effect on a fiber of the process's scope, started at once, its failures ignored. */
  readonly fork: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<void>
}

/** Completes the end; only the first call does, and tells the owner. */
const end = (w: Watched, how: End): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if (!(yield* Deferred.succeed(w.ended, how))) return false
    yield* w.options.onEnd(how)
    return true
  })

/**
 * A sign of death. A crashed plugin's processes get no grace. What it wrote
 * just before dying is the most useful part of a crash report: when stderr is
 * still open (a launcher or a grandchild may hold it), the group is killed
 * first and the end waits, briefly, for the last bytes (on a fiber of its
 * own: stderr's end is reported to the fiber that may be calling this).
 * Otherwise the end comes first and the signals wait for the scheduler's next
 * turn, so the calls failed by `onEnd` answer first.
 */
const died = (w: Watched, how: End): Effect.Effect<void> =>
  Effect.gen(function* () {
    if ((yield* Ref.getAndSet(w.dying, true)) || (yield* Deferred.isDone(w.ended))) return
    if (!(yield* Deferred.isDone(w.stderrDone))) {
      yield* w.tree.signal("SIGKILL")
      const lastBytes = Procfs.onWallClock(Effect.timeoutOption(Deferred.await(w.stderrDone), 50))
      yield* w.fork(Effect.andThen(lastBytes, end(w, how)))
    } else if (yield* end(w, how)) {
      yield* Effect.yieldNow
      yield* w.tree.signal("SIGKILL")
    }
  })

/**
 * One look at /proc after an end of file: whether that settled it (it has
 * ended, or it is dead and now ends). Reaped already: its exit is reported
 * with the status.
 */
const settled = (w: Watched): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if (yield* Deferred.isDone(w.ended)) return true
    const status = yield* w.status
    if (status._tag === "Reaped") return true
    if (status._tag !== "Zombie") return false
    yield* died(w, { _tag: "Exited", pid: w.pid, exitCode: status.exitCode, signal: status.signal })
    return true
  })

/**
 * End of file on a pipe: it is dying, or it closed the pipe and lives on.
 * Each end of file looks at /proc at once: the pipes close as the process
 * tears down, a little before it is a zombie, so the second may find what the
 * first could not. Further looks, for a process still tearing down its
 * threads or one that lives on, are timed, on one fiber at a time. The looks
 * run beside the event handler: a /proc read that waits on the file system
 * must not hold back the events behind it, the exit among them.
 */
const pipeClosed = (w: Watched, pipe: "stdout" | "stderr"): Effect.Effect<void> =>
  Effect.gen(function* () {
    const busy = yield* Ref.modify(w.pipes, (state) => [
      state.confirming,
      { closed: new Set([...state.closed, pipe]), confirming: true }
    ])
    yield* w.fork(Effect.flatMap(settled(w), (done) => (done || busy ? Effect.void : confirm(w))))
  })

const confirm = (w: Watched): Effect.Effect<void> =>
  Effect.gen(function* () {
    const settledNow = yield* Procfs.onWallClock(
      Effect.repeat(settled(w), { schedule: confirmation, until: (done) => done })
    )
    if (settledNow) return
    // It lives on. stderr may be closed on purpose; with stdout gone no answer can ever arrive.
    const stdoutClosed = yield* Ref.modify(w.pipes, (state) => [
      state.closed.has("stdout"),
      { ...state, confirming: false }
    ])
    if (stdoutClosed) {
      yield* died(w, {
        _tag: "Exited",
        pid: w.pid,
        exitCode: null,
        signal: null,
        detail: `It closed its stdout but kept running, so no answer could arrive; it was killed`
      })
    }
  })

const readerFailed = (w: Watched, why: string): Effect.Effect<void> =>
  died(w, {
    _tag: "Exited",
    pid: w.pid,
    exitCode: null,
    signal: null,
    detail: `Its stdout reader failed (${why}), so no answer could arrive; it was killed`
  })

/** Hands stdout bytes to the owner; a reader that fails is a dead reader, once. */
const deliver = (w: Watched, output: ReadonlyArray<Uint8Array>): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (output.length === 0 || (yield* Ref.get(w.readerBroken))) return
    const exit = yield* Effect.exit(w.options.onStdout(output))
    if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) {
      yield* Ref.set(w.readerBroken, true)
      yield* readerFailed(w, describe(exit.cause))
    }
  })

const onSignOfEnd = (w: Watched, event: Exclude<ProcessSpawner.Event, { _tag: "Output" }>): Effect.Effect<void> => {
  if (event._tag === "Exited") {
    return Effect.andThen(
      Deferred.succeed(w.reaped, undefined),
      died(w, { _tag: "Exited", pid: w.pid, ...event.status })
    )
  }
  if (event.pipe === "stderr") {
    return Effect.andThen(
      Deferred.succeed(w.stderrDone, undefined),
      event.failure === undefined ? pipeClosed(w, "stderr") : Effect.void
    )
  }
  return event.failure === undefined ? pipeClosed(w, "stdout") : readerFailed(w, event.failure)
}

/**
 * What the spawner reports, handled in order, a batch at a time: the stdout
 * bytes of a batch are handed on together, and before any end, so an answer
 * written just before a crash counts.
 */
const handle = (w: Watched, batch: ReadonlyArray<ProcessSpawner.Event>): Effect.Effect<void> =>
  Effect.gen(function* () {
    let output: Array<Uint8Array> = []
    for (const event of batch) {
      if (event._tag === "Output") {
        if (event.pipe === "stdout") output.push(event.bytes)
        else w.stderr.append(event.bytes)
        continue
      }
      yield* deliver(w, output)
      output = []
      yield* onSignOfEnd(w, event)
    }
    yield* deliver(w, output)
  })

/** Tracks the descendants on the wall clock until the end. */
const pollDescendants = (w: Watched): Effect.Effect<void> =>
  Procfs.onWallClock(
    Effect.repeat(w.tree.track, {
      schedule: Schedule.spaced(w.options.descendantPollMillis),
      until: () => Deferred.isDone(w.ended)
    })
  )

/** Waits until the server and everything known of what it started are gone, bounded on the wall clock. */
const awaitGone = (w: Watched, maxMillis: number): Effect.Effect<void> =>
  w.procfs.available
    ? Procfs.onWallClock(
        Effect.timeoutOption(
          Effect.repeat(w.tree.gone, { schedule: Schedule.spaced("5 millis"), until: (gone) => gone }),
          maxMillis
        )
      ).pipe(Effect.asVoid)
    : Effect.void

/**
 * Stops the processes as the scope closes. Every step is bounded, and none
 * may be interruptible: the scope is often closed by an interrupted fiber (a
 * call cut at tool_timeout_ms mid-startup, Ctrl-C), and an interruptible step
 * would end the stop there, leaving the process running and the SDK's
 * requests (each with a timer that keeps Node alive) pending.
 */
const shutdown = (w: Watched, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> =>
  Effect.gen(function* () {
    // Before any signal: a child that outlives the server is reparented and lost to a search by parent.
    if (w.options.descendantPollMillis > 0) yield* w.tree.track
    yield* end(w, { _tag: "Stopped", reason: "the session closed" })
    const grace = w.options.shutdownGraceMillis
    const exited = Effect.map(
      Procfs.onWallClock(Effect.timeoutOption(Deferred.await(w.reaped), grace)),
      (o) => o._tag === "Some"
    )
    // Per the MCP spec: close stdin, wait, SIGTERM, wait, SIGKILL.
    yield* Queue.end(w.options.stdin)
    if (shutdownMode(exit) === "immediate") {
      yield* w.tree.signal("SIGKILL")
      yield* exited
    } else if (!(yield* exited)) {
      yield* w.tree.signal("SIGTERM")
      if (!(yield* exited)) {
        yield* w.tree.signal("SIGKILL")
        yield* exited
      }
    }
    // Whatever is left (a grandchild that ignored SIGTERM, a daemon that left the group or the session).
    yield* w.tree.sweep
    yield* w.tree.signal("SIGKILL")
    // SIGKILLed processes still need CPU to exit; on a loaded machine that takes a while.
    yield* awaitGone(w, Math.max(grace, 5_000))
  })

const isGone = (known: Procfs.ProcStat, now: Procfs.ProcStat | undefined): boolean =>
  now === undefined || now.startTime !== known.startTime || Procfs.isDead(now)

/** Watches the other readers of its requests: the exit of any is the plugin's end. */
const watchGroup = (w: Watched): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (!w.procfs.available) return
    yield* w.tree.track
    const readers = yield* w.tree.readers
    if (readers.length === 0) return
    // Files kept open: each check is one read, not an open, a read and a close.
    const watched = yield* Effect.forEach(readers, (reader) =>
      Effect.all({
        reader: Effect.succeed(reader),
        name: w.procfs.programName(reader),
        read: Scope.provide(w.procfs.statReader(reader.pid), w.scope)
      })
    )
    const firstGone = Effect.gen(function* () {
      for (const one of watched) if (isGone(one.reader, yield* one.read)) return one
      return undefined
    })
    const check = Effect.flatMap(firstGone, (gone) =>
      Effect.map(Deferred.isDone(w.ended), (ended) => ({ gone, over: ended || gone !== undefined }))
    )
    const poll = Effect.gen(function* () {
      const { gone } = yield* Procfs.onWallClock(
        Effect.repeat(check, { schedule: Schedule.spaced(w.options.groupPollMillis), until: (now) => now.over })
      )
      if (gone === undefined) return
      yield* died(w, {
        _tag: "Exited",
        pid: gone.reader.pid,
        exitCode: null,
        signal: null,
        detail: `Process ${gone.reader.pid} (${gone.name}) of its process group exited while its launcher (pid ${w.pid}) kept running; the group was killed`
      })
    })
    yield* w.fork(poll)
  })

/** Starts the process through the spawner in context; a process that runs is always one the owner knows of. */
const start = (options: Options, events: Queue.Queue<ProcessSpawner.Event>) =>
  Effect.gen(function* () {
    const spawner = yield* ProcessSpawner.ProcessSpawner
    return yield* spawner
      .start({
        command: options.command,
        stdin: Stream.fromQueue(options.stdin),
        emit: (event) => {
          Queue.offerUnsafe(events, event)
        }
      })
      .pipe(
        Effect.mapError(
          (error) =>
            new PluginError.SpawnFailed({
              provider: options.provider,
              command: commandLine(options.command),
              reason: spawnFailure(error.reason)
            })
        ),
        Effect.tap(() => options.onStarted),
        Effect.uninterruptible
      )
  })

/**
 * Starts a plugin process in the current scope.
 * @internal
 */
export const spawn = (
  options: Options
): Effect.Effect<
  Proc,
  PluginError.SpawnFailed,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem
> =>
  Effect.gen(function* () {
    const procfs = yield* Procfs.make
    const events = yield* Queue.unbounded<ProcessSpawner.Event>()
    const started = yield* start(options, events)
    const scope = yield* Effect.scope
    const w: Watched = {
      pid: started.pid,
      options,
      procfs,
      tree: yield* ProcessTree.make(procfs, started.pid),
      status: started.status,
      ended: yield* Deferred.make<End>(),
      reaped: yield* Deferred.make<void>(),
      stderrDone: yield* Deferred.make<void>(),
      stderr: new TailBuffer(options.stderrTailBytes),
      dying: yield* Ref.make(false),
      pipes: yield* Ref.make<PipeState>({ closed: new Set(), confirming: false }),
      readerBroken: yield* Ref.make(false),
      scope,
      fork: (effect) => Effect.asVoid(Effect.forkIn(Effect.ignore(effect), scope, { startImmediately: true }))
    }
    yield* w.fork(Effect.forever(Effect.flatMap(Queue.takeAll(events), (batch) => handle(w, batch))))
    if (procfs.available && options.descendantPollMillis > 0) yield* w.fork(pollDescendants(w))
    // Added last, so it runs first on close: the readers still drain while the process stops.
    yield* Effect.addFinalizer((exit) => shutdown(w, exit))
    return {
      pid: w.pid,
      ended: w.ended,
      stderrTail: () => w.stderr.text(),
      watchGroup: watchGroup(w),
      descendants: w.tree.descendants,
      stop: (reason) => Effect.asVoid(end(w, { _tag: "Stopped", reason }))
    }
  })

const flatten = (command: ChildProcess.Command): ReadonlyArray<ChildProcess.StandardCommand> =>
  command._tag === "StandardCommand" ? [command] : [...flatten(command.left), ...flatten(command.right)]

const commandLine = (command: ChildProcess.Command): string =>
  flatten(command)
    .map((standard) => CommandLine.display([standard.command, ...standard.args]))
    .join(" | ")

const spawnFailure = (reason: PlatformError.BadArgument | PlatformError.SystemError): string => {
  if (reason._tag === "BadArgument") return reason.message
  const why = reason.description ?? (reason.cause instanceof Error ? reason.cause.message : undefined)
  return why === undefined ? reason._tag : `${reason._tag}: ${why}`
}

/** Keeps the last `max` bytes written to it. @internal */
export class TailBuffer {
  private readonly max: number
  private chunks: Array<Uint8Array> = []
  private size = 0
  total = 0

  constructor(max: number) {
    this.max = max
  }

  append(chunk: Uint8Array): void {
    this.total += chunk.length
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.max) {
      this.size -= this.chunks.shift()!.length
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks)
    const kept = all.length > this.max ? all.subarray(all.length - this.max) : all
    const text = kept.toString("utf8")
    return this.total > kept.length ? `[...${this.total - kept.length} earlier bytes]\n${text}` : text
  }
}
