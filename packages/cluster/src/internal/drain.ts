/**
 * A runner's drain: the steps of its runs (each of `AgentRun`'s steps, as
 * `AgentRun.StepGate`, and every activity the engine runs) pass a gate that
 * a drain closes. A step in flight finishes; a step that would start once
 * the gate is closed waits for ever, until the hand-over interrupts its run,
 * which the runner that takes the shard resumes from the journal, the step
 * not begun.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import * as Semaphore from "effect/Semaphore"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"

/** Steps in flight at once, without bound: the semaphore counts them, its whole stock is the drain's. */
const stock = Number.MAX_SAFE_INTEGER

/**
 * The gate of a runner's steps.
 *
 * @internal
 */
export interface Gate {
  /** `step` once the gate lets it start, counted in flight until it ends; never, once the gate is closed. */
  readonly pass: <A, E, R>(step: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** No step starts any more. */
  readonly close: Effect.Effect<void>
  /** Waits until no step is in flight. */
  readonly settled: Effect.Effect<void>
  readonly isClosed: () => boolean
}

/**
 * The gates the current step is passing: a step passes a gate once, however
 * many of its wrappers ask (an `AgentRun` step run as an activity meets the
 * gate as a `StepGate` and in the engine's `activityExecute`), since a
 * second pass could wait at a gate closed meanwhile while the first holds
 * the step in flight, and the drain would wait for it in vain.
 */
const Passing = Context.Reference<ReadonlySet<Gate>>("@agent-kernel/cluster/Drain/Passing", {
  defaultValue: () => new Set()
})

/** @internal */
export const make: Effect.Effect<Gate> = Effect.gen(function* () {
  const open = yield* Latch.make(true)
  const inFlight = yield* Semaphore.make(stock)
  const gate: Gate = {
    pass: (step) =>
      Effect.flatMap(Passing, (passing) =>
        passing.has(gate)
          ? step
          : open.whenOpen(inFlight.withPermits(1)(Effect.provideService(step, Passing, new Set([...passing, gate]))))
      ),
    close: Effect.asVoid(open.close),
    // Every permit: a step that passed the latch just before it closed starts still, and is waited for too.
    settled: Effect.asVoid(inFlight.take(stock)),
    isClosed: () => !open.isOpen()
  }
  return gate
})

/**
 * The engine with every activity its runs call passed through `gate`, from
 * the call to its journaled result (an `AgentRun` step that is an activity
 * passes it once, see `Passing`). (Not the activity's execution in its
 * entity: that runs uninterruptibly, and must never wait at a closed gate.)
 *
 * @internal
 */
export const gated = (
  engine: WorkflowEngine.WorkflowEngine["Service"],
  gate: Gate
): WorkflowEngine.WorkflowEngine["Service"] =>
  WorkflowEngine.WorkflowEngine.of({
    ...engine,
    activityExecute: (activity, attempt) => gate.pass(engine.activityExecute(activity, attempt))
  })
