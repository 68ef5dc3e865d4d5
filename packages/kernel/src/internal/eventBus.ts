import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as EventBus from "../EventBus.js"
import type * as KernelEvent from "../KernelEvent.js"

/** An observer's `onEvent`. */
type OnEvent = (event: KernelEvent.KernelEvent) => Effect.Effect<void>

/** @internal */
export const logFailure = (cause: Cause.Cause<unknown>) => Effect.logWarning("agent-kernel observer failed", cause)

/** An observer's call; a synchronous throw becomes a defect of its effect. */
const call = (f: OnEvent, event: KernelEvent.KernelEvent) => {
  try {
    return f(event)
  } catch (defect) {
    return Effect.die(defect)
  }
}

/**
 * Calls each observer with each event, in order, one call at a time, each
 * call guarded (a failure is logged and the delivery goes on). Each call is
 * one step of the delivery, the last one with nothing after it: a chain
 * built up front cost a guard and a link per call before any of them ran.
 * One event to one observer (a stream's delta, say) is a guarded call and
 * nothing more. The first call is made when the returned effect runs, or,
 * when `started`, now: for a caller that is performing the delivery as it
 * asks for it (see `deliverStarted`).
 *
 * @internal
 */
export const deliverAll = (
  onEvent: ReadonlyArray<OnEvent>,
  events: ReadonlyArray<KernelEvent.KernelEvent>,
  started: boolean
): Effect.Effect<void> => {
  if (events.length === 0) return Effect.void
  if (events.length === 1 && onEvent.length === 1) {
    const f = onEvent[0]!
    const only = events[0]!
    return started
      ? Effect.catchAllCause(call(f, only), logFailure)
      : Effect.suspend(() => Effect.catchAllCause(call(f, only), logFailure))
  }
  let event = 0
  let observer = 0
  const step = (): Effect.Effect<void> => {
    const f = onEvent[observer]!
    const called = call(f, events[event]!)
    if (++observer === onEvent.length) {
      observer = 0
      if (++event === events.length) return Effect.catchAllCause(called, logFailure)
    }
    return Effect.matchCauseEffect(called, handlers)
  }
  const handlers = {
    onSuccess: step,
    onFailure: (cause: Cause.Cause<unknown>) => Effect.flatMap(logFailure(cause), step)
  }
  return started ? step() : Effect.suspend(step)
}

/**
 * The `onEvent` functions of each bus `EventBus.of` made, with the `deliver`
 * it was made with: a bus whose `deliver` was replaced since (a spy, a
 * wrapper assigned over it) delivers through its own.
 */
const observers = new WeakMap<
  EventBus.Service,
  { readonly deliver: EventBus.Service["deliver"]; readonly onEvent: ReadonlyArray<OnEvent> }
>()

/**
 * Records the observers of a bus `EventBus.of` made, for `deliverStarted`.
 *
 * @internal
 */
export const register = (onEvent: ReadonlyArray<OnEvent>, bus: EventBus.Service): EventBus.Service => {
  observers.set(bus, { deliver: bus.deliver, onEvent })
  return bus
}

/**
 * `bus.deliver(events)` for a caller that performs what it returns at once,
 * in its fiber (the loop's commit): the first observer is called now, which
 * is when the delivery runs, so the suspension that `deliver` adds (an
 * effect of its own, a fifth of a step's delivery) is not needed. Any other
 * bus (one that wraps a bus, as a durable run's journal does) delivers as
 * its `deliver` does.
 *
 * @internal
 */
export const deliverStarted = (
  bus: EventBus.Service,
  events: ReadonlyArray<KernelEvent.KernelEvent>
): Effect.Effect<void> => {
  const registered = observers.get(bus)
  if (registered === undefined || registered.deliver !== bus.deliver) return bus.deliver(events)
  return registered.onEvent.length === 0 ? Effect.void : deliverAll(registered.onEvent, events, true)
}
