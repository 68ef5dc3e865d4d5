/**
 * `agent sessions PATH`: the sessions of a durable store (see `agent --session`), one a line:
 * id, the last run's status (`interrupted (resumable)` for a run whose process stopped before
 * it ended, which `--resume` finishes), runs, the session retry budget used, and messages in
 * its history. With `--resume`, `agent` says which run it resumes (`resumeNotice`) and, once it
 * goes on, from where (`resumedAt`).
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import type { KernelEvent } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
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
}

/**
 * A session's status as shown, and whether `--resume` has a run to finish. The store says
 * `running` for a run begun and not ended; the listing holds the store, so no process is
 * running it: its process stopped (a kill, a crash) and it is interrupted, resumable.
 */
export const shown = (session: Listed): { readonly status: string; readonly resumable: boolean } =>
  session.status === "running"
    ? { status: "interrupted", resumable: true }
    : { status: session.status, resumable: false }

/** The line `--resume` (or a new prompt, which finishes it first) prints before it resumes a run. */
export const resumeNotice = (session: Listed): string =>
  `agent: resuming run ${session.runs} of ${session.id}, begun ${new Date(session.updated_at).toISOString()}; what its journal holds is not run again`

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
    const listed = yield* DurableSessions.summaries.pipe(Effect.provide(Engine.layerSqliteStore(store)))
    const out = Render.stdout
    if (json) {
      for (const session of listed) out.write(`${JSON.stringify({ ...session, ...shown(session) })}\n`)
      return
    }
    if (listed.length === 0) {
      out.write(`no sessions in ${store}\n`)
      return
    }
    out.write("id\tstatus\truns\tretries_used\tmessages\tupdated_at\n")
    for (const s of listed) {
      const { status, resumable } = shown(s)
      out.write(
        `${s.id}\t${resumable ? `${status} (resumable)` : status}\t${s.runs}\t${s.retries_used}\t${s.messages}\t${new Date(s.updated_at).toISOString()}\n`
      )
    }
  }).pipe(
    Effect.catchTag("StoreError", (error) =>
      Effect.fail(error.locked ? new UsageError({ message: error.message }) : error)
    )
  )
).pipe(Command.withDescription("List the sessions of a durable store: status, runs, retry budget used"))
