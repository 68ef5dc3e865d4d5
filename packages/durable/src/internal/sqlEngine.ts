import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import type * as Activity from "effect/workflow/Activity"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as Steps from "./steps.js"
import { Integer, storeSql } from "./storeSql.js"

/**
 * The journal cannot be read or written: the database failed, or a row does
 * not decode (a garbage payload, exit or deadline). `reason`
 * `stop-not-recorded`: the write recording a caller's stop (Ctrl-C) failed, so
 * the run is not over for the store though its caller asked to stop it; a
 * later `resume` records the stop (see `DurableSessions`).
 *
 * @internal
 */
export class JournalError extends Schema.TaggedError<JournalError>("@agent-kernel/durable/JournalError")(
  "JournalError",
  {
    message: Schema.String,
    execution_id: Schema.optional(Schema.String),
    reason: Schema.optional(Schema.Literal("stop-not-recorded"))
  }
) {
  // The memory and cluster engines journal a defect's name and message only (`Schema.Defect`): the name
  // carries the reason through the journal, so `asJournalError` gives it back.
  override get name(): string {
    return this.reason === undefined ? "JournalError" : stopNotRecordedName
  }
}

const stopNotRecordedName = "JournalError.StopNotRecorded"

/**
 * Whether `error` is the failure to record a caller's stop (see `JournalError`).
 *
 * @internal
 */
export const isStopNotRecorded = (error: unknown): error is JournalError =>
  error instanceof JournalError && error.reason === "stop-not-recorded"

/**
 * The `JournalError` a defect is, if it is one: the error itself, or what an
 * engine that journals defects encoded (the memory and cluster engines keep a
 * defect's name and message only, `Schema.Defect`), so the journal's failure
 * is told from the run's own on every engine.
 *
 * @internal
 */
export const asJournalError = (defect: unknown): Option.Option<JournalError> =>
  defect instanceof JournalError
    ? Option.some(defect)
    : defect instanceof Error && defect.name === "JournalError"
      ? Option.some(new JournalError({ message: defect.message }))
      : defect instanceof Error && defect.name === stopNotRecordedName
        ? Option.some(new JournalError({ message: defect.message, reason: "stop-not-recorded" }))
        : Option.none()

/**
 * One write to the journal, as an engine's `beforeWrite` hook sees it.
 *
 * @internal
 */
export interface Write {
  /** `execution` (a new run), `activity` (a result), `clock` (a deadline), `deferred` (a wake-up), `status` (suspended or ended). */
  readonly kind: "execution" | "activity" | "clock" | "deferred" | "status"
  readonly executionId: string
  readonly name: string
}

/** @internal */
export interface Options {
  /** Runs before every journal write (counting, fault injection). */
  readonly beforeWrite?: ((write: Write) => Effect.Effect<void>) | undefined
}

/**
 * The light engine's tables: one row an execution, an activity result
 * (keyed by execution, name and attempt), a durable deferred's result and a
 * durable clock's wall-clock deadline. Portable SQL (SQLite, Postgres).
 *
 * @internal
 */
