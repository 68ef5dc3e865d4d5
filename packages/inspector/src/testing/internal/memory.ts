import type { Content, EventBus, RunOutcome, Session } from "@agent-kernel/kernel"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as InspectorStore from "../../InspectorStore.js"
import * as Runs from "../../Runs.js"
import * as Entry from "./entry.js"

/** Makes a session of the store: see `MemoryStore.SessionFactory`. @internal */
export type SessionFactory = (init: {
  readonly id: string
  readonly state: Option.Option<Session.State>
  readonly observer: EventBus.Observer
}) => Effect.Effect<Session.Service, never, Scope.Scope>

/** What the store's operations share. @internal */
export interface Store {
  readonly scope: Scope.Scope
  readonly factory: SessionFactory
  readonly slots: Ref.Ref<ReadonlyMap<string, Entry.Slot>>
  /** The message every read fails with while the store is gone. */
  readonly gone: Ref.Ref<Option.Option<string>>
}

/** A new, empty store. @internal */
export const make = (factory: SessionFactory): Effect.Effect<Store, never, Scope.Scope> =>
  Effect.all({
    scope: Effect.scope,
    factory: Effect.succeed(factory),
    slots: Ref.make<ReadonlyMap<string, Entry.Slot>>(new Map()),
    gone: Ref.make<Option.Option<string>>(Option.none())
  })

/** Fails while the store is gone. @internal */
export const available = (store: Store): Effect.Effect<void, InspectorStore.StoreUnavailable> =>
  Effect.flatMap(Ref.get(store.gone), (message) =>
    Option.isSome(message) ? Effect.fail(new InspectorStore.StoreUnavailable({ message: message.value })) : Effect.void
  )

/** A slot for an entry. @internal */
export const newSlot = (entry: Entry.Entry): Effect.Effect<Entry.Slot> =>
  Effect.all({ entry: Ref.make(entry), grew: PubSub.sliding<void>(1) })

/** The session's slot. @internal */
export const slotOf = (store: Store, id: string): Effect.Effect<Entry.Slot, InspectorStore.SessionNotFound> =>
  Effect.flatMap(Ref.get(store.slots), (all) => {
    const slot = all.get(id)
    return slot === undefined
      ? Effect.fail(new InspectorStore.SessionNotFound({ session_id: id }))
      : Effect.succeed(slot)
  })

/** The session's slot, made empty if it has none. @internal */
export const slotOrNew = (store: Store, id: string): Effect.Effect<Entry.Slot> =>
  Effect.catchTag(slotOf(store, id), "SessionNotFound", () =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.flatMap(newSlot(Entry.empty(id, now)), (made) =>
        Ref.modify(store.slots, (current): readonly [Entry.Slot, ReadonlyMap<string, Entry.Slot>] => {
          const existing = current.get(id)
          return existing !== undefined ? [existing, current] : [made, new Map(current).set(id, made)]
        })
      )
    )
  )

/** Wakes the followers of every session. @internal */
export const wakeAll = (store: Store): Effect.Effect<void> =>
  Effect.flatMap(Ref.get(store.slots), (all) =>
    Effect.forEach([...all.values()], (slot) => PubSub.publish(slot.grew, undefined), { discard: true })
  )

/** The observer of one process of a session: it records until a crash starts another. */
const observerOf = (
  slot: Entry.Slot,
  generation: number,
  session: Deferred.Deferred<Session.Service>
): EventBus.Observer => ({
  onEvent: (event) =>
    Effect.gen(function* () {
      const kept = yield* Ref.modify(slot.entry, (entry): readonly [boolean, Entry.Entry] =>
        entry.generation === generation ? [true, Entry.recorded(entry, event)] : [false, entry]
      )
      if (!kept) return
      if (event.type === "run_started" || event.type === "run_ended") {
        const live = yield* Deferred.poll(session)
        if (Option.isSome(live)) {
          const budget = yield* Effect.flatMap(live.value, (s) => s.retryBudget)
          yield* Ref.update(slot.entry, (entry) =>
            entry.generation === generation ? Entry.withBudget(entry, budget) : entry
          )
        }
      }
      yield* PubSub.publish(slot.grew, undefined)
    })
})

