/**
 * What Linux's /proc says about processes, read through the `FileSystem` in
 * context, and the signals we send them. Without /proc (macOS, Windows)
 * every reader answers "nothing known" and only the spawned process's own
 * exit is watched.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import type * as Scope from "effect/Scope"
import type * as ProcessSpawner from "../ProcessSpawner.js"

/** @internal */
export interface ProcStat {
  readonly pid: number
  readonly command: string
  readonly state: string
  readonly ppid: number
  readonly pgrp: number
  readonly session: number
  /** Clock ticks after boot when it started: with the pid, names one process even after the pid is reused. */
  readonly startTime: number
  /** The wait status (waitpid format) of a zombie; field 52 of /proc/<pid>/stat, Linux 3.5+. */
  readonly waitStatus: number | undefined
}

/**
 * Parses /proc/<pid>/stat. The command is in parentheses and may itself
 * contain spaces and parentheses, so fields are counted from the last ")".
 * @internal
 */
export const parseStat = (pid: number, text: string): ProcStat | undefined => {
  const open = text.indexOf("(")
  const close = text.lastIndexOf(")")
  if (open < 0 || close < open) return undefined
  const fields = text.slice(close + 2).split(" ")
  const ppid = Number(fields[1])
  const pgrp = Number(fields[2])
  const session = Number(fields[3])
  const startTime = Number(fields[19])
  if (fields[0] === undefined || ![ppid, pgrp, session, startTime].every(Number.isInteger)) return undefined
  const waitStatus = fields.length >= 50 ? Number(fields[49]) : Number.NaN
  return {
    pid,
    command: text.slice(open + 1, close),
    state: fields[0],
    ppid,
    pgrp,
    session,
    startTime,
    waitStatus: Number.isInteger(waitStatus) ? waitStatus : undefined
  }
}

/** A zombie or a dead task has exited; only its parent's wait is missing. @internal */
export const isDead = (stat: ProcStat): boolean => stat.state === "Z" || stat.state === "X"

// Linux numbering (x86, ARM and most others): /proc, and so this module, is Linux only.
const signalNames: ReadonlyArray<string> = [
  "",
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGILL",
  "SIGTRAP",
  "SIGABRT",
  "SIGBUS",
  "SIGFPE",
  "SIGKILL",
  "SIGUSR1",
  "SIGSEGV",
  "SIGUSR2",
  "SIGPIPE",
  "SIGALRM",
  "SIGTERM",
  "SIGSTKFLT",
  "SIGCHLD",
  "SIGCONT",
  "SIGSTOP",
  "SIGTSTP",
  "SIGTTIN",
  "SIGTTOU",
  "SIGURG",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGVTALRM",
  "SIGPROF",
  "SIGWINCH",
  "SIGIO",
  "SIGPWR",
  "SIGSYS"
]

/** A waitpid(2) status as an exit code or a signal name. @internal */
export const decodeWaitStatus = (status: number): ProcessSpawner.ExitStatus => {
  const signal = status & 0x7f
  return signal === 0
    ? { exitCode: (status >> 8) & 0xff, signal: null }
    : { exitCode: null, signal: signalNames[signal] ?? `signal ${signal}` }
}

/**
 * A stat (`undefined` when it could not be read) as what a spawner reports:
 * unreadable is reaped where /proc exists, and unknown where it does not.
 * @internal
 */
export const statusOf = (procAvailable: boolean, stat: ProcStat | undefined): ProcessSpawner.Status => {
  if (stat === undefined) return procAvailable ? { _tag: "Reaped" } : { _tag: "Unknown" }
  if (isDead(stat) && stat.waitStatus !== undefined) return { _tag: "Zombie", ...decodeWaitStatus(stat.waitStatus) }
  return { _tag: "Running" }
}

/** The /proc reader of one FileSystem. @internal */
export interface Procfs {
  /** Whether /proc can be read at all. */
  readonly available: boolean
  readonly stat: (pid: number) => Effect.Effect<ProcStat | undefined>
  /**
   * The name of the program a process runs: the last part of its argv[0]
   * (the `comm` of /proc/<pid>/stat is its main thread's name, which a
   * runtime may rename: Node 24 calls it "MainThread").
   */
  readonly programName: (known: ProcStat) => Effect.Effect<string>
  /** Direct children of a process (every thread's), oldest first. */
  readonly children: (pid: number) => Effect.Effect<ReadonlyArray<number>>
  /**
   * A reader of one process's stat that keeps the file open for the scope:
   * each read is then a single read from the start of the file, not the
   * open, stat, read, read, close of reading it afresh, which matters when
   * the question is "has it died yet?". Reads `undefined` once it is reaped.
   */
  readonly statReader: (pid: number) => Effect.Effect<Effect.Effect<ProcStat | undefined>, never, Scope.Scope>
  /** What one of its file descriptors is (`pipe:[1234]`, a path…), if it can be read. */
  readonly fd: (pid: number, fd: number) => Effect.Effect<string | undefined>
  /** What each of its file descriptors is, those that can be read. */
  readonly fds: (pid: number) => Effect.Effect<ReadonlyArray<string>>
  /** Every process now, those whose stat can be read. */
  readonly all: Effect.Effect<ReadonlyArray<ProcStat>>
}

const decoder = new TextDecoder()