export const migrate: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS workflow_executions (
    execution_id TEXT PRIMARY KEY,
    workflow TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    result TEXT
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS workflow_activities (
    execution_id TEXT NOT NULL,
    name TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    exit TEXT NOT NULL,
    PRIMARY KEY (execution_id, name, attempt)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS workflow_deferreds (
    execution_id TEXT NOT NULL,
    name TEXT NOT NULL,
    exit TEXT NOT NULL,
    PRIMARY KEY (execution_id, name)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS workflow_clocks (
    execution_id TEXT NOT NULL,
    name TEXT NOT NULL,
    wake_at BIGINT NOT NULL,
    PRIMARY KEY (execution_id, name)
  )`
})

/**
 * Deletes every journal row of the executions `ids`.
 *
 * @internal
 */
export const purge = (ids: ReadonlyArray<string>): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    if (ids.length === 0) return
    const sql = yield* storeSql
    // The execution's row goes last, so a delete a crash cut short is done again.
    yield* sql`DELETE FROM workflow_activities WHERE ${sql.in("execution_id", ids)}`
    yield* sql`DELETE FROM workflow_deferreds WHERE ${sql.in("execution_id", ids)}`
    yield* sql`DELETE FROM workflow_clocks WHERE ${sql.in("execution_id", ids)}`
    yield* sql`DELETE FROM workflow_executions WHERE ${sql.in("execution_id", ids)}`
  })

/**
 * A journaled exit, in its encoded form (the values as the activity's
 * schemas encode them), as JSON text.
 */
const ExitJson = Schema.fromJsonString(Schema.toCodecJson(Schema.Exit(Schema.Unknown, Schema.Unknown, Schema.Defect())))
const encodeExitJson = Schema.encodeSync(ExitJson)
// JSON has no `undefined` (a void result): it is journaled as null, as effect/workflow's engines pass it.
const encodeExit = (exit: Exit.Exit<unknown, unknown>): string =>
  encodeExitJson(Exit.map(exit, (value) => value ?? null))
const decodeExit = Schema.decodeUnknownResult(ExitJson)

const ExecutionRow = Schema.Struct({
  workflow: Schema.String,
  payload: Schema.String,
  status: Schema.String,
  result: Schema.NullOr(Schema.String)
})
const ActivityRow = Schema.Struct({ name: Schema.String, attempt: Integer, exit: Schema.String })
const DeferredRow = Schema.Struct({ name: Schema.String, exit: Schema.String })
const ClockRow = Schema.Struct({ name: Schema.String, wake_at: Integer })
const decodeExecutions = Schema.decodeUnknownEffect(Schema.Array(ExecutionRow))
const decodeActivities = Schema.decodeUnknownEffect(Schema.Array(ActivityRow))
const decodeDeferreds = Schema.decodeUnknownEffect(Schema.Array(DeferredRow))
const decodeClocks = Schema.decodeUnknownEffect(Schema.Array(ClockRow))

/**
 * An activity made by `Activity.make`, whose exit schema (its values in
 * their JSON form) checks a journaled exit before the engine's caller
 * decodes it.
 */
const exitSchemaOf = (activity: Activity.Any): Option.Option<Codec> =>
  Predicate.hasProperty(activity, "exitSchemaPartial") && Schema.isSchema(activity.exitSchemaPartial)
    ? Option.some(codec(activity.exitSchemaPartial))
    : Option.none()

/** Whether `journaled` is an exit the activity's schemas decode: a garbage row is a JournalError, not a defect. */
const checkActivity = (activity: Activity.Any, exit: Exit.Exit<unknown, unknown>) =>
  Option.match(exitSchemaOf(activity), {
    onNone: () => Result.succeed(exit),
    onSome: (schema) =>
      Result.map(Schema.decodeUnknownResult(schema)(Exit.map(exit, (value) => value ?? null)), () => exit)
  })

/**
 * A journaled step's result: the exit journaled for it (an activity's, in
 * the same encoding), its value decoded by the step's codec. A step has no
 * typed error: a journaled failure is the defect it died with.
 */
/** @internal */
export const decodeStep = <S extends Steps.Pure>(
  journaled: string,
  codec: Steps.Codec<S>
): Result.Result<Exit.Exit<S["Type"]>, Schema.SchemaError> =>
  Result.flatMap(decodeExit(journaled), (exit) =>
    Exit.isSuccess(exit)
      ? Result.map(codec.decode(exit.value), Exit.succeed)
      : Result.succeed(Exit.die(Cause.squash(exit.cause)))
  )

/** A step's exit as journaled: as an activity's (its value encoded by the step's codec); throws a `SchemaError`. */
const encodeStep = <S extends Steps.Pure>(exit: Exit.Exit<S["Type"]>, codec: Steps.Codec<S>): string =>
  encodeExit(Exit.isSuccess(exit) ? Exit.succeed(codec.encode(exit.value)) : Exit.die(Cause.squash(exit.cause)))

/**
 * A step's exit as it is returned and journaled. A result the journal cannot
 * encode (a value JSON cannot hold: a bigint in a tool input) is the step's
 * defect, as it is on the activity path: journaled as that defect, so the
 * run ends failed and no replay performs the step again (a `JournalError`
 * would leave the run unfinished, to perform it again on every resume).
 */
/** @internal */
export const journalForm = <S extends Steps.Pure>(
  name: string,
  exit: Exit.Exit<S["Type"]>,
  codec: Steps.Codec<S>
): readonly [Exit.Exit<S["Type"]>, string] => {
  try {
    return [exit, encodeStep(exit, codec)]
  } catch (error) {
    const died = Exit.die(new Error(`cannot journal the result of the step "${name}": ${messageOf(error)}`))
    return [died, encodeExit(died)]
  }
}

/**
 * A schema of a registered workflow or activity. Their services are `unknown`
 * in `Workflow.Any` and `Activity.Any`; a workflow registered with this engine
 * (as `AgentRun`) decodes and encodes without services, so they are taken as
 * `never`.
 */
type Codec = Schema.Codec<unknown, unknown, never, never>
const codec = (schema: Schema.Top): Codec => schema as Codec

/** The JSON of a workflow's own exit and payload. */
const workflowCodecs = (workflow: Workflow.Any) => {
  const result = Schema.fromJsonString(
    Schema.toCodecJson(Schema.Exit(codec(workflow.successSchema), codec(workflow.errorSchema), Schema.Defect()))
  )
  const payload = Schema.fromJsonString(Schema.toCodecJson(codec(workflow.payloadSchema)))
  return {
    encodeResult: Schema.encodeUnknownEffect(result),
    decodeResult: Schema.decodeUnknownEffect(result),
    encodePayload: Schema.encodeUnknownEffect(payload),
    decodePayload: Schema.decodeUnknownEffect(payload)
  }
}

/** What the engine holds of an execution's journal: loaded once, then kept in step with every write. */
interface Journal {
  readonly activities: Map<string, string>
  readonly deferreds: Map<string, string>
  readonly clocks: Map<string, number>
}

const emptyJournal = (): Journal => ({ activities: new Map(), deferreds: new Map(), clocks: new Map() })

type Execute = (
  payload: object,
  executionId: string
) => Effect.Effect<unknown, unknown, WorkflowEngine.WorkflowInstance | WorkflowEngine.WorkflowEngine>

interface Registered {
  readonly workflow: Workflow.Any
  readonly codecs: ReturnType<typeof workflowCodecs>
  readonly execute: Execute
  /** The bodies of this registration: closed with the registration's scope, which interrupts them as a crash. */
  readonly bodies: Scope.Closeable
  /** Set once the registration's scope closes: a body interrupted from then on was not stopped by its caller. */
  closing: boolean
}

interface Running {
  readonly fiber: Fiber.Fiber<Workflow.Result<unknown, unknown>>
  readonly instance: WorkflowEngine.WorkflowInstance["Service"]
}

/** The journal's own failure in an exit: not the workflow's (or activity's) result, never recorded as one. */
/** @internal */
export const journalFailure = (exit: Exit.Exit<unknown, unknown>): Option.Option<JournalError> =>
  Exit.isFailure(exit)
    ? Option.firstSomeOf(exit.cause.reasons.filter(Cause.isDieReason).map((reason) => asJournalError(reason.defect)))
    : Option.none()

const messageOf = (error: unknown): string =>
  Schema.isSchemaError(error) ? error.message : error instanceof Error ? error.message : String(error)

/**
 * The journal (or a run step's store) failed at `what`: the defect a run
 * fails with, since the engine's interface has no error channel. An activity
 * that dies with it is not journaled, and a run that does is not recorded as
 * ended: it resumes once the database works.
 *
 * @internal
 */
export const fail =
  (what: string, executionId: string | undefined = undefined, reason: JournalError["reason"] = undefined) =>
  (error: unknown): Effect.Effect<never> =>
    Effect.die(
      new JournalError({
        message: `${what}: ${messageOf(error)}`,
        ...(executionId === undefined ? {} : { execution_id: executionId }),
        ...(reason === undefined ? {} : { reason })
      })
    )

/**
 * A `WorkflowEngine` for one process over the `SqlClient` in context.
 *
 * - `execute` inserts the execution (its payload Schema-encoded) and runs the
 *   body; the body's result is recorded when it completes. Executing an
 *   execution id that runs in this process joins that run.
 * - An activity's exit is journaled by (execution, name, attempt) when it
 *   completes; a replay answers it from the journal without running it.
 * - A durable clock's deadline is journaled as a wall-clock time in whole
 *   milliseconds: the first deadline wins, so a replay after a restart waits
 *   for the same instant.
 * - On registering a workflow, every execution of it that had not ended is
 *   resumed: it replays from its journal. Closing the registration's scope
 *   unregisters it and interrupts its bodies as a crash would.
 *
 * Journal failures inside a run are defects carrying a `JournalError` (the
 * engine's interface has no error channel), and so is an activity that dies
 * with one (its store failed): such an activity result is not journaled and
 * such a run is never recorded as ended, so it resumes once the journal works.
 * The engine keeps in memory only the runs in progress and their journals.
 *
 * @internal
 */
export const make = (
  options: Options = {}
): Effect.Effect<WorkflowEngine.WorkflowEngine["Service"], JournalError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const clock: Clock.Clock = yield* Clock.Clock
    yield* Effect.mapError(
      migrate,
      (error) => new JournalError({ message: `cannot create the journal's tables: ${error.message}` })
    )
    const layerScope = yield* Effect.scope
    // Bodies run in their registration's scope, forked from this one and closed after `closing` is
    // set (finalizers run in reverse): a body interrupted by the engine's shutdown is a crash
    // (resumed on the next start), one interrupted while the engine lives was stopped by its
    // caller (left ended).
    const bodiesScope = yield* Scope.fork(layerScope, "sequential")
    const clocks = yield* FiberMap.make<string>()
    let closing = false
    yield* Effect.addFinalizer(() => Effect.sync(() => (closing = true)))

    const workflows = new Map<string, Registered>()
    // The runs in progress in this process and their journals: an entry goes when its body ends.
    const running = new Map<string, Running>()
    const journals = new Map<string, Journal>()
    const resumeRequested = new Set<string>()
    // Starting a run (or finding the one in progress) is one step per process: two callers of one
    // execution id must not both start its body.
    const starting = yield* Semaphore.make(1)
    const beforeWrite = options.beforeWrite ?? (() => Effect.void)

    const write = (
      kind: Write["kind"],
      executionId: string,
      name: string,
      statement: Effect.Effect<unknown, SqlError.SqlError>
    ): Effect.Effect<void> =>
      Effect.andThen(
        beforeWrite({ kind, executionId, name }),
        Effect.catch(Effect.asVoid(statement), fail(`cannot journal the ${kind} "${name}"`, executionId))
      )

    const load = (executionId: string): Effect.Effect<Journal> =>
      Effect.gen(function* () {
        const activities = yield* decodeActivities(
          yield* sql`SELECT name, attempt, exit FROM workflow_activities WHERE execution_id = ${executionId}`
        )
        const deferreds = yield* decodeDeferreds(
          yield* sql`SELECT name, exit FROM workflow_deferreds WHERE execution_id = ${executionId}`
        )
        const clockRows = yield* decodeClocks(
          yield* sql`SELECT name, wake_at FROM workflow_clocks WHERE execution_id = ${executionId}`
        )
        const journal: Journal = {
          activities: new Map(activities.map((row) => [`${row.name}/${row.attempt}`, row.exit])),
          deferreds: new Map(deferreds.map((row) => [row.name, row.exit])),
          clocks: new Map(clockRows.map((row) => [row.name, row.wake_at]))
        }
        journals.set(executionId, journal)
        return journal
      }).pipe(Effect.catch(fail("cannot read the journal", executionId)))

    const journalOf = (executionId: string): Effect.Effect<Journal> =>
      Effect.suspend(() => {
        const journal = journals.get(executionId)
        return journal === undefined ? load(executionId) : Effect.succeed(journal)
      })

    const readExecution = (executionId: string) =>
      sql`SELECT workflow, payload, status, result FROM workflow_executions WHERE execution_id = ${executionId}`.pipe(
        Effect.flatMap(decodeExecutions),
        Effect.map((rows) => Option.fromUndefinedOr(rows[0])),
        Effect.catch(fail("cannot read the execution", executionId))
      )

    /** Records how a body generation ended. */
    const record = (entry: Registered, executionId: string, result: Workflow.Result<unknown, unknown>) => {
      if (result._tag === "Suspended")
        return write(
          "status",
          executionId,
          "suspended",
          sql`UPDATE workflow_executions SET status = 'suspended' WHERE execution_id = ${executionId}`
        )
      if (Option.isSome(journalFailure(result.exit))) return Effect.void
      return Effect.gen(function* () {
        const encoded = yield* Effect.catch(
          entry.codecs.encodeResult(result.exit),
          fail("cannot encode the workflow's result", executionId)
        )
        yield* write(
          "status",
          executionId,
          "complete",
          sql`UPDATE workflow_executions SET status = 'complete', result = ${encoded} WHERE execution_id = ${executionId}`
        )
      })
    }

    /** Starts a body generation of the execution. Called holding `starting`. */
    const start = (entry: Registered, executionId: string, payload: object): Effect.Effect<Running> =>
      Effect.suspend(() => {
        const instance = WorkflowEngine.WorkflowInstance.initial(entry.workflow, executionId)
        let current: Running | undefined
        return entry.execute(payload, executionId).pipe(
          // Stopped by its caller while the engine lives (an interruption that is no suspension, no
          // engine's interrupt and no shutdown): the run ended there, not to be resumed. Marked as the body
          // ends, before its scope's finalizers tell its caller the body is over.
          Effect.onExit((exit) =>
            Exit.isFailure(exit) &&
            Cause.hasInterruptsOnly(exit.cause) &&
            !instance.suspended &&
            !instance.interrupted &&
            !closing &&
            !entry.closing
              ? Effect.ignore(
                  sql`UPDATE workflow_executions SET status = 'stopped' WHERE execution_id = ${executionId}`
                )
              : Effect.void
          ),
          Workflow.intoResult,
          Effect.provideService(WorkflowEngine.WorkflowInstance, instance),
          Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
          Effect.provideService(Steps.Steps, Option.some(steps)),
          Effect.tap((result) => record(entry, executionId, result)),
          Effect.onExit(() =>
            Effect.suspend(() => {
              if (closing) return Effect.void
              // Unregistered: a crash for the run, which the next registration resumes.
              if (entry.closing) return Effect.sync(() => forget(executionId, current))
              return starting.withPermit(ended(executionId, current))
            })
          ),
          Effect.forkIn(entry.bodies),
          Effect.map((fiber) => {
            current = { fiber, instance }
            running.set(executionId, current)
            return current
          })
        )
      })

    /** Drops the run and its journal from memory if `generation` is its current body; whether it was. */
    const forget = (executionId: string, generation: Running | undefined): boolean => {
      if (running.get(executionId) !== generation) return false
      running.delete(executionId)
      journals.delete(executionId)
      return true
    }

    /**
     * A body generation ended (called holding `starting`): the run and its journal are no longer
     * held here, unless a deferred completed while it ran, which a new generation must see.
     */
    const ended = (executionId: string, generation: Running | undefined): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (!forget(executionId, generation) || !resumeRequested.delete(executionId)) return Effect.void
        return Effect.catchDefect(resumeUnlocked(executionId), (defect) =>
          Effect.logError("an execution cannot be resumed", defect)
        )
      })

    const decodePayload = (entry: Registered, executionId: string, payload: string) =>
      Effect.catch(entry.codecs.decodePayload(payload), fail("the journaled payload does not decode", executionId))

    /** Replays the execution from its journal. Called holding `starting`. */
    const replay = (executionId: string, row: typeof ExecutionRow.Type): Effect.Effect<Running | undefined> =>
      Effect.gen(function* () {
        const entry = workflows.get(row.workflow)
        if (entry === undefined) return undefined
        const payload = yield* decodePayload(entry, executionId, row.payload)
        if (!Predicate.isObject(payload)) return yield* fail("the journaled payload", executionId)("not an object")
        yield* journalOf(executionId)
        return yield* start(entry, executionId, payload)
      })

    /** Replays the execution, unless it runs (then once it ends) or has ended. Called holding `starting`. */
    const resumeUnlocked = (executionId: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        if (running.has(executionId)) {
          resumeRequested.add(executionId)
          return
        }
        const row = yield* readExecution(executionId)
        if (Option.isNone(row) || row.value.status === "complete" || row.value.status === "stopped") return
        yield* replay(executionId, row.value)
      })

    const resume = (executionId: string): Effect.Effect<void> => starting.withPermit(resumeUnlocked(executionId))

    const poll = (
      entry: Registered,
      executionId: string
    ): Effect.Effect<Option.Option<Workflow.Result<unknown, unknown>>> =>
      Effect.gen(function* () {
        const current = running.get(executionId)
        if (current !== undefined) {
          const done = current.fiber.pollUnsafe()
          if (done === undefined) return Option.none()
          if (Exit.isSuccess(done)) return Option.some(done.value)
        }
        const row = yield* readExecution(executionId)
        if (Option.isNone(row)) return Option.none()
        if (row.value.status === "suspended") return Option.some(new Workflow.Suspended({}))
        // Stopped by its caller: it ended there, interrupted.
        if (row.value.status === "stopped") return Option.some(new Workflow.Complete({ exit: Exit.interrupt() }))
        if (row.value.status !== "complete" || row.value.result === null) return Option.none()
        const exit = yield* Effect.catch(
          entry.codecs.decodeResult(row.value.result),
          fail("the journaled result does not decode", executionId)
        )
        if (!Exit.isExit(exit)) return yield* fail("the journaled result", executionId)("not an exit")
        return Option.some(new Workflow.Complete({ exit }))
      })

    const registered = (workflow: Workflow.Any): Effect.Effect<Registered> =>
      Effect.suspend(() => {
        const entry = workflows.get(workflow._tag)
        return entry === undefined
          ? Effect.die(new JournalError({ message: `the workflow ${workflow._tag} is not registered` }))
          : Effect.succeed(entry)
      })

    /**
     * The exit the journal holds for the deferred of `done`, written by whichever completion came first;
     * `encoded`, the exit of `done`, when there is no row (its execution was purged).
     */
    const journaledDeferred = (
      done: { readonly executionId: string; readonly deferredName: string },
      encoded: string
    ): Effect.Effect<string> =>
      sql`SELECT name, exit FROM workflow_deferreds
        WHERE execution_id = ${done.executionId} AND name = ${done.deferredName}`.pipe(
        Effect.flatMap(decodeDeferreds),
        Effect.map((rows) => rows[0]?.exit ?? encoded),
        Effect.catch(fail(`cannot read the deferred "${done.deferredName}"`, done.executionId))
      )

    const deferredDone = (done: {
      readonly executionId: string
      readonly deferredName: string
      readonly exit: Exit.Exit<unknown, unknown>
    }): Effect.Effect<void> =>
      Effect.gen(function* () {
        const journal = journals.get(done.executionId)
        if (journal?.deferreds.has(done.deferredName) === true) return
        const encoded = encodeExit(done.exit)
        yield* write(
          "deferred",
          done.executionId,
          done.deferredName,
          // Only for an execution still journaled: a clock armed before its execution was purged (its
          // session deleted) must not leave a row behind.
          sql`INSERT INTO workflow_deferreds (execution_id, name, exit)
            SELECT ${done.executionId}, ${done.deferredName}, ${encoded}
            WHERE EXISTS (SELECT 1 FROM workflow_executions WHERE execution_id = ${done.executionId})
            ON CONFLICT DO NOTHING`
        )
        // The first completion wins: of two at once, the one that lost keeps the winner's exit, as a replay reads it.
        if (journal !== undefined) journal.deferreds.set(done.deferredName, yield* journaledDeferred(done, encoded))
        yield* resume(done.executionId)
      })

    /** Wakes the execution at `wakeAt` (wall clock), once, whoever arms it first. */
    const arm = (executionId: string, name: string, deferredName: string, wakeAt: number) =>
      Effect.flatMap(clock.currentTimeMillis, (now) => clock.sleep(Duration.millis(Math.max(0, wakeAt - now)))).pipe(
        Effect.andThen(deferredDone({ executionId, deferredName, exit: Exit.void })),
        FiberMap.run(clocks, `${executionId}/${name}`, { onlyIfMissing: true }),
        Effect.asVoid
      )

    /** Journals an activity's (or step's) exit, `encoded`, and keeps it in the execution's journal. */
    const journalActivity = (journal: Journal, executionId: string, name: string, attempt: number, encoded: string) =>
      write(
        "activity",
        executionId,
        `${name}/${attempt}`,
        // Only for an execution still journaled: a body of a purged execution (its session deleted
        // while it ran) must not leave rows that no delete will find again.
        sql`INSERT INTO workflow_activities (execution_id, name, attempt, exit)
          SELECT ${executionId}, ${name}, ${attempt}, ${encoded}
          WHERE EXISTS (SELECT 1 FROM workflow_executions WHERE execution_id = ${executionId})
          ON CONFLICT DO NOTHING`
      ).pipe(Effect.andThen(Effect.sync(() => journal.activities.set(`${name}/${attempt}`, encoded))))

    // A step is the activity of attempt 1 (`Activity.CurrentAttempt` outside `Activity.retry`), minus the
    // activity's machinery: no schema built per step, no fiber, scope or span of its own.
    const steps: Steps.Service = {
      journalsFailures: false,
      run: <S extends Steps.Pure>(
        executionId: string,
        name: string,
        codec: Steps.Codec<S>,
        execute: Effect.Effect<S["Type"]>
      ) =>
        Effect.flatMap(journalOf(executionId), (journal): Effect.Effect<S["Type"]> => {
          const journaled = journal.activities.get(`${name}/1`)
          if (journaled !== undefined) {
            const exit = decodeStep(journaled, codec)
            return Result.isFailure(exit)
              ? fail(`the journaled activity "${name}/1" does not decode`, executionId)(exit.failure)
              : exit.success
          }
          return Effect.flatMap(Steps.attempt(name, execute), (exit) => {
            // The step's store failed: that is no result of it, so nothing is journaled (see `activityExecute`).
            const failure = journalFailure(exit)
            if (Option.isSome(failure)) return Effect.die(failure.value)
            const [result, encoded] = journalForm(name, exit, codec)
            return Effect.flatMap(journalActivity(journal, executionId, name, 1, encoded), () => result)
          })
        })
    }

    /** The activity's journaled exit, checked against its schemas; none when it has not completed. */
    const journaledActivity = (
      journal: Journal,
      executionId: string,
      activity: Activity.Any,
      key: string
    ): Effect.Effect<Option.Option<Exit.Exit<unknown, unknown>>> => {
      const journaled = journal.activities.get(key)
      if (journaled === undefined) return Effect.succeedNone
      const exit = Result.flatMap(decodeExit(journaled), (exit) => checkActivity(activity, exit))
      return Result.isFailure(exit)
        ? fail(`the journaled activity "${key}" does not decode`, executionId)(exit.failure)
        : Effect.succeedSome(exit.success)
    }

    const interrupt = (workflow: Workflow.Any, executionId: string) =>
      Effect.gen(function* () {
        const entry = yield* registered(workflow)
        const current = running.get(executionId)
        if (current !== undefined && current.fiber.pollUnsafe() === undefined) {
          current.instance.interrupted = true
          // The interruption may end the fiber before it records the body's interrupted result: recorded below.
          yield* Fiber.interrupt(current.fiber)
        }
        const row = yield* readExecution(executionId)
        if (Option.isNone(row) || row.value.status === "complete") return
        yield* record(entry, executionId, new Workflow.Complete({ exit: Exit.interrupt() }))
      })

    const engine: WorkflowEngine.WorkflowEngine["Service"] = WorkflowEngine.makeUnsafe({
      register: (workflow, execute) =>
        Effect.gen(function* () {
          const entry: Registered = {
            workflow,
            codecs: workflowCodecs(workflow),
            execute,
            bodies: yield* Scope.fork(bodiesScope, "sequential"),
            closing: false
          }
          workflows.set(workflow._tag, entry)
          // Unregistered with its scope: its bodies are interrupted as by a shutdown (a crash, to be
          // resumed by the next registration), and it no longer starts runs.
          yield* Effect.addFinalizer(() =>
            Effect.suspend(() => {
              entry.closing = true
              if (workflows.get(workflow._tag) === entry) workflows.delete(workflow._tag)
              return Scope.close(entry.bodies, Exit.void)
            })
          )
          // Recovery: every execution of this workflow that had not ended replays from its journal
          // (a suspended one re-arms its clock from the journaled deadline).
          const pending = yield* sql<{ readonly execution_id: string }>`SELECT execution_id FROM workflow_executions
            WHERE workflow = ${workflow._tag} AND status IN ('running', 'suspended')`.pipe(
            Effect.catch(fail("cannot list the executions to resume"))
          )
          for (const row of pending) {
            // One execution the journal cannot replay must not keep the others from resuming.
            yield* Effect.catchDefect(resume(row.execution_id), (defect) =>
              Effect.logError("an execution cannot be resumed", defect)
            )
          }
        }),

      execute: <const Discard extends boolean>(
        workflow: Workflow.Any,
        options: { readonly executionId: string; readonly payload: object; readonly discard: Discard }
      ) =>
        Effect.gen(function* () {
          const entry = yield* registered(workflow)
          const { executionId } = options
          const current = yield* starting.withPermit(
            Effect.gen(function* () {
              // In progress here (its entry goes when its body ends): join it.
              const current = running.get(executionId)
              if (current !== undefined) return current
              const payload = yield* Effect.catch(
                entry.codecs.encodePayload(options.payload),
                fail("cannot encode the payload", executionId)
              )
              const inserted = yield* Effect.andThen(
                beforeWrite({ kind: "execution", executionId, name: workflow._tag }),
                sql`INSERT INTO workflow_executions (execution_id, workflow, payload, status)
                  VALUES (${executionId}, ${workflow._tag}, ${payload}, 'running')
                  ON CONFLICT DO NOTHING RETURNING execution_id`.pipe(
                  Effect.catch(fail("cannot journal the execution", executionId))
                )
              )
              if (inserted.length > 0) {
                journals.set(executionId, emptyJournal())
                return yield* start(entry, executionId, options.payload)
              }
              // Journaled, not running here: a suspended run waits for its wake-up, an ended one
              // (complete, or stopped by its caller) answers from the journal, any other (a crash, a
              // journal failure) replays.
              const row = yield* readExecution(executionId)
              if (Option.isNone(row) || row.value.status !== "running") return undefined
              return yield* replay(executionId, row.value)
            })
          )
          if (options.discard) return undefined
          if (current !== undefined) return yield* Fiber.join(current.fiber)
          return Option.getOrElse(yield* poll(entry, executionId), () => new Workflow.Suspended({}))
          // The engine's interface types the result by `discard`; `undefined` is returned exactly when it is true.
        }) as Effect.Effect<Discard extends true ? void : Workflow.Result<unknown, unknown>>,

      poll: (workflow, executionId) => Effect.flatMap(registered(workflow), (entry) => poll(entry, executionId)),

      interrupt,

      // Compensation finalizers and child workflows are not journaled here: an unsafe interrupt is an interrupt.
      interruptUnsafe: interrupt,

      resume: (_workflow, executionId) => resume(executionId),

      activityExecute: (activity, attempt) =>
        Effect.gen(function* () {
          const instance = yield* WorkflowEngine.WorkflowInstance
          const { executionId } = instance
          const journal = yield* journalOf(executionId)
          const key = `${activity.name}/${attempt}`
          const journaled = yield* journaledActivity(journal, executionId, activity, key)
          if (Option.isSome(journaled)) return new Workflow.Complete({ exit: journaled.value })
          const activityInstance = WorkflowEngine.WorkflowInstance.initial(instance.workflow, executionId)
          activityInstance.interrupted = instance.interrupted
          const result: Workflow.Result<unknown, unknown> = yield* activity.executeEncoded.pipe(
            Workflow.intoResult,
            Effect.provideService(WorkflowEngine.WorkflowInstance, activityInstance)
          )
          if (result._tag === "Complete") {
            // The activity's store failed: that is no result of it, so nothing is journaled, and the
            // run stops here, unfinished, to run the activity again once the store works.
            const failure = journalFailure(result.exit)
            if (Option.isSome(failure)) return yield* Effect.die(failure.value)
            yield* journalActivity(journal, executionId, activity.name, attempt, encodeExit(result.exit))
          }
          return result
        }),

      deferredResult: (deferred) =>
        Effect.gen(function* () {
          const instance = yield* WorkflowEngine.WorkflowInstance
          const journal = yield* journalOf(instance.executionId)
          const journaled = journal.deferreds.get(deferred.name)
          if (journaled === undefined) return Option.none()
          const exit = decodeExit(journaled)
          if (Result.isFailure(exit))
            return yield* fail(
              `the journaled deferred "${deferred.name}" does not decode`,
              instance.executionId
            )(exit.failure)
          return Option.some(exit.success)
        }),

      deferredDone,

      scheduleClock: (_workflow, options) =>
        Effect.gen(function* () {
          const { executionId } = options
          const journal = yield* journalOf(executionId)
          if (journal.deferreds.has(options.clock.deferred.name)) return
          let wakeAt = journal.clocks.get(options.clock.name)
          if (wakeAt === undefined) {
            // The FIRST deadline wins: a replay after a restart finds the journaled wall-clock instant.
            // Whole milliseconds, rounded up (never sooner than asked): Postgres refuses a fraction for BIGINT.
            const deadline = Math.ceil((yield* clock.currentTimeMillis) + Duration.toMillis(options.clock.duration))
            yield* write(
              "clock",
              executionId,
              options.clock.name,
              sql`INSERT INTO workflow_clocks (execution_id, name, wake_at)
                SELECT ${executionId}, ${options.clock.name}, ${deadline}
                WHERE EXISTS (SELECT 1 FROM workflow_executions WHERE execution_id = ${executionId})
                ON CONFLICT DO NOTHING`
            )
            journal.clocks.set(options.clock.name, deadline)
            wakeAt = deadline
          }
          yield* arm(executionId, options.clock.name, options.clock.deferred.name, wakeAt)
        })
    })
    return engine
  })
