/**
 * The processes of one plugin, as Linux's /proc shows them: the one spawned
 * (the root: its pid is its process group's and its session's id), what it
 * started, and which of them read its requests.
 *
 * What it started is found three ways, because each misses something: by
 * parent pid while the plugin lives (`track`: a child of a descendant that
 * left the group), and, as it is stopped, by a scan of /proc (`sweep`) for
 * every process started since the root that is in its session or its group,
 * or that holds one of its stdio pipes (a helper that double-forked into a
 * session of its own, whose parent is gone, still holds what it inherited).
 * Without /proc (macOS, Windows) only the group is known.
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Procfs from "./procfs.js"

/** @internal */
export interface ProcessTree {
  readonly root: number
  /** Records the root's live descendants now, by parent pid, so that one orphaned later is still known. */
  readonly track: Effect.Effect<void>
  /** Adds every live process the root started, found by a scan of /proc: its session, its group, its pipes. */
  readonly sweep: Effect.Effect<void>
  /** The processes known besides the root. */
  readonly descendants: Effect.Effect<ReadonlyArray<number>>
  /**
   * The processes known besides the root that read its requests (they hold
   * its stdin): the server under a launcher. A helper the server or its
   * launcher started in the background (stdin from /dev/null) is none.
   */
  readonly readers: Effect.Effect<ReadonlyArray<Procfs.ProcStat>>
  /** Signals the root's group and every live process known. */
  readonly signal: (name: NodeJS.Signals) => Effect.Effect<void>
  /** Whether the root and every process known are gone. */
  readonly gone: Effect.Effect<boolean>
}

// Node gives a child's stdio as socket pairs, other runtimes as pipes; a terminal or a file names no one plugin.
const isChannel = (link: string | undefined): link is string =>
  link !== undefined && (link.startsWith("pipe:[") || link.startsWith("socket:["))

/** The same process as a stat read earlier, still running: a pid alone may have been reused. */
const isAlive = (procfs: Procfs.Procfs, known: Procfs.ProcStat): Effect.Effect<boolean> =>
  Effect.map(procfs.stat(known.pid), (now) => now !== undefined && isSame(known, now) && !Procfs.isDead(now))

const isSame = (known: Procfs.ProcStat, now: Procfs.ProcStat): boolean => now.startTime === known.startTime

/** Whether a process, by its stat and its descriptors, was started by the root. @internal */
export const startedBy = (
  root: Procfs.ProcStat,
  pipes: ReadonlySet<string>,
  candidate: Procfs.ProcStat,
  fds: ReadonlyArray<string>
): boolean =>
  candidate.pid !== root.pid &&
  candidate.startTime >= root.startTime &&
  (candidate.session === root.pid || candidate.pgrp === root.pid || fds.some((fd) => pipes.has(fd)))

/**
 * The tree of a root just spawned. Its stdio pipes are read now, while it
 * holds them.
 * @internal
 */
export const make = (procfs: Procfs.Procfs, root: number): Effect.Effect<ProcessTree> =>
  Effect.gen(function* () {
    const rootStat = yield* procfs.stat(root)
    const stdio = yield* Effect.forEach([0, 1, 2], (fd) => procfs.fd(root, fd))
    const pipes: ReadonlySet<string> = new Set(stdio.filter(isChannel))
    const stdin = isChannel(stdio[0]) ? stdio[0] : undefined
    const known = yield* Ref.make<ReadonlyMap<number, Procfs.ProcStat>>(new Map())

    const alive = Effect.flatMap(Ref.get(known), (map) =>
      Effect.filter([...map.values()], (stat) => isAlive(procfs, stat))
    )

    const track = Effect.gen(function* () {
      if (!procfs.available) return
      const next = new Map((yield* alive).map((stat) => [stat.pid, stat] as const))
      const queue = [root, ...next.keys()]
      for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
        for (const child of yield* procfs.children(parent)) {
          if (child === root || next.has(child)) continue
          const stat = yield* procfs.stat(child)
          if (stat === undefined || Procfs.isDead(stat)) continue
          next.set(child, stat)
          queue.push(child)
        }
      }
      yield* Ref.set(known, next)
    })

    const sweep = Effect.gen(function* () {
      if (rootStat === undefined) return
      const found = yield* Effect.filter(
        (yield* procfs.all).filter((stat) => stat.pid !== root && stat.startTime >= rootStat.startTime),
        (stat) =>
          Effect.map(procfs.fds(stat.pid), (fds) => !Procfs.isDead(stat) && startedBy(rootStat, pipes, stat, fds)),
        { concurrency: 4 }
      )
      yield* Ref.update(known, (map) => new Map([...map, ...found.map((stat) => [stat.pid, stat] as const)]))
    })

    const readers = Effect.gen(function* () {
      if (stdin === undefined) return []
      return yield* Effect.filter(yield* alive, (stat) => Effect.map(procfs.fd(stat.pid, 0), (link) => link === stdin))
    })

    const signal = (name: NodeJS.Signals) =>
      Effect.gen(function* () {
        Procfs.signalGroup(root, name)
        for (const stat of yield* alive) Procfs.signal(stat.pid, name)
      })

    const gone = Effect.gen(function* () {
      const now = yield* procfs.stat(root)
      if (now !== undefined && !Procfs.isDead(now)) return false
      return (yield* alive).length === 0
    })

    return {
      root,
      track,
      sweep,
      descendants: Effect.map(Ref.get(known), (map) => [...map.keys()]),
      readers,
      signal,
      gone
    }
  })
