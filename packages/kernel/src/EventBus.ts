/**
 * The event bus: where the loop, the tool layer and the breakers publish
 * kernel events, and where observers and `Stream` subscribers read them.
 *
 * Publishing costs little when nobody listens: observers are a plain array
 * and an unsubscribed `PubSub.publish` does no work per subscriber.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
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
 * The event bus service.
 *
 * @since 0.1.0
 * @category tags
 */
export class EventBus extends Context.Tag("@agent-kernel/kernel/EventBus")<
  EventBus,
  {
    /** Stamps the event with the Clock's time and delivers it. */
    readonly publish: (event: KernelEvent.Unstamped) => Effect.Effect<void>
    /** Delivers a model response to the post-model-response observers. */
    readonly modelResponded: (response: ModelProvider.ModelResponse, info: ResponseInfo) => Effect.Effect<void>
    /** Events published after the stream starts running. */
    readonly events: Stream.Stream<KernelEvent.KernelEvent>
    /** Subscribes now, for the life of the scope: no event published after this returns is missed. */
    readonly subscribe: Effect.Effect<Stream.Stream<KernelEvent.KernelEvent>, never, Scope.Scope>
  }
>() {}

// Callers suspend the observer's call, so one that throws synchronously is caught too.
const guard = (effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.catchAllCause(effect, (cause) => Effect.logWarning("agent-kernel observer failed", cause))

/**
 * Builds a bus with the given observers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (observers: ReadonlyArray<Observer> = []): Effect.Effect<EventBus["Type"]> =>
  Effect.gen(function* () {
    const pubsub = yield* PubSub.unbounded<KernelEvent.KernelEvent>()
    const onEvent = observers.flatMap((observer) => (observer.onEvent ? [observer.onEvent] : []))
    const onResponse = observers.flatMap((observer) => (observer.onModelResponse ? [observer.onModelResponse] : []))
    const publish = (event: KernelEvent.Unstamped) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => {
        const stamped = { ...event, at } as KernelEvent.KernelEvent
        const delivered = PubSub.publish(pubsub, stamped)
        return onEvent.length === 0
          ? delivered
          : Effect.zipRight(
              delivered,
              Effect.forEach(onEvent, (f) => guard(Effect.suspend(() => f(stamped))), { discard: true })
            )
      }).pipe(Effect.asVoid)
    const modelResponded = (response: ModelProvider.ModelResponse, info: ResponseInfo) =>
      onResponse.length === 0
        ? Effect.void
        : Effect.forEach(onResponse, (f) => guard(Effect.suspend(() => f(response, info))), { discard: true })
    return EventBus.of({
      publish,
      modelResponded,
      events: Stream.fromPubSub(pubsub),
      subscribe: Stream.fromPubSub(pubsub, { scoped: true })
    })
  })

/**
 * A layer with a fresh bus.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (observers: ReadonlyArray<Observer> = []): Layer.Layer<EventBus> =>
  Layer.effect(EventBus, make(observers))

/**
 * Publishes through the bus in context, or does nothing when there is none.
 *
 * @since 0.1.0
 * @category accessors
 */
export const publish = (event: KernelEvent.Unstamped): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(EventBus), (bus) =>
    bus._tag === "Some" ? bus.value.publish(event) : Effect.void
  )
