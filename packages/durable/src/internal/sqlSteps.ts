import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { decodeStep, fail, journalFailure, journalForm } from "./sqlEngine.js"
import * as Steps from "./steps.js"

const JournaledRows = Schema.Array(Schema.Struct({ name: Schema.String, exit: Schema.String }))
const decodeRows = Schema.decodeUnknownEffect(JournaledRows)

/**
 * Steps journaled in the store's SQL for an engine that runs a workflow's
 * body itself, elsewhere (the cluster engine): a step's result is the row the
 * light engine writes for it (`workflow_activities`, attempt 1), read back by
 * its key, so a step costs a read and a write instead of the engine's message
 * round trip for an activity. The engine journals whatever a body ends with:
 * a body suspends on a journal failure (`journalsFailures`).
 *
 * A body reads its execution's journaled steps once, when its first step
 * runs, and keeps them for its life (keyed by its `WorkflowInstance`: a body
 * the engine starts again, here or on another runner, reads them anew).
 *
 * A row is written only for an execution the engine still holds (its
 * workflow entity's messages, `cluster_messages`): a body of a purged
 * execution (its session deleted while it ran) leaves none behind.
 *
 * @internal
 */
export const make = (sql: SqlClient.SqlClient): Steps.Service => {
  // The steps each body has journaled or read, by its instance: gone with the body.
  const journals = new WeakMap<object, Map<string, string>>()
  const journalOf = (executionId: string) =>
    Effect.flatMap(Effect.serviceOption(WorkflowEngine.WorkflowInstance), (instance) => {
      const key = Option.getOrElse(instance, () => ({}))
      const kept = journals.get(key)
      if (kept !== undefined) return Effect.succeed(kept)
      return sql`SELECT name, exit FROM workflow_activities WHERE execution_id = ${executionId} AND attempt = ${1}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => {
          const journal = new Map(rows.map((row) => [row.name, row.exit]))
          journals.set(key, journal)
          return journal
        }),
        Effect.catch(fail("cannot read the journal", executionId))
      )
    })
  return {
    journalsFailures: true,
    run: <S extends Steps.Pure>(
      executionId: string,
      name: string,
      codec: Steps.Codec<S>,
      execute: Effect.Effect<S["Type"]>
    ) =>
      Effect.gen(function* () {
        const journal = yield* journalOf(executionId)
        const journaled = journal.get(name)
        if (journaled !== undefined) {
          const exit = decodeStep(journaled, codec)
          return Result.isFailure(exit)
            ? yield* fail(`the journaled activity "${name}/1" does not decode`, executionId)(exit.failure)
            : yield* exit.success
        }
        const exit = yield* Steps.attempt(name, execute)
        // The step's store failed: that is no result of it, so nothing is journaled.
        const failure = journalFailure(exit)
        if (Option.isSome(failure)) return yield* Effect.die(failure.value)
        const [result, encoded] = journalForm(name, exit, codec)
        yield* sql`INSERT INTO workflow_activities (execution_id, name, attempt, exit)
          SELECT ${executionId}, ${name}, ${1}, ${encoded}
          WHERE EXISTS (SELECT 1 FROM cluster_messages WHERE entity_id = ${executionId})
          ON CONFLICT DO NOTHING`.pipe(Effect.catch(fail(`cannot journal the activity "${name}/1"`, executionId)))
        journal.set(name, encoded)
        return yield* result
      })
  }
}
