import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"

/**
 * How a journaled step's result goes to and from the journal: its schema,
 * and its encoder and decoder compiled once (a schema built per step would
 * be compiled again at every step).
 *
 * @internal
 */
export interface Codec<A, I> {
  readonly schema: Schema.Schema<A, I>
  /** The result's encoded (JSON-able) form; throws a `ParseError` on a value the schema refuses. */
  readonly encode: (value: A) => I
  readonly decode: (encoded: unknown) => Either.Either<A, ParseResult.ParseError>
}

/**
 * A step codec of `schema`, to be made once, at module level.
 *
 * @internal
 */
export const codec = <A, I>(schema: Schema.Schema<A, I>): Codec<A, I> => ({
  schema,
  encode: Schema.encodeSync(schema),
  decode: Schema.decodeUnknownEither(schema)
})

/**
 * What an engine that journals steps itself offers a run: a step by name,
 * without an `Activity`. Only the light engine provides it (in the context
 * of the bodies it runs); on the other engines a step is an `Activity`.
 *
 * @internal
 */
export interface Service {
  /**
   * The step `name` of the execution: its journaled result if it has one
   * (decoded by `codec`, and `execute` not run); otherwise `execute` runs
   * and its result is journaled, exactly as the activity `name` of
   * attempt 1 would be (same row, same encoding), so a journal written by
   * either path replays on the other.
   */
  readonly run: <A, I>(
    executionId: string,
    name: string,
    codec: Codec<A, I>,
    execute: Effect.Effect<A>
  ) => Effect.Effect<A>
}

/**
 * The steps of the engine that runs the current body, when that engine
 * journals steps itself: the light engine provides them in the context of
 * the bodies it runs. None by default: on the other engines a step is an
 * `Activity` (and their bodies tell them apart by it, see `AgentRun.body`).
 *
 * @internal
 */
export class Steps extends Context.Reference<Steps>()("@agent-kernel/durable/Steps", {
  defaultValue: (): Option.Option<Service> => Option.none()
}) {}

/**
 * How often a step that interrupted itself (its own fiber was not
 * interrupted) runs again: @effect/workflow's default for an activity,
 * given to the activities too, so that a step retries alike on every engine.
 *
 * @internal
 */
export const interruptRetryPolicy: Schedule.Schedule<unknown, Cause.Cause<unknown>> = Schedule.exponential(
  100,
  1.5
).pipe(
  Schedule.union(Schedule.spaced("10 seconds")),
  Schedule.intersect(Schedule.recurs(10)),
  Schedule.whileInput((cause: Cause.Cause<unknown>) => Cause.isInterrupted(cause))
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
    Exit.isFailure(exit) && Cause.isInterrupted(exit.cause)
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
    Effect.catchAll((cause) =>
      Cause.isInterrupted(cause)
        ? Effect.dieMessage(`Activity "${name}" interrupted and retry attempts exhausted`)
        : Effect.failCause(cause)
    )
  )
}