const pidsIn = (text: string): Array<number> =>
  text
    .split(/\s+/)
    .filter((word) => word !== "")
    .map(Number)
    .filter(Number.isInteger)

// One reader a FileSystem: what /proc offers does not change while the process runs.
const readers = new WeakMap<FileSystem.FileSystem, Procfs>()

/** The /proc reader of the `FileSystem` in context, made once for it. @internal */
export const make: Effect.Effect<Procfs, never, FileSystem.FileSystem> = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const known = readers.get(fs)
  if (known !== undefined) return known
  const made = yield* makeFor(fs)
  readers.set(fs, made)
  return made
})

const makeFor = (fs: FileSystem.FileSystem): Effect.Effect<Procfs> =>
  Effect.gen(function* () {
    const available = yield* Effect.orElseSucceed(fs.exists("/proc/self/stat"), () => false)
    const stat = (pid: number): Effect.Effect<ProcStat | undefined> =>
      available
        ? fs.readFileString(`/proc/${pid}/stat`).pipe(
            Effect.map((text) => parseStat(pid, text)),
            Effect.orElseSucceed(() => undefined)
          )
        : Effect.succeed(undefined)
    const all: Effect.Effect<ReadonlyArray<ProcStat>> = !available
      ? Effect.succeed([])
      : fs.readDirectory("/proc").pipe(
          Effect.flatMap((entries) =>
            Effect.forEach(
              entries.filter((entry) => /^\d+$/.test(entry)),
              (entry) => stat(Number(entry)),
              { concurrency: 8 }
            )
          ),
          Effect.map((stats) => stats.filter((s) => s !== undefined)),
          Effect.orElseSucceed(() => [])
        )
    // Every process's parent, the slow way: for kernels built without /proc/<pid>/task/<tid>/children.
    const childrenByScan = (pid: number) =>
      Effect.map(all, (stats) => stats.flatMap((s) => (s.ppid === pid ? [s.pid] : [])))
    const hasChildrenFiles =
      available && (yield* Effect.orElseSucceed(fs.exists(`/proc/self/task/${process.pid}/children`), () => false))
    const childrenOfTasks = (pid: number) =>
      fs.readDirectory(`/proc/${pid}/task`).pipe(
        Effect.flatMap((tasks) =>
          Effect.forEach(
            tasks,
            // A thread may end between the listing and the read.
            (task) => Effect.orElseSucceed(fs.readFileString(`/proc/${pid}/task/${task}/children`), () => ""),
            { concurrency: 4 }
          )
        ),
        Effect.map((lists) => [...new Set(lists.flatMap(pidsIn))]),
        Effect.orElseSucceed(() => [])
      )
    const children = (pid: number): Effect.Effect<ReadonlyArray<number>> =>
      !available ? Effect.succeed([]) : hasChildrenFiles ? childrenOfTasks(pid) : childrenByScan(pid)
    const statReader = (pid: number) =>
      fs.open(`/proc/${pid}/stat`, { flag: "r" }).pipe(
        Effect.map((file) => {
          const buffer = new Uint8Array(4096)
          return file.read(buffer, { position: 0n }).pipe(
            Effect.map((size) => parseStat(pid, decoder.decode(buffer.subarray(0, size)))),
            Effect.orElseSucceed(() => undefined)
          )
        }),
        // Without /proc, or already gone: every read says so.
        Effect.orElseSucceed(() => stat(pid))
      )
    const programName = (known: ProcStat): Effect.Effect<string> =>
      fs.readFileString(`/proc/${known.pid}/cmdline`).pipe(
        Effect.map((cmdline) => {
          const program = cmdline.split("\0", 1)[0] ?? ""
          const name = program.slice(program.lastIndexOf("/") + 1)
          return name === "" ? known.command : name
        }),
        Effect.orElseSucceed(() => known.command)
      )
    const fd = (pid: number, descriptor: number): Effect.Effect<string | undefined> =>
      fs.readLink(`/proc/${pid}/fd/${descriptor}`).pipe(Effect.orElseSucceed(() => undefined))
    const fds = (pid: number): Effect.Effect<ReadonlyArray<string>> =>
      fs.readDirectory(`/proc/${pid}/fd`).pipe(
        Effect.flatMap((entries) => Effect.forEach(entries, (entry) => fd(pid, Number(entry)), { concurrency: 4 })),
        Effect.map((links) => links.filter((link) => link !== undefined)),
        Effect.orElseSucceed(() => [])
      )
    return { available, stat, programName, children, statReader, fd, fds, all }
  })

/** Signals a process; one that is gone already is fine. @internal */
export const signal = (pid: number, name: NodeJS.Signals): void => {
  try {
    process.kill(pid, name)
  } catch {
    // ESRCH: it is gone.
  }
}

/** Signals a whole process group; a group that is gone already is fine. @internal */
export const signalGroup = (pgid: number, name: NodeJS.Signals): void => signal(-pgid, name)

// The runtime's own clock, whatever clock the fiber has: a TestClock never advances a process's death.
const wallClock: Clock.Clock = Clock.Clock.defaultValue()

/**
 * Runs an effect on the wall clock. Process reaping follows wall time, not
 * the fiber's Clock: under a TestClock a grace period on that Clock would
 * never end and cleanup would hang.
 * @internal
 */
export const onWallClock = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, Clock.Clock, wallClock)
