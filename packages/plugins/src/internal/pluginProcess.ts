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
 * (usually sooner than the exit is reported), the exit of a launched process
 * of its group (`watchGroup`), or its stdout reader dying (then no answer
 * could ever arrive). How it is stopped is decided
 * from the `Exit` the scope closes with: a success or an interruption gets
 * the MCP shutdown (close stdin, wait, SIGTERM, wait, SIGKILL); a failure
 * (a broken server, a tripped breaker) gets SIGKILL at once.
 *
 * While it lives, its descendants are tracked by parent pid (/proc), so that
 * one that left the process group (`setsid`, a daemon) is still ended with
 * the rest.
 */
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as PluginError from "../PluginError.js"
import * as ProcessSpawner from "../ProcessSpawner.js"
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
  readonly command: Command.Command
  readonly stderrTailBytes: number
  readonly shutdownGraceMillis: number
  /** How often launched members of the group are checked, once `watchGroup` ran. */
  readonly groupPollMillis: number
  /** How often descendants are looked for; 0 turns tracking off. */
  readonly descendantPollMillis: number
  /** The bytes for its stdin, in order; shutting the queue down closes stdin. */
  readonly stdin: Queue.Queue<Uint8Array>
  /** The stdout bytes, in order. A failure or a defect here is a dead reader: the plugin is treated as crashed. */
  readonly onStdout: (chunks: Chunk.Chunk<Uint8Array>) => Effect.Effect<void>
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
   * Records the members of its process group now, and from then on treats
   * the exit of any of them as the plugin's end: the server under a launcher
   * that outlives it (`bash -c 'node server; sleep 30'`).
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
  Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause) ? "graceful" : "immediate"

/**
 * After end of file on a pipe and a first look that found it still running,
 * the waits between further looks for the zombie before concluding the
 * process lives on without the pipe. A killed process is usually a zombie by
 * the time the end of file is read, or soon after (its exit is then reported
 * too); the steps cover a process still tearing down its threads.
 * @internal
 */
export const confirmationSteps: ReadonlyArray<number> = [1, 2, 4, 8, 16, 32, 64, 128]

const describe = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause).split("\n", 1)[0] ?? "unknown"

/**
 * Starts a plugin process in the current scope.
 * @internal
 */
export const spawn = (
  options: Options
): Effect.Effect<
  Proc,
  PluginError.SpawnFailed,
  Scope.Scope | CommandExecutor.CommandExecutor | FileSystem.FileSystem
