import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as EventBus from "../EventBus.js"
import type * as KernelEvent from "../KernelEvent.js"
import type * as ModelProvider from "../ModelProvider.js"

/** @internal */
export const logFailure = (cause: Cause.Cause<unknown>) => Effect.logWarning("agent-kernel observer failed", cause)

/**
 * An observer's effect, guarded: a synchronous throw, a failure, a defect or
 * an interruption of its own is logged and never reaches the caller.
 *
 * @internal
 */
export const guarded = (observe: () => Effect.Effect<void>): Effect.Effect<void> =>
  Effect.catchCause(Effect.suspend(observe), logFailure)

/**
 * A delivery to the observers: each event to each observer, in order, one
 * call at a time, each function called when its turn comes (after the
 * effects of the calls before it have run).
 *
 * @internal
 */
export const deliveryTo = (
  onEvent: ReadonlyArray<(event: KernelEvent.KernelEvent) => Effect.Effect<void>>
): ((events: ReadonlyArray<KernelEvent.KernelEvent>) => Effect.Effect<void>) => {
  const toEach: (event: KernelEvent.KernelEvent) => Effect.Effect<void> =
    onEvent.length === 1
      ? (event) => guarded(() => onEvent[0]!(event))
      : (event) => Effect.forEach(onEvent, (f) => guarded(() => f(event)), { discard: true })
  if (onEvent.length === 0) return () => Effect.void
  return (events) => (events.length === 1 ? toEach(events[0]!) : Effect.forEach(events, toEach, { discard: true }))
}

/**
 * Calls each post-model-response observer in turn, guarded.
 *
 * @internal
 */
export const respondAll = (
  onResponse: ReadonlyArray<
    (response: ModelProvider.ModelResponse, info: EventBus.ResponseInfo) => Effect.Effect<void>
  >,
  response: ModelProvider.ModelResponse,
  info: EventBus.ResponseInfo
): Effect.Effect<void> => Effect.forEach(onResponse, (f) => guarded(() => f(response, info)), { discard: true })