/** The entry once its process's run has ended: its state recorded, the run no longer live. */
const ended =
  (slot: Entry.Slot, generation: number, session: Session.Service) => (exit: Exit.Exit<RunOutcome.RunOutcome>) =>
    Effect.flatMap(session.state, (after) =>
      Ref.update(slot.entry, (entry) =>
        entry.generation !== generation
          ? entry
          : {
              ...entry,
              live: Option.none(),
              pending: Exit.isSuccess(exit) || entry.lastRun?.status !== null ? Option.none() : entry.pending,
              state: Option.some(after)
            }
      )
    ).pipe(Effect.andThen(PubSub.publish(slot.grew, undefined)))

/** Begins a run in a session of a new process, from `state`; returns once it has started. @internal */
export const begin = (
  store: Store,
  slot: Entry.Slot,
  input: string | Content.Message,
  generation: number,
  state: Option.Option<Session.State>
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const id = (yield* Ref.get(slot.entry)).id
    const made = yield* Deferred.make<Session.Service>()
    const session = yield* store
      .factory({ id, state, observer: observerOf(slot, generation, made) })
      .pipe(Scope.provide(store.scope))
    yield* Deferred.succeed(made, session)
    // The run waits until the entry names its fiber: a run that ends at once still finds itself there.
    const go = yield* Deferred.make<void>()
    const started = yield* Deferred.make<void>()
    const body = Deferred.await(go).pipe(
      Effect.andThen(Deferred.succeed(started, undefined)),
      Effect.andThen(session.run(input)),
      Effect.onExit(ended(slot, generation, session))
    )
    const fiber = yield* Effect.forkIn(body, store.scope)
    yield* Ref.update(slot.entry, (entry) => ({
      ...entry,
      live: Option.some({ generation, session, fiber }),
      pending: Option.some(input)
    }))
    yield* Deferred.succeed(go, undefined)
    yield* Deferred.await(started)
  })

/** The session's history: its live session's, else the recorded state's. @internal */
export const historyOf = (entry: Entry.Entry): Effect.Effect<Content.History> =>
  Option.match(entry.live, {
    onNone: () => Effect.succeed(Option.match(entry.state, { onNone: () => [], onSome: (s) => s.history })),
    onSome: (live) => live.session.history
  })

/** The entry as the sessions list shows it. @internal */
export const summaryOf = (entry: Entry.Entry): Effect.Effect<InspectorStore.SessionSummary> =>
  Effect.map(historyOf(entry), (history) => ({
    ...Entry.shown(entry),
    runs: entry.runs,
    retries_used: entry.retries.used,
    retries_left: entry.retries.left,
    messages: history.length,
    paused: entry.lastRun?.status === null ? (entry.lastRun.paused ?? null) : null
  }))

/** A page of the sessions. @internal */
export const sessions = (
  store: Store,
  query: InspectorStore.SessionQuery
): Effect.Effect<InspectorStore.SessionPage, InspectorStore.StoreUnavailable> =>
  Effect.gen(function* () {
    yield* available(store)
    const all = yield* Ref.get(store.slots)
    // One synchronous pass over every entry: filtering and ordering need no effect.
    const entries = yield* Effect.sync(() => Array.from(all.values(), (slot) => Ref.getUnsafe(slot.entry)))
    const matching = entries
      .map((entry) => ({ entry, shown: Entry.shown(entry) }))
      .filter(({ shown }) => Runs.matches(shown, query))
      .sort((a, b) => Runs.byActivity(a.shown, b.shown))
    const page = matching.slice(query.offset, query.offset + query.limit)
    return { total: matching.length, sessions: yield* Effect.forEach(page, ({ entry }) => summaryOf(entry)) }
  })

/** The entry of a session, while the store is there. @internal */
export const entryOf = (
  store: Store,
  id: string
): Effect.Effect<Entry.Entry, InspectorStore.SessionNotFound | InspectorStore.StoreUnavailable> =>
  Effect.andThen(
    available(store),
    Effect.flatMap(slotOf(store, id), (slot) => Ref.get(slot.entry))
  )

