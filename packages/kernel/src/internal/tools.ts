import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import * as Decision from "../Decision.js"
import type * as KernelEvent from "../KernelEvent.js"
import type * as RunOutcome from "../RunOutcome.js"
import type * as Effects from "./effects.js"
import * as Run from "./run.js"
import * as SessionState from "./sessionState.js"

const PREVIEW_CHARS = 2_000

/** @internal */
export const pendingReasons: Partial<Record<RunOutcome.RunStatus, string>> = {
  interrupted: "The run was interrupted before this tool returned.",
  content_filtered: "The provider's content filter stopped the response; this tool was not run.",
  wall_clock_exceeded: "The run's wall-clock bound was reached before this tool returned."
}

/** Why a tool_use left without a result gets an error result, by how the run ended. @internal */
export const pendingReason = (status: RunOutcome.RunStatus): string =>
  pendingReasons[status] ?? "The run failed before this tool returned."

/**
 * Runs `effect` within the run's wall-clock bound, if one is set; `expired`
 * when the bound cut it short (it is interrupted, and waited for). The time
 * left is read as the effect is built: build it as it runs.
 *
 * @internal
 */
export const withinDeadline = <A, E, B>(
  run: Run.Run,
  effect: Effect.Effect<A, E>,
  expired: B
): Effect.Effect<A | B, E> => {
  // Without a bound there is no time left to read, and no clock reading.
  if (run.env.settings.max_wall_clock_ms === undefined) return effect
  const left = Decision.timeLeft(run.env.settings, run.startedAt, Run.now(run))
  if (left === undefined) return effect
  return left <= 0
    ? Effect.succeed(expired)
    : Effect.timeoutOrElse(effect, { duration: Duration.millis(left), orElse: () => Effect.succeed(expired) })
}

/**
 * Runs a turn's tool calls, one after the other or up to `toolConcurrency`
 * at once, within the wall-clock bound, and appends their results, in the
 * calls' order, as one message however the calls end: a call not back (the
 * bound cut it, the run was interrupted) is answered with an error result
 * saying why, and every result that came back is kept. `false` when the
 * bound cut them short. Build it as it runs (see `withinDeadline`).
 *
 * @internal
 */
export const runTools = (
  run: Run.Run,
  turn: number,
  parent: Tracer.AnySpan,
  calls: ReadonlyArray<Content.ToolUseBlock>
): Effect.Effect<boolean> => {
  const results: Array<Content.ToolResultBlock | undefined> = []
  return withinDeadline(run, Effect.as(eachCall(run, turn, parent, calls, results), true), false).pipe(
    Effect.onExit((exit) =>
      Run.update(run, (state) =>
        SessionState.append(state, {
          role: "user",
          content: SessionState.resultsFor(calls, results, pendingReason(statusOf(exit)))
        })
      )
    )
  )
}

/** Every call, in order or up to `toolConcurrency` at once; the one call of a turn as it is. */
const eachCall = (
  run: Run.Run,
  turn: number,
  parent: Tracer.AnySpan,
  calls: ReadonlyArray<Content.ToolUseBlock>,
  results: Array<Content.ToolResultBlock | undefined>
): Effect.Effect<void> => {
  if (calls.length === 1) return callOne(run, { turn, index: 0, parent }, calls[0]!, results, 0)
  const indexes = runIndexes(calls)
  return Effect.forEach(calls, (call, i) => callOne(run, { turn, index: indexes[i]!, parent }, call, results, i), {
    concurrency: run.env.toolConcurrency,
    discard: true
  })
}

/** How the calls' end reads as a run's status, for the calls not back. */
const statusOf = (exit: Exit.Exit<boolean>): RunOutcome.RunStatus =>
  Exit.isSuccess(exit) ? "wall_clock_exceeded" : Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "failed"

/**
 * One call: its `tool_call_started`, the call, then its result, kept at the
 * call's place and offered to the session's subscribers in one
 * uninterruptible step, so a result in history always has its event.
 */
const callOne = (
  run: Run.Run,
  info: Effects.ToolInfo,
  call: Content.ToolUseBlock,
  results: Array<Content.ToolResultBlock | undefined>,
  i: number
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const { turn } = info
    const startedAt = Run.now(run)
    const started = Run.publish(run, {
      type: "tool_call_started",
      at: startedAt,
      turn,
      id: call.id,
      name: call.name
    })
    return Effect.andThen(
      started,
      Effect.flatMap(invoke(run, call, info), (result) => kept(run, turn, call, result, startedAt, results, i))
    )
  })

/** A call's result kept at its place, and its `tool_result` published to whoever listens. */
const kept = (
  run: Run.Run,
  turn: number,
  call: Content.ToolUseBlock,
  result: Content.ToolResultBlock,
  startedAt: number,
  results: Array<Content.ToolResultBlock | undefined>,
  i: number
): Effect.Effect<void> => {
  if (!run.listening()) {
    results[i] = result
    return Effect.void
  }
  const event = [resulted(turn, call, result, startedAt, Run.now(run))]
  if (!run.subscribed()) {
    results[i] = result
    return run.notify(event)
  }
  return Effect.andThen(
    Effect.uninterruptible(
      Effect.suspend(() => {
        results[i] = result
        return run.offer(event)
      })
    ),
    run.notify(event)
  )
}

/**
 * Each call's `ToolInfo.index`: its place among the calls of the turn that
 * are run, in the model's order (a call whose input was not valid JSON is
 * not run, see `invoke`). A journal names a call by it, so it must not
 * depend on the order concurrent calls start in.
 */
const runIndexes = (calls: ReadonlyArray<Content.ToolUseBlock>): ReadonlyArray<number> => {
  const indexes: Array<number> = []
  let next = 0
  for (const call of calls) {
    indexes.push(next)
    if (call.invalid_input === undefined) next++
  }
  return indexes
}

/**
 * Runs one call through the seam, unless its input was not valid JSON: such
 * a call is never invoked, and the model is told why, so the history stays
 * valid.
 */
const invoke = (
  run: Run.Run,
  call: Content.ToolUseBlock,
  info: Effects.ToolInfo
): Effect.Effect<Content.ToolResultBlock> =>
  call.invalid_input === undefined
    ? run.effects.tool(call, info)
    : Effect.succeed(
        Content.toolResult(
          call.id,
          `The input of this call to "${call.name}" was not a valid JSON object, so the tool was not run. Input received: ${call.invalid_input.slice(0, PREVIEW_CHARS)}`,
          true
        )
      )

const resulted = (
  turn: number,
  call: Content.ToolUseBlock,
  result: Content.ToolResultBlock,
  startedAt: number,
  at: number
): KernelEvent.KernelEvent => ({
  type: "tool_result",
  at,
  turn,
  id: call.id,
  name: call.name,
  is_error: result.is_error,
  duration_ms: at - startedAt,
  preview: result.content.slice(0, PREVIEW_CHARS)
})
