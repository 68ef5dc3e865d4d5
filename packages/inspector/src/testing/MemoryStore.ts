/**
 * An `InspectorStore` in memory, over real kernel sessions: the store hosts
 * each session (made by a `SessionFactory` you give it, with your provider
 * and tools), runs inputs through it on fibers of its own, and records every
 * event the session publishes with its sequence number. For tests, demos and
 * benchmarks of the inspector; the durable store's adapter is the production
 * store.
 *
 * It can play what a durable store meets: `crash` stops a run the way a
 * killed process does (the run is left unfinished, `resumable`, and nothing
 * it did after is recorded), `resume` runs it again from the state before it
 * in a new session, its events continuing the same sequence; `goAway` makes
 * every read fail as a store that is gone does. `toSnapshot` and
 * `addSnapshot` write and read the recorded sessions as JSON.
 *
 * @since 0.1.0
 */
import { Content, EventBus, KernelEvent, type RunOutcome, Session } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as InspectorStore from "../InspectorStore.js"
import * as Runs from "../Runs.js"
import * as Entry from "./internal/entry.js"
import * as Memory from "./internal/memory.js"

/**
 * Makes the kernel session the store hosts under `id`: from `state` (none for
 * a new session), with `observer` among its `EventBus`'s observers (provide
 * the same bus to a `PluginToolbox`, so its breaker changes are recorded
 * too). It lives until the store's scope closes.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionFactory = Memory.SessionFactory

/**
 * The in-memory store, and what a test does with it.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryStore {
  /** The store as the inspector reads it. */
  readonly store: InspectorStore.Service
  /** `store` as a layer. */
  readonly layer: Layer.Layer<InspectorStore.InspectorStore>
  /**
   * Starts a run of the session `id` (made on its first run) and returns as
   * it has begun; the run goes on on the store's fiber.
   */
  readonly start: (id: string, input: string | Content.Message) => Effect.Effect<void, InspectorStore.StoreUnavailable>
  /** Waits for the session's run in progress, if any, to end. */
  readonly await: (id: string) => Effect.Effect<Option.Option<RunOutcome.RunOutcome>>
  /** Runs an input to its end. */
  readonly run: (
    id: string,
    input: string | Content.Message
  ) => Effect.Effect<RunOutcome.RunOutcome, InspectorStore.StoreUnavailable>
  /**
   * Stops the session's run as a killed process would: the run is left
   * unfinished (`resumable`), and nothing it does from now on is recorded.
   */
  readonly crash: (id: string) => Effect.Effect<void, InspectorStore.ActionRefused>
  /** From now on every read and action fails with `StoreUnavailable(message)`; followers too. */
  readonly goAway: (message: string) => Effect.Effect<void>
  /** The store answers again. */
  readonly comeBack: Effect.Effect<void>
  /** The recorded sessions as JSON (see `Snapshot`). Runs in progress are written as unfinished. */
  readonly toSnapshot: Effect.Effect<string>
  /** Adds the sessions of a snapshot (replacing sessions of the same ids). */
  readonly addSnapshot: (json: string) => Effect.Effect<number, InspectorStore.StoreUnavailable>
}

/**
 * The JSON form of recorded sessions: each with its events in sequence
 * order, its state, its retry budget and its last activity.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Snapshot = Schema.Struct({
  format: Schema.Literal("agent-kernel/inspector-memory@1"),
  sessions: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      state: Schema.NullOr(Session.State),
      /** The input of a run left unfinished. */
      pending: Schema.NullOr(Schema.Union([Schema.String, Content.Message])),
      events: Schema.Array(KernelEvent.KernelEvent),
      retries_used: Schema.Number,
      retries_left: Schema.NullOr(Schema.Number),
      last_activity: Schema.Number
    })
  )
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Snapshot extends Schema.Schema.Type<typeof Snapshot> {}

const SnapshotJson = Schema.fromJsonString(Schema.toCodecJson(Snapshot))

type SnapshotSession = Snapshot["sessions"][number]

const entryOfSnapshot = (session: SnapshotSession): Entry.Entry => {
  const entry = session.events.reduce(Entry.recorded, {
    ...Entry.empty(session.id, session.last_activity),
    state: Option.fromNullOr(session.state),
    pending: Option.fromNullOr(session.pending)
  })
  return {
    ...entry,
    retries: { used: session.retries_used, left: session.retries_left },
    lastActivity: Math.max(entry.lastActivity, session.last_activity)
  }
}