> =>
  Effect.gen(function* () {
    const spawner = yield* ProcessSpawner.ProcessSpawner
    const procfs = yield* Procfs.make
    const events = yield* Queue.unbounded<ProcessSpawner.Event>()
    // Started and counted as one step: a process that runs is always one the owner knows of.
    const started = yield* spawner
      .start({
        command: options.command,
        stdin: Stream.fromQueue(options.stdin),
        emit: (event) => {
          Queue.unsafeOffer(events, event)
        }
      })
      .pipe(
        Effect.mapError(
          (error) =>
            new PluginError.SpawnFailed({
              provider: options.provider,
              command: commandLine(options.command),
              reason: error._tag === "SystemError" ? `${error.reason}: ${error.description ?? ""}` : error.message
            })
        ),
        Effect.tap(() => options.onStarted),
        Effect.uninterruptible
      )
    const pid = started.pid
    const ended = yield* Deferred.make<End>()
    const reaped = yield* Deferred.make<void>()
    const stderr = new TailBuffer(options.stderrTailBytes)
    const stderrDone = yield* Deferred.make<void>()
    // Descendants seen while it lived, each with its start time: a pid alone may have been reused.
    const tracked = yield* Ref.make<ReadonlyMap<number, Procfs.ProcStat>>(new Map())
    const scope = yield* Effect.scope
    const fork = <A, E>(effect: Effect.Effect<A, E>) => Effect.forkIn(Effect.ignore(effect), scope)

    const alive = (known: Procfs.ProcStat) =>
      Effect.map(
        procfs.stat(known.pid),
        (now) => now !== undefined && now.startTime === known.startTime && !Procfs.isDead(now)
      )

    const signalAll = (name: NodeJS.Signals) =>
      Effect.gen(function* () {
        Procfs.signalGroup(pid, name)
        for (const known of (yield* Ref.get(tracked)).values()) {
          if (yield* alive(known)) Procfs.signal(known.pid, name)
        }
      })

    const end = (how: End) =>
      Effect.gen(function* () {
        if (!(yield* Deferred.succeed(ended, how))) return false
        yield* options.onEnd(how)
        return true
      })

    // A crashed plugin's processes get no grace. What it wrote just before dying is the most useful
    // part of a crash report: when stderr is still open (a launcher or a grandchild may hold it),
    // the group is killed first and the end waits, briefly, for the last bytes (on a fiber of its
    // own: stderr's end is reported to the fiber that may be calling this). Otherwise the end comes
    // first and the signals wait for the next turn of the event loop, so the calls failed by
    // `onEnd` answer first: a kill is a system call, and an exception when the group is gone.
    // The first sign of death names the end: a later one (the group's launcher dying of the kill) is its echo.
    const dying = yield* Ref.make(false)
    const died = (how: End) =>
      Effect.gen(function* () {
        if ((yield* Ref.getAndSet(dying, true)) || (yield* Deferred.isDone(ended))) return
        if (!(yield* Deferred.isDone(stderrDone))) {
          yield* signalAll("SIGKILL")
          yield* fork(Effect.zipRight(Effect.raceFirst(Deferred.await(stderrDone), Procfs.wallSleep(50)), end(how)))
        } else if (yield* end(how)) {
          yield* Procfs.nextTurn
          yield* signalAll("SIGKILL")
        }
      })

    // One look at /proc after an end of file: whether that settled it (it has ended, or it is
    // dead and now ends). Reaped already: its exit is reported with the status.
    const settled = Effect.gen(function* () {
      if (yield* Deferred.isDone(ended)) return true
      const status = yield* started.status
      if (status._tag === "Reaped") return true
      if (status._tag !== "Zombie") return false
      yield* died({ _tag: "Exited", pid, exitCode: status.exitCode, signal: status.signal })
      return true
    })

    // End of file on a pipe: it is dying, or it closed the pipe and lives on. Each end of file
    // looks at /proc at once: the pipes close as the process tears down, a little before it is a
    // zombie, so the second may find what the first could not. Further looks, for a process still
    // tearing down its threads or one that lives on, are timed, on one fiber of their own.
    const pipes = yield* Ref.make({ closed: new Set<"stdout" | "stderr">(), confirming: false })
    const pipeClosed = (pipe: "stdout" | "stderr") =>
      Effect.gen(function* () {
        const busy = yield* Ref.modify(pipes, (state) => [
          state.confirming,
          { closed: new Set([...state.closed, pipe]), confirming: true }
        ])
        if (!(yield* settled) && !busy) yield* fork(confirm)
      })
    const confirm = Effect.gen(function* () {
      for (const wait of confirmationSteps) {
        yield* Procfs.wallSleep(wait)
        if (yield* settled) return
      }
      // It lives on. stderr may be closed on purpose; with stdout gone no answer can ever arrive.
      const stdoutClosed = yield* Ref.modify(pipes, (state) => [
        state.closed.has("stdout"),
        { ...state, confirming: false }
      ])
      if (stdoutClosed) {
        yield* died({
          _tag: "Exited",
          pid,
          exitCode: null,
          signal: null,
          detail: `It closed its stdout but kept running, so no answer could arrive; it was killed`
        })
      }
    })

    const track = Effect.gen(function* () {
      if (!procfs.available) return
      const known = yield* Ref.get(tracked)
      const next = new Map<number, Procfs.ProcStat>()
      for (const stat of known.values()) if (yield* alive(stat)) next.set(stat.pid, stat)
      // Children of the server and of every descendant known, including those it left behind.
      const queue = [pid, ...next.keys()]
      for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
        for (const child of yield* procfs.children(parent)) {
          if (child === pid || next.has(child)) continue
          const stat = yield* procfs.stat(child)
          if (stat === undefined || Procfs.isDead(stat)) continue
          next.set(child, stat)
          queue.push(child)
        }
      }
      yield* Ref.set(tracked, next)
    })

    const readerFailed = (why: string) =>
      died({
        _tag: "Exited",
        pid,
        exitCode: null,
        signal: null,
        detail: `Its stdout reader failed (${why}), so no answer could arrive; it was killed`
      })

    // What the spawner reports, handled in order, a batch at a time: the stdout bytes of a batch
    // are handed on together, and before any end, so an answer written just before a crash counts.
    const readerBroken = yield* Ref.make(false)
    const handle = (batch: Chunk.Chunk<ProcessSpawner.Event>) =>
      Effect.gen(function* () {
        let output: Array<Uint8Array> = []
        const flush = Effect.gen(function* () {
          if (output.length === 0 || (yield* Ref.get(readerBroken))) return
          const chunks = Chunk.unsafeFromArray(output)
          output = []
          const exit = yield* Effect.exit(options.onStdout(chunks))
          if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) {
            yield* Ref.set(readerBroken, true)
            yield* readerFailed(describe(exit.cause))
          }
        })
        for (const event of batch) {
          if (event._tag === "Output") {
            if (event.pipe === "stdout") output.push(event.bytes)
            else stderr.append(event.bytes)
            continue
          }
          yield* flush
          if (event._tag === "Exited") {
            yield* Deferred.succeed(reaped, undefined)
            yield* died({ _tag: "Exited", pid, ...event.status })
          } else if (event.pipe === "stderr") {
            yield* Deferred.succeed(stderrDone, undefined)
            if (event.failure === undefined) yield* pipeClosed("stderr")
          } else if (event.failure === undefined) {
            yield* pipeClosed("stdout")
          } else {
            yield* readerFailed(event.failure)
          }
        }
        yield* flush
      })
    yield* fork(Effect.forever(Effect.flatMap(Queue.takeBetween(events, 1, Number.POSITIVE_INFINITY), handle)))

    if (procfs.available && options.descendantPollMillis > 0) {
      const poll: Effect.Effect<void> = Effect.flatMap(Deferred.isDone(ended), (done) =>
        done
          ? Effect.void
          : Effect.zipRight(Effect.zipRight(track, Procfs.wallSleep(options.descendantPollMillis)), poll)
      )
      yield* fork(poll)
    }

    // Added last, so it runs first on close: the readers still drain while the process stops.
    yield* Effect.addFinalizer((exit) =>
      Effect.gen(function* () {
        const mode = shutdownMode(exit)
        // Every step here is bounded, and none may be interruptible: the scope is often closed by an
        // interrupted fiber (a call cut at tool_timeout_ms mid-startup, Ctrl-C), and an interruptible
        // step would end this finalizer there, leaving the process running and the SDK's requests
        // (each with a timer that keeps Node alive) pending: the CLI then never exits.
        // Before any signal: a child that outlives the server is reparented and lost to a search by parent.
        if (options.descendantPollMillis > 0) yield* track
        yield* end({ _tag: "Stopped", reason: "the session closed" })
        const grace = options.shutdownGraceMillis
        // Only the racers are interruptible: a race must interrupt its loser.
        const exited = Effect.raceFirst(
          Effect.interruptible(Effect.as(Deferred.await(reaped), true)),
          Effect.interruptible(Effect.as(Procfs.wallSleep(grace), false))
        )
        // Per the MCP spec: close stdin, wait, SIGTERM, wait, SIGKILL.
        yield* Queue.shutdown(options.stdin)
        if (mode === "immediate") {
          yield* signalAll("SIGKILL")
          yield* exited
        } else if (!(yield* exited)) {
          yield* signalAll("SIGTERM")
          if (!(yield* exited)) {
            yield* signalAll("SIGKILL")
            yield* exited
          }
        }
        // Whatever is left (a grandchild that ignored SIGTERM, a daemon that left the group).
        yield* signalAll("SIGKILL")
        // SIGKILLed processes still need CPU to exit; on a loaded machine that takes a while.
        yield* awaitGone(Math.max(grace, 5_000))
      })
    )

    // Bounded on the wall clock: "the scope is closed" should mean "the processes are gone".
    const awaitGone = (maxMillis: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const deadline = Date.now() + maxMillis
        const loop: Effect.Effect<void> = Effect.gen(function* () {
          const server = yield* procfs.stat(pid)
          const serverGone = server === undefined || Procfs.isDead(server)
          const rest = yield* Effect.filter([...(yield* Ref.get(tracked)).values()], alive)
          if ((serverGone && rest.length === 0) || Date.now() >= deadline) return
          yield* Procfs.wallSleep(5)
          yield* loop
        })
        return procfs.available ? loop : Effect.void
      })

    const watchGroup = Effect.gen(function* () {
      if (!procfs.available) return
      yield* track
      const launched = [...(yield* Ref.get(tracked)).values()].filter((stat) => stat.pgrp === pid)
      if (launched.length === 0) return
      // Files kept open: each check is one read, not an open, a read and a close.
      const readers = yield* Effect.forEach(launched, (member) =>
        Effect.map(Scope.extend(procfs.statReader(member.pid), scope), (read) => ({ member, read }))
      )
      const gone = (member: Procfs.ProcStat, now: Procfs.ProcStat | undefined) =>
        now === undefined || now.startTime !== member.startTime || Procfs.isDead(now)
      const poll: Effect.Effect<void> = Effect.gen(function* () {
        if (yield* Deferred.isDone(ended)) return
        for (const { member, read } of readers) {
          if (gone(member, yield* read)) {
            return yield* died({
              _tag: "Exited",
              pid: member.pid,
              exitCode: null,
              signal: null,
              detail: `Process ${member.pid} (${member.command}) of its process group exited while its launcher (pid ${pid}) kept running; the group was killed`
            })
          }
        }
        yield* Procfs.wallSleep(options.groupPollMillis)
        yield* poll
      })
      yield* fork(poll)
    })

    return {
      pid,
      ended,
      stderrTail: () => stderr.text(),
      watchGroup,
      descendants: Effect.map(Ref.get(tracked), (map) => [...map.keys()]),
      stop: (reason) => Effect.asVoid(end({ _tag: "Stopped", reason }))
    }
  })

const commandLine = (command: Command.Command): string =>
  Command.flatten(command)
    .map((standard) => [standard.command, ...standard.args].join(" "))
    .join(" | ")

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
