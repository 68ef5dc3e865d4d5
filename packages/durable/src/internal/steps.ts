import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Activity from "effect/workflow/Activity"
import type * as WorkflowEngine from "effect/workflow/WorkflowEngine"

/**
 * How a journaled step's result goes to and from the journal: its schema,
 * and its JSON encoder and decoder compiled once (a schema built per step
 * would be compiled again at every step).
 *
 * @internal
 */
export interface Codec<S extends Pure> {
  readonly schema: S
  /** The result's JSON form; throws a `SchemaError` on a value the schema refuses. */
  readonly encode: (value: S["Type"]) => unknown
  readonly decode: (encoded: unknown) => Result.Result<S["Type"], Schema.SchemaError>
}

/**
 * A schema that needs no service to decode or encode: a step's result is
 * journaled and replayed without any.
 *
 * @internal
 */
export type Pure = Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }

/**
 * A step codec of `schema` (in its JSON form, `Schema.toCodecJson`), to be
 * made once, at module level.
 *
 * @internal
 */
export const codec = <S extends Pure>(schema: S): Codec<S> => {
  const json = Schema.toCodecJson(schema)
  return {
    schema,
    encode: Schema.encodeSync(json),
    decode: Schema.decodeUnknownResult(json)
  }
}

/**
 * What an engine that journals steps itself offers a run: a step by name,
 * without an `Activity`. The light engine provides it in the context of the
 * bodies it runs, and the cluster layers in their workflows' (`sqlSteps`);
 * on the memory engine a step is an `Activity`.
 *
 * @internal
 */
export interface Service {
  /**
   * Whether the engine journals whatever a body ends with (the cluster engine): then a body suspends on
   * a journal failure rather than end with it, which would be the run's journaled result.
   */
  readonly journalsFailures: boolean
  /**
   * The step `name` of the execution: its journaled result if it has one
   * (decoded by `codec`, and `execute` not run); otherwise `execute` runs
   * and its result is journaled, exactly as the activity `name` of
   * attempt 1 would be (same row, same encoding), so a journal written by
   * either path replays on the other.
   */
  readonly run: <S extends Pure>(
    executionId: string,
    name: string,
    codec: Codec<S>,
    execute: Effect.Effect<S["Type"]>
  ) => Effect.Effect<S["Type"]>
}

/**
 * The steps of the engine that runs the current body, when that engine
 * journals steps itself: the light engine provides them in the context of
 * the bodies it runs. None by default: on the other engines a step is an
 * `Activity` (and their bodies tell them apart by it, see `AgentRun.body`).
 *
 * @internal
 */
export const Steps = Context.Reference<Option.Option<Service>>("@agent-kernel/durable/Steps", {
  defaultValue: () => Option.none()
})

/**
 * How often a step that interrupted itself (its own fiber was not
 * interrupted) runs again: effect/workflow's default for an activity, given
 * to the activities too, so that a step retries alike on every engine.
 *
 * @internal
 */
export const interruptRetryPolicy: Schedule.Schedule<unknown, Cause.Cause<unknown>> = Schedule.min([
  Schedule.exponential(400, 1.5),
  Schedule.spaced("10 seconds")
]).pipe(
  Schedule.setInputType<Cause.Cause<unknown>>(),
  Schedule.while((meta) => meta.attempt <= 10 && Cause.hasInterrupts(meta.input))
)

/**
 * Runs a step's `execute` once, as an activity would: a run that interrupted
 * itself (its cause holds an interruption, and the fiber running it was not
 * interrupted: then this returns no exit) runs again as `interruptRetryPolicy`
 * says, and dies once the policy gives up.
 *
 * @internal
 */
export const attempt = <A>(name: string, execute: Effect.Effect<A>): Effect.Effect<Exit.Exit<A>> =>
  Effect.flatMap(Effect.exit(execute), (exit) =>
    Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)
      ? Effect.exit(retried(name, execute, exit.cause))
      : Effect.succeed(exit)
  )

/** The retries of a step whose first run interrupted itself with `first`: the policy counts that run. */
const retried = <A>(name: string, execute: Effect.Effect<A>, first: Cause.Cause<never>): Effect.Effect<A> => {
  let pending: Cause.Cause<never> | undefined = first
  return Effect.suspend(() => {
    const cause = pending
    pending = undefined
    return cause === undefined ? Effect.sandbox(execute) : Effect.fail(cause)
  }).pipe(
    Effect.retry(interruptRetryPolicy),
    Effect.catch((cause) =>
      Cause.hasInterrupts(cause)
        ? Effect.die(`Activity "${name}" interrupted and retry attempts exhausted`)
        : Effect.failCause(cause)
    )
  )
}

/**
 * What a journaled step needs: the engine and the execution it belongs to.
 *
 * @internal
 */
export type StepContext = WorkflowEngine.WorkflowEngine | WorkflowEngine.WorkflowInstance

/**
 * How the execution `executionId` runs a journaled step: its result, once
 * journaled, is answered from the journal and `execute` does not run again.
 * The light engine (its `Steps` in `context`) journals the step itself; on
 * the other engines it is the activity of that name.
 *
 * @internal
 */
export const stepOf = (context: Context.Context<StepContext>, executionId: string) => {
  const steps = Context.get(context, Steps)
  return <S extends Pure>(
    name: string,
    codec: Codec<S>,
    execute: Effect.Effect<S["Type"]>
  ): Effect.Effect<S["Type"]> =>
    Option.isSome(steps)
      ? steps.value.run(executionId, name, codec, execute)
      : Effect.provideContext(Activity.make({ name, success: codec.schema, execute, interruptRetryPolicy }), context)
}