const snapshotOf = (entry: Entry.Entry): SnapshotSession => ({
  id: entry.id,
  state: Option.getOrNull(entry.state),
  pending: Option.getOrNull(entry.pending),
  events: Entry.allEvents(entry).map((logged) => logged.event),
  retries_used: entry.retries.used,
  retries_left: entry.retries.left,
  last_activity: entry.lastActivity
})

const toSnapshot = (store: Memory.Store): Effect.Effect<string> =>
  Effect.gen(function* () {
    const all = yield* Ref.get(store.slots)
    const sessions = yield* Effect.forEach([...all.values()], (slot) => Effect.map(Ref.get(slot.entry), snapshotOf))
    return yield* Effect.orDie(
      Schema.encodeEffect(SnapshotJson)({ format: "agent-kernel/inspector-memory@1", sessions })
    )
  })

const addSnapshot = (store: Memory.Store, json: string): Effect.Effect<number, InspectorStore.StoreUnavailable> =>
  Effect.gen(function* () {
    const snapshot = yield* Schema.decodeUnknownEffect(SnapshotJson)(json).pipe(
      Effect.mapError(
        (error) =>
          new InspectorStore.StoreUnavailable({
            message: `not an agent-kernel inspector snapshot (${error.message.split("\n")[0]})`
          })
      )
    )
    const made = yield* Effect.forEach(snapshot.sessions, (session) =>
      Effect.map(Memory.newSlot(entryOfSnapshot(session)), (slot) => [session.id, slot] as const)
    )
    yield* Ref.update(store.slots, (current) => {
      const next = new Map(current)
      for (const [id, slot] of made) next.set(id, slot)
      return next
    })
    return made.length
  })

/**
 * A new, empty store whose sessions `factory` makes. Its fibers and sessions
 * end with the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (factory: SessionFactory): Effect.Effect<MemoryStore, never, Scope.Scope> =>
  Effect.map(Memory.make(factory), (store) => {
    const service: InspectorStore.Service = {
      sessions: (query) => Memory.sessions(store, query),
      session: (id) =>
        Effect.flatMap(Memory.entryOf(store, id), (entry) =>
          Effect.map(Memory.summaryOf(entry), (summary) => ({ summary, runs: Runs.fromEvents(Entry.allEvents(entry)) }))
        ),
      history: (id) => Effect.flatMap(Memory.entryOf(store, id), Memory.historyOf),
      events: (id, query) => Effect.map(Memory.entryOf(store, id), (entry) => Entry.eventsOf(entry, query)),
      follow: (id, after) => Memory.follow(store, id, after),
      resume: (id) => Memory.resume(store, id),
      interrupt: (id) => Memory.interrupt(store, id)
    }
    const run = (id: string, input: string | Content.Message) =>
      Effect.flatMap(Memory.start(store, id, input), () =>
        Effect.flatMap(
          Memory.awaitRun(store, id),
          Option.match({
            onNone: () => Effect.die(new Error(`the run of "${id}" ended without an outcome (interrupted)`)),
            onSome: Effect.succeed
          })
        )
      )
    return {
      store: service,
      layer: Layer.succeed(InspectorStore.InspectorStore, service),
      start: (id, input) => Memory.start(store, id, input),
      await: (id) => Memory.awaitRun(store, id),
      run,
      crash: (id) => Memory.crash(store, id),
      goAway: (message) => Effect.andThen(Ref.set(store.gone, Option.some(message)), Memory.wakeAll(store)),
      comeBack: Ref.set(store.gone, Option.none()),
      toSnapshot: toSnapshot(store),
      addSnapshot: (json) => addSnapshot(store, json)
    } satisfies MemoryStore
  })

/**
 * A session factory for sessions with no model: for a store read from a
 * snapshot, whose sessions are never run again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const noSessions: SessionFactory = ({ id }) =>
  Effect.die(new Error(`the session "${id}" cannot run: this store only holds recorded sessions`))

/**
 * The observer's bus, for a factory: an `EventBus` with the store's observer
 * and any of your own.
 *
 * @since 0.1.0
 * @category constructors
 */
export const busWith = (
  observer: EventBus.Observer,
  others: ReadonlyArray<EventBus.Observer> = []
): Effect.Effect<EventBus.Service> => EventBus.make([observer, ...others])
