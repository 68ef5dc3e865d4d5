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
import * as internal from "./internal/eventBus.js"
import * as KernelEvent from "./KernelEvent.js"
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
  /**
   * Called for every event of a session, in the order they happen, each
   * before what follows it happens. With `toolConcurrency` above 1 the calls
   * of a turn run at once: each call's `tool_call_started` comes before its
   * `tool_result`, and the turn's events before and after the calls keep
   * their place, but the events of different calls interleave as the calls
   * start and finish, and an observer that suspends may be called for one
   * call's event while it still handles another's.
   *
   * The function is called when the event's turn in the delivery comes: after
   * the effects returned for the events before it, and by the observers
   * registered before, have run. So what the function does when called (a
   * synchronous write, say) happens in the same order as its effects.
   */
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
  /** Whether any `onEvent` observer is registered; publishers may skip building events when none is. */
  readonly observed: boolean
  /** Whether any `onModelResponse` observer is registered. */
  readonly responseObserved: boolean
  /** Stamps the event with the Clock's time and delivers it. */
  readonly publish: (event: KernelEvent.Unstamped) => Effect.Effect<void>
  /**
   * Delivers events that are already stamped, in order, to every `onEvent`
   * observer: each event to each observer in registration order, each call
   * made when the effect of the one before has run (none is made up front).
   */
  readonly deliver: (events: ReadonlyArray<KernelEvent.KernelEvent>) => Effect.Effect<void>
  /** Delivers a model response to the post-model-response observers. */
  readonly modelResponded: (response: ModelProvider.ModelResponse, info: ResponseInfo) => Effect.Effect<void>
}

/**
 * A bus with the given observers.
 *
 * @example
 * ```ts
 * import { EventBus } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const bus = EventBus.of([{ onEvent: (event) => Effect.log(event.type) }])
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const of = (observers: ReadonlyArray<Observer>): Service => {
  const onEvent = observers.flatMap((observer) => (observer.onEvent === undefined ? [] : [observer.onEvent]))
  const onResponse = observers.flatMap((observer) =>
    observer.onModelResponse === undefined ? [] : [observer.onModelResponse]
  )
  const deliver = internal.deliveryTo(onEvent)
  return {
    observed: onEvent.length > 0,
    responseObserved: onResponse.length > 0,
    publish: (event) => Effect.flatMap(Clock.currentTimeMillis, (at) => deliver([KernelEvent.stamp(event, at)])),
    deliver,
    modelResponded: (response, info) => internal.respondAll(onResponse, response, info)
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
export const EventBus: Context.Reference<Service> = Context.Reference<Service>("@agent-kernel/kernel/EventBus", {
  defaultValue: () => silent
})

/**
 * The identifier of a layer that provides `EventBus`: `never`, as for every
 * `Context.Reference`, which always has a value.
 *
 * @since 0.1.0
 * @category tags
 */
export type EventBus = Context.Service.Identifier<typeof EventBus>

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
