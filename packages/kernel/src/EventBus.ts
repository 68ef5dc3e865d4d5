/**
 * The event bus: where the loop, the tool layer and the breakers publish
 * kernel events, and where observers and `Stream` subscribers read them.
 *
 * A bus is its observers. Publishing costs nothing when nobody listens: the
 * kernel asks `observed` (and its own subscribers) before it builds an event.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as KernelEvent from "./KernelEvent.js"
import type * as ModelProvider from "./ModelProvider.js"

/**
 * Where an observer is called from.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResponseInfo {
  readonly runId: string
  readonly turn: number
  readonly request: ModelProvider.ModelRequest
}

/**
 * A registered observer. Its failures and defects are logged and never reach
 * the run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Observer {
  /** Called for every event, in order. */
  readonly onEvent?: (event: KernelEvent.KernelEvent) => Effect.Effect<void>
  /** The post-model-response hook: called with every successful model response, before tools run. */
  readonly onModelResponse?: (response: ModelProvider.ModelResponse, info: ResponseInfo) => Effect.Effect<void>
}

/**
 * What an event bus does. A bus holds its observers and nothing else, so one
 * value can serve any number of sessions; each session keeps its own event
 * stream (`Session.subscribe`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Whether any observer is registered; publishers may skip building events when none is. */
  readonly observed: boolean
  /** Stamps the event with the Clock's time and delivers it. */
  readonly publish: (event: KernelEvent.Unstamped) => Effect.Effect<void>
  /** Delivers an event that is already stamped, in order, to every `onEvent` observer. */
  readonly deliver: (event: KernelEvent.KernelEvent) => Effect.Effect<void>
  /** Delivers a model response to the post-model-response observers. */
  readonly modelResponded: (response: ModelProvider.ModelResponse, info: ResponseInfo) => Effect.Effect<void>
}

// Callers suspend the observer's call, so one that throws synchronously is caught too.
const guard = (effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.catchAllCause(effect, (cause) => Effect.logWarning("agent-kernel observer failed", cause))

const callEach = <A extends ReadonlyArray<unknown>>(
  fs: ReadonlyArray<(...args: A) => Effect.Effect<void>>,
  ...args: A
): Effect.Effect<void> => {
  switch (fs.length) {
    case 0:
      return Effect.void
    case 1: {
      const f = fs[0]!
      return guard(Effect.suspend(() => f(...args)))
    }
    default:
      return Effect.forEach(fs, (f) => guard(Effect.suspend(() => f(...args))), { discard: true })
  }
}

/**
 * A bus with the given observers.
 *
 * @since 0.2.0
 * @category constructors
 */
export const of = (observers: ReadonlyArray<Observer>): Service => {
  const onEvent = observers.flatMap((observer) => (observer.onEvent ? [observer.onEvent] : []))
  const onResponse = observers.flatMap((observer) => (observer.onModelResponse ? [observer.onModelResponse] : []))
  const deliver = (event: KernelEvent.KernelEvent) => callEach(onEvent, event)
  return {
    observed: onEvent.length > 0,
    publish: (event) =>
      onEvent.length === 0
        ? Effect.void
        : Effect.flatMap(Clock.currentTimeMillis, (at) => deliver({ ...event, at } as KernelEvent.KernelEvent)),
    deliver,
    modelResponded: (response, info) => callEach(onResponse, response, info)
  }
}

/**
 * A bus with no observers: what a session uses when none is provided.
 *
 * @since 0.2.0
 * @category constructors
 */
export const silent: Service = of([])

/**
 * The event bus service. Default: `silent`.
 *
 * @since 0.1.0
 * @category tags
 */
export class EventBus extends Context.Reference<EventBus>()("@agent-kernel/kernel/EventBus", {
  defaultValue: (): Service => silent
}) {}

/**
 * Builds a bus with the given observers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (observers: ReadonlyArray<Observer> = []): Effect.Effect<Service> =>
  Effect.sync(() => of(observers))

/**
 * A layer with a bus of these observers.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (observers: ReadonlyArray<Observer> = []): Layer.Layer<EventBus> =>
  Layer.sync(EventBus, () => of(observers))

/**
 * Publishes through the bus in context (by default `silent`, which drops the event).
 *
 * @since 0.1.0
 * @category accessors
 */
export const publish = (event: KernelEvent.Unstamped): Effect.Effect<void> =>
  Effect.flatMap(EventBus, (bus) => bus.publish(event))
