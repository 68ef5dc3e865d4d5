/**
 * The light workflow engine: effect/workflow's `WorkflowEngine` for one
 * process, journaled in SQL over any `SqlClient` (the embedded SQLite file,
 * Postgres). It keeps the whole `Workflow` / `Activity` / `DurableClock` API,
 * so the same `AgentRun` workflow runs on it or on effect/cluster's engine;
 * it costs one INSERT per completed activity where the cluster engine's
 * message round trip costs three write transactions and a storage scan.
 *
 * - An activity's exit is journaled by (execution, name, attempt) when it
 *   completes; a replay answers it from the journal and does not run it. An
 *   activity in flight at a crash (no journaled exit) runs again. `AgentRun`'s
 *   steps (the start, each model attempt, tool call and wake-up, the end) are
 *   journaled by the engine directly, in the same rows, without an `Activity`
 *   per step: no exit schema, fiber, scope or span of their own.
 * - A `DurableClock` deadline is journaled as a wall-clock time (whole
 *   milliseconds), and the first deadline wins: a wait a restart interrupted
 *   ends at the same instant.
 * - When a workflow is registered, every execution of it that had not ended
 *   resumes, replaying its journal; when the registration's scope closes,
 *   the workflow is unregistered and its bodies interrupted as by a shutdown.
 * - A second caller of an execution that runs in the process joins it. Only
 *   the executions whose body runs, and their journals, are held in memory.
 * - A run its caller stopped (interrupted while the engine lives) is left
 *   ended (`stopped`): executing it again does not run it, and its result is
 *   an interruption; one the engine's shutdown interrupted is a crash,
 *   resumed on the next start.
 *
 * One process only: two engines on one journal would both run its workflows
 * (`Engine.layerSqlite` holds an exclusive lock on the file, `Engine.layerSql`
 * an advisory lock on Postgres). Child workflows
 * and compensation finalizers are not journaled (`AgentRun` uses neither).
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as internal from "./internal/sqlEngine.js"

/**
 * The journal cannot be read or written: its database failed, or a row does
 * not decode (a garbage payload, activity result or deadline), or an
 * activity's own store failed (an activity that dies with this error is not
 * journaled: it runs again when the run resumes). Building the
 * engine fails with it; inside a run it is a defect (the engine interface has
 * no error channel), which `DurableSessions` turns back into this error. A
 * run that met it is not recorded as ended: it resumes once the journal works.
 *
 * @since 0.2.0
 * @category errors
 */
export const JournalError = internal.JournalError

/**
 * @since 0.2.0
 * @category errors
 */
export type JournalError = internal.JournalError

/**
 * One write to the journal: a new execution, an activity's result, a
 * clock's deadline, a deferred's result, or a run's status (suspended,
 * complete).
 *
 * @since 0.2.0
 * @category models
 */
export type Write = internal.Write

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * Runs before every journal write, in the fiber that writes. For counting
   * writes and for fault injection: a test stops the engine at the Nth write
   * to crash a run at every journal step.
   */
  readonly beforeWrite?: ((write: Write) => Effect.Effect<void>) | undefined
}

/**
 * Creates the engine's tables (`workflow_executions`, `workflow_activities`,
 * `workflow_deferreds`, `workflow_clocks`) if they do not exist. `make` runs
 * it; exported for setting up a database beforehand.
 *
 * @since 0.2.0
 * @category migrations
 */
export const migrate: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = internal.migrate

/**
 * Deletes every journal row of the given executions.
 *
 * @since 0.2.0
 * @category journal
 */
export const purge: (ids: ReadonlyArray<string>) => Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =
  internal.purge

/**
 * The engine over the `SqlClient` in context, for the life of the scope
 * (its tables created).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<WorkflowEngine.WorkflowEngine["Service"], JournalError, SqlClient.SqlClient | Scope.Scope> =>
  internal.make(options)

/**
 * The engine as a Layer over the `SqlClient` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<WorkflowEngine.WorkflowEngine, JournalError, SqlClient.SqlClient> =>
  Layer.effect(WorkflowEngine.WorkflowEngine, make(options))