/** The stored events after `after`, then each new one as it is stored. @internal */
export const follow = (
  store: Store,
  id: string,
  after: number
): Stream.Stream<InspectorStore.LoggedEvent, InspectorStore.SessionNotFound | InspectorStore.StoreUnavailable> =>
  Stream.unwrap(
    Effect.gen(function* () {
      yield* available(store)
      const slot = yield* slotOf(store, id)
      // Subscribed before the first read: an event stored in between wakes the next read.
      const wakes = yield* PubSub.subscribe(slot.grew)
      const read = (cursor: number) =>
        Effect.gen(function* () {
          yield* available(store)
          const events = Entry.eventsOf(yield* Ref.get(slot.entry), { after: cursor, limit: Number.MAX_SAFE_INTEGER })
          return [events.at(-1)?.seq ?? cursor, events] as const
        })
      return Stream.concat(Stream.succeed(undefined), Stream.fromSubscription(wakes)).pipe(
        Stream.mapAccumEffect(
          () => after,
          (cursor, _) => read(cursor)
        )
      )
    })
  )

const refused = (id: string, action: "resume" | "interrupt", reason: string) =>
  new InspectorStore.ActionRefused({ session_id: id, action, reason })

/** Runs the session's unfinished run again in a new process. @internal */
export const resume = (
  store: Store,
  id: string
): Effect.Effect<
  void,
  InspectorStore.SessionNotFound | InspectorStore.ActionRefused | InspectorStore.StoreUnavailable
> =>
  Effect.gen(function* () {
    yield* available(store)
    const slot = yield* slotOf(store, id)
    const entry = yield* Ref.get(slot.entry)
    const { status } = Entry.shown(entry)
    if (status !== "resumable" || Option.isNone(entry.pending)) {
      return yield* refused(id, "resume", `it has no unfinished run (it is ${status})`)
    }
    yield* begin(store, slot, entry.pending.value, entry.generation, entry.state)
  })

/** Interrupts the session's run in progress, and waits for it to end. @internal */
export const interrupt = (
  store: Store,
  id: string
): Effect.Effect<
  void,
  InspectorStore.SessionNotFound | InspectorStore.ActionRefused | InspectorStore.StoreUnavailable
> =>
  Effect.flatMap(entryOf(store, id), (entry) =>
    Option.match(entry.live, {
      onNone: () => Effect.fail(refused(id, "interrupt", "it has no run in progress")),
      onSome: (live) => Fiber.interrupt(live.fiber)
    })
  )

/** Begins a run of the session, made on its first run. @internal */
export const start = (
  store: Store,
  id: string,
  input: string | Content.Message
): Effect.Effect<void, InspectorStore.StoreUnavailable> =>
  Effect.gen(function* () {
    yield* available(store)
    const slot = yield* slotOrNew(store, id)
    const entry = yield* Ref.get(slot.entry)
    if (Option.isSome(entry.live) || Option.isSome(entry.pending)) {
      return yield* Effect.die(new Error(`the session "${id}" has a run in progress or unfinished`))
    }
    yield* begin(store, slot, input, entry.generation, entry.state)
  })

/** The outcome of the session's run in progress, once it ends. @internal */
export const awaitRun = (store: Store, id: string): Effect.Effect<Option.Option<RunOutcome.RunOutcome>> =>
  Effect.flatMap(Ref.get(store.slots), (all) => {
    const slot = all.get(id)
    if (slot === undefined) return Effect.succeedNone
    return Effect.flatMap(Ref.get(slot.entry), (entry) =>
      Option.match(entry.live, {
        onNone: () => Effect.succeedNone,
        onSome: (live) =>
          Effect.map(Fiber.await(live.fiber), Exit.match({ onFailure: () => Option.none(), onSuccess: Option.some }))
      })
    )
  })

/** Stops the session's run as a killed process would. @internal */
export const crash = (store: Store, id: string): Effect.Effect<void, InspectorStore.ActionRefused> =>
  Effect.gen(function* () {
    const slot = yield* Effect.mapError(slotOf(store, id), () => refused(id, "interrupt", "no such session"))
    const entry = yield* Ref.get(slot.entry)
    if (Option.isNone(entry.live)) return yield* refused(id, "interrupt", "it has no run in progress")
    // A new process: the old one's events and end are no longer recorded.
    yield* Ref.set(slot.entry, { ...entry, generation: entry.generation + 1, live: Option.none() })
    yield* Fiber.interrupt(entry.live.value.fiber)
    yield* PubSub.publish(slot.grew, undefined)
  })
