/**
 * `agent sessions PATH`: the sessions of a durable store (see `agent --session`), one a line:
 * id, the last run's status (`running` while a live process runs it, `interrupted (resumable)`
 * for a run whose process stopped before it ended, which `--resume` finishes, `paused (REASON
 * since TIME)` for a run paused instead of ending, which `--resume` continues), runs, the session
 * retry budget used (an unfinished run's retries included), and messages in its history. The
 * store is read beside the process that may own it, never locked and never created. With
 * `--resume`, `agent` says which run it resumes (`resumeNotice`) and, once it goes on, from where
 * (`resumedAt`). Every command that opens a store reports its failures through `storeFailure`.
 */
import type { Engine } from "@agent-kernel/durable"
import type { KernelEvent } from "@agent-kernel/kernel"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Render from "./render.js"
import { UsageError } from "./usage.js"

/** A session as `agent sessions` lists it (`DurableSessions.Summary`). */
export interface Listed {
  readonly id: string
  readonly status: string
  readonly runs: number
  readonly retries_used: number
  readonly messages: number
  readonly updated_at: number
  /** A run begun and not ended (the store's status is then `running`). */
  readonly unfinished: boolean
  /** That run, with no live process holding it: its process stopped (a kill, a crash). Never a paused run. */
  readonly resumable: boolean
  /** That run, paused instead of ending (`on_exhausted: pause`): why, since when, when it resumes. */
  readonly paused: Paused | null
}

/** A paused run as `agent sessions` shows it (`DurableSessions.Paused`). */
export interface Paused {
  readonly reason: string
  readonly paused_at: number
  readonly resume_at: number | null
}

/** Why and since when a run is paused, and when it resumes by itself, in one phrase. */
export const pausedWhy = (paused: Paused): string =>
  `${paused.reason} since ${new Date(paused.paused_at).toISOString()}${
    paused.resume_at === null ? "" : `, resumes at ${new Date(paused.resume_at).toISOString()}`
  }`

/** The line a new input prints when the store's run is paused: the input waits, `--resume` continues the run. */
export const pausedNotice = (session: Listed, paused: Paused): string =>
  `agent: run ${session.runs} of ${session.id} is paused (${pausedWhy(paused)}): \`--resume\` continues it (\`--reset-budget\` starts its retry budget again); the new input was not run`

/**
 * A session's status as shown: a paused run is `paused`, an unfinished run no process holds is
 * `interrupted` (`resumable`, as `DurableSessions.Summary` says: a paused run is not), one a live
 * process holds is `running`. `--resume` continues either of the first two.
 */
export const shownStatus = (session: Listed): string =>
  session.paused !== null ? "paused" : session.resumable ? "interrupted" : session.status

/** Why a run to `--resume` is unfinished, as its row shows it; `undefined` for no such run. */
const shownWhy = (session: Listed): string | undefined =>
  session.paused !== null ? pausedWhy(session.paused) : session.resumable ? "resumable" : undefined

/**
 * The reasons a store fails for its path: the path is wrong (nothing there, not a session store,
 * a directory SQLite cannot write its log in) or taken (another process owns the store). They are
 * bad usage (exit 2); a store that is there and ours but fails (corrupt, read-only, disk full, an
 * I/O error, a row that does not decode) ends the command with its one-line reason (exit 1).
 */
export const pathReasons: ReadonlySet<Engine.StoreError["reason"]> = new Set([
  "locked",
  "missing",
  "foreign",
  "not-writable"
])

/** The first bytes of every SQLite database. */
const sqliteHeader = new TextEncoder().encode("SQLite format 3\0")

/** Whether the file `store` does not begin as a SQLite database does: a text file, an image, not a store. */
const notSqlite = (store: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const file = yield* fs.open(store, { flag: "r" })
      const head = Option.getOrElse(yield* file.readAlloc(sqliteHeader.length), () => new Uint8Array())
      return head.length > 0 && sqliteHeader.some((byte, i) => head[i] !== byte)
    })
  ).pipe(Effect.orElseSucceed(() => false))

/**
 * How a command that opens the store `store` (`agent --session`, `--resume`, `agent sessions`)
 * reports its failure: a failure of the path is bad usage, anything else the store's own one-line
 * error. SQLite calls a file that is no database at all damaged; it is not a store, so its path
 * is wrong.
 */
export const storeFailure =
  (store: string) =>
  (error: Engine.StoreError): Effect.Effect<never, UsageError | Engine.StoreError, FileSystem.FileSystem> =>
    Effect.gen(function* () {
      if (pathReasons.has(error.reason)) return yield* new UsageError({ message: error.message })
      if (error.reason === "corrupt" && (yield* notSqlite(store))) {
        return yield* new UsageError({
          message: `${store} is not an agent-kernel session store (it is no SQLite database): it is left as it is`
        })
      }
      return yield* error
    })

/** The line `--resume` (or a new prompt, which finishes it first) prints before it resumes a run. */
export const resumeNotice = (session: Listed): string =>
  session.paused === null
    ? `agent: resuming run ${session.runs} of ${session.id}, begun ${new Date(session.updated_at).toISOString()}; what its journal holds is not run again`
    : `agent: resuming run ${session.runs} of ${session.id}, paused (${pausedWhy(session.paused)}); what its journal holds is not run again`

/** Where a resumed run goes on, read from its first event after the replay of its journal. */
export const resumedAt = (event: KernelEvent.KernelEvent): string | undefined => {
  switch (event.type) {
    case "run_started":
      return "its start"
    case "turn_started":
      return `the start of turn ${event.turn}`
    case "model_request":
      return `turn ${event.turn}, attempt ${event.attempt} of its model call`
    case "tool_call_started":
      return `turn ${event.turn}, its call to ${event.name}`
    case "run_ended":
      return "its end: every step was in its journal"
    default:
      return "turn" in event ? `turn ${event.turn}` : undefined
  }
}

const args = {
  store: Argument.String("PATH").pipe(Argument.withDescription("The session store (agent --session PATH)"))
}
const options = {
  json: Flag.Boolean("json").pipe(Flag.withDescription("One JSON object a session"), Flag.withDefault(false))
}

export const sessions = Command.make("sessions", { ...args, ...options }, ({ store, json }) =>
  Effect.gen(function* () {
    const { DurableSessions, Engine } = yield* Effect.promise(() => import("./durable.js"))
    // Read beside the owner, if a process owns the store: a run it is running lists as running.
    const listed = yield* DurableSessions.summaries.pipe(Effect.provide(Engine.layerSqliteReader(store)))
    const out = Render.stdout
    if (json) {
      for (const session of listed) out.write(`${JSON.stringify({ ...session, status: shownStatus(session) })}\n`)
      return
    }
    if (listed.length === 0) {
      out.write(`no sessions in ${store}\n`)
      return
    }
    out.write("id\tstatus\truns\tretries_used\tmessages\tupdated_at\n")
    for (const s of listed) {
      const status = shownStatus(s)
      const why = shownWhy(s)
      out.write(
        `${s.id}\t${why === undefined ? status : `${status} (${why})`}\t${s.runs}\t${s.retries_used}\t${s.messages}\t${new Date(s.updated_at).toISOString()}\n`
      )
    }
  }).pipe(Effect.catchTag("StoreError", storeFailure(store)))
).pipe(Command.withDescription("List the sessions of a durable store: status, runs, retry budget used"))
