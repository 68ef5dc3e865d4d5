import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"

/** @internal */
export interface ProcStat {
  readonly pid: number
  readonly command: string
  readonly state: string
  readonly pgrp: number
  /** The wait status (waitpid format) of a zombie; field 52 of /proc/<pid>/stat, Linux 3.5+. */
  readonly waitStatus: number | undefined
}

/** Whether /proc can be read (Linux). Without it only the leader's exit is watched. @internal */
export const hasProc: boolean = (() => {
  try {
    Fs.accessSync("/proc/self/stat", Fs.constants.R_OK)
    return true
  } catch {
    return false
  }
})()

/** @internal */
export const readStat = (pid: number): ProcStat | undefined => {
  let text: string
  try {
    text = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const open = text.indexOf("(")
  const close = text.lastIndexOf(")")
  if (open < 0 || close < open) return undefined
  const fields = text.slice(close + 2).split(" ")
  const pgrp = Number(fields[2])
  if (fields[0] === undefined || !Number.isFinite(pgrp)) return undefined
  const waitStatus = fields.length >= 50 ? Number(fields[49]) : Number.NaN
  return {
    pid,
    command: text.slice(open + 1, close),
    state: fields[0],
    pgrp,
    waitStatus: Number.isInteger(waitStatus) ? waitStatus : undefined
  }
}

const signalNames = new Map(Object.entries(Os.constants.signals).map(([name, number]) => [number, name] as const))

/**
 * The exit of a child that has died but is not reaped yet, read from /proc.
 * Node reaps on SIGCHLD, and its `exit` event can trail the pipes closing by
 * milliseconds on a busy loop; a zombie already knows how it ended.
 * @internal
 */
export const zombieExit = (
  pid: number
): { readonly exitCode: number | null; readonly signal: string | null } | undefined => {
  const stat = hasProc ? readStat(pid) : undefined
  if (stat === undefined || stat.state !== "Z" || stat.waitStatus === undefined) return undefined
  return decodeWaitStatus(stat.waitStatus)
}

/** A waitpid(2) status as an exit code or a signal name. @internal */
export const decodeWaitStatus = (
  status: number
): { readonly exitCode: number | null; readonly signal: string | null } => {
  const signal = status & 0x7f
  return signal === 0
    ? { exitCode: (status >> 8) & 0xff, signal: null }
    : { exitCode: null, signal: signalNames.get(signal) ?? `signal ${signal}` }
}

/**
 * Whether a process exists and is not a zombie. A zombie is dead: in a
 * container whose init does not reap, killed grandchildren linger as zombies.
 * @internal
 */
export const isAlive = (pid: number): boolean => {
  if (hasProc) {
    const stat = readStat(pid)
    return stat !== undefined && stat.state !== "Z" && stat.state !== "X"
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

/** The live members of a process group, read from /proc (empty without it). @internal */
export const groupMembers = (pgid: number): ReadonlyArray<ProcStat> => {
  if (!hasProc) return []
  let entries: Array<string>
  try {
    entries = Fs.readdirSync("/proc")
  } catch {
    return []
  }
  const members: Array<ProcStat> = []
  for (const entry of entries) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const stat = readStat(pid)
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") members.push(stat)
  }
  return members
}

/** Signals a whole process group; a group that is already gone is fine. @internal */
export const killGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: nobody left in the group.
  }
}

/**
 * Waits (wall clock, bounded) until no live process is left in the group: a
 * SIGKILL is delivered asynchronously, and "the scope is closed" should mean
 * "the processes are gone".
 * @internal
 */
export const awaitGroupGone = (pgid: number, maxMillis: number): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const deadline = Date.now() + maxMillis
    const loop: Effect.Effect<boolean> = Effect.suspend(() => {
      if (groupMembers(pgid).length === 0) return Effect.succeed(true)
      if (Date.now() >= deadline) return Effect.succeed(false)
      return Effect.zipRight(wallSleep(5), loop)
    })
    return hasProc ? loop : Effect.succeed(true)
  })

/**
 * Sleeps on the wall clock. Process reaping follows wall time, not Effect's
 * Clock: under a TestClock a grace period on the Clock would never end and
 * cleanup would hang.
 * @internal
 */
export const wallSleep = (millis: number): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

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
