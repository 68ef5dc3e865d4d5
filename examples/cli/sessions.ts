/**
 * `agent sessions PATH`: the sessions of a durable store (see `agent --session`), one a line:
 * id, the last run's status (`running` or `interrupted` for a run to finish with --resume),
 * runs, the session retry budget used, and messages in its history.
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Render from "./render.js"
import { UsageError } from "./usage.js"

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
      for (const session of listed) out.write(`${JSON.stringify(session)}\n`)
      return
    }
    if (listed.length === 0) {
      out.write(`no sessions in ${store}\n`)
      return
    }
    out.write("id\tstatus\truns\tretries_used\tmessages\tupdated_at\n")
    for (const s of listed) {
      out.write(
        `${s.id}\t${s.status}\t${s.runs}\t${s.retries_used}\t${s.messages}\t${new Date(s.updated_at).toISOString()}\n`
      )
    }
  }).pipe(
    Effect.catchTag("StoreError", (error) =>
      Effect.fail(error.locked ? new UsageError({ message: error.message }) : error)
    )
  )
).pipe(Command.withDescription("List the sessions of a durable store: status, runs, retry budget used"))
