/**
 * The live event streams of durable sessions in this process
 * (`DurableSessions.subscribe`), as `Session.subscribe` is a session's: one
 * bounded PubSub a session, made at its first subscription, that every run
 * of the session (and every resume of one) offers its events to, as its
 * observers see them (a replayed step's events are not offered again).
 *
 * @internal
 */
import { type EventBus, KernelEvent, Session } from "@agent-kernel/kernel"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** A session's stream and how many subscribers read it. */
interface Hub {
  readonly pubsub: PubSub.PubSub<KernelEvent.KernelEvent>
  subscribers: number
}

/**
 * The streams of this process's durable sessions, by session id, each
 * holding at most `capacity` events for a subscriber that has not read them.
 *
 * @internal
 */
export interface Registry {
  readonly capacity: number
  readonly hubs: Map<string, Hub>
}

/** @internal */
export const make = (capacity: number = Session.defaultSubscriberCapacity): Registry => ({
  capacity,
  hubs: new Map()
})

/**
 * The registry the runs of this process offer their events to:
 * `DurableSessions.layer` provides its own; by default, one nobody reads.
 *
 * @internal
 */
export const Subscriptions = Context.Reference<Registry>("@agent-kernel/durable/Subscriptions", {
  defaultValue: () => make()
})

/**
 * A subscription to the session `id`'s events for the life of the scope:
 * every event its runs publish from now on, in order, with back-pressure (a
 * subscriber `capacity` events behind holds the run up until it reads).
 *
 * @internal
 */
export const subscribe = (
  registry: Registry,
  id: string
): Effect.Effect<Stream.Stream<KernelEvent.KernelEvent>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const hub = registry.hubs.get(id) ?? {
      pubsub: yield* PubSub.bounded<KernelEvent.KernelEvent>(registry.capacity),
      subscribers: 0
    }
    registry.hubs.set(id, hub)
    const subscription = yield* PubSub.subscribe(hub.pubsub)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        hub.subscribers++
      }),
      () =>
        Effect.sync(() => {
          hub.subscribers--
          if (hub.subscribers === 0 && registry.hubs.get(id) === hub) registry.hubs.delete(id)
        })
    )
    return Stream.fromSubscription(subscription)
  })

/**
 * `bus`, whose delivered events also go to the subscribers of the session
 * `id`, if it has any. An offer is uninterruptible (the session's state
 * holds what the events describe); a subscriber that goes away releases it.
 *
 * @internal
 */
export const offering = (bus: EventBus.Service, registry: Registry, id: string): EventBus.Service => {
  const offer = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
    Effect.suspend(() => {
      const hub = registry.hubs.get(id)
      return hub === undefined || hub.subscribers === 0 || events.length === 0
        ? Effect.void
        : Effect.uninterruptible(Effect.asVoid(PubSub.publishAll(hub.pubsub, events)))
    })
  const deliver = (events: ReadonlyArray<KernelEvent.KernelEvent>) => Effect.andThen(bus.deliver(events), offer(events))
  return {
    get observed() {
      return bus.observed || (registry.hubs.get(id)?.subscribers ?? 0) > 0
    },
    responseObserved: bus.responseObserved,
    publish: (event) => Effect.flatMap(Clock.currentTimeMillis, (at) => deliver([KernelEvent.stamp(event, at)])),
    deliver,
    modelResponded: bus.modelResponded
  }
}
