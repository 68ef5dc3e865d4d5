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
 * `fromSnapshot` write and read the recorded sessions as JSON.
 *
 * @since 0.1.0
 */
import { Content, EventBus, KernelEvent, type RetryBudget, type RunOutcome, Session } from "@agent-kernel/kernel"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as InspectorStore from "../InspectorStore.js"
import * as Runs from "../Runs.js"

/**
 * Makes the kernel session the store hosts under `id`: from `state` (none for
 * a new session), with `observer` among its `EventBus`'s observers (provide
 * the same bus to a `PluginToolbox`, so its breaker changes are recorded
 * too). It lives until the store's scope closes.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionFactory = (init: {
  readonly id: string
  readonly state: Option.Option<Session.State>
  readonly observer: EventBus.Observer
}) => Effect.Effect<Session.Service, never, Scope.Scope>

/** An append-only list whose newest view appends in place. */
interface Log {
  readonly backing: Array<InspectorStore.LoggedEvent>
  readonly length: number
}

const append = (log: Log, event: KernelEvent.KernelEvent): Log => {
  const backing = log.backing.length === log.length ? log.backing : log.backing.slice(0, log.length)
  backing.push({ seq: log.length + 1, event })
  return { backing, length: log.length + 1 }
}

/** A run in progress in this process: its session and its fiber. */
interface Live {
  readonly generation: number
  readonly session: Session.Service
  readonly fiber: Fiber.Fiber<RunOutcome.RunOutcome>
}

interface Entry {
  readonly id: string
  /** Which process the session's events are recorded from: a crash starts a new one. */
  readonly generation: number
  readonly log: Log
  readonly runs: number
  readonly lastRun: InspectorStore.RunSummary | undefined
  readonly retries: { readonly used: number; readonly left: number | null }
  /** After the last run that ended; before the run in progress. */
  readonly state: Option.Option<Session.State>
  /** The input of the run in progress or left unfinished. */
  readonly pending: Option.Option<string | Content.Message>
  readonly live: Option.Option<Live>
  readonly lastActivity: number
}

interface Slot {
  readonly entry: Ref.Ref<Entry>
  /** Wakes followers when the log grows (or the store goes away). */
  readonly grew: PubSub.PubSub<void>
}

const emptyEntry = (id: string, now: number): Entry => ({
  id,
  generation: 0,
  log: { backing: [], length: 0 },
  runs: 0,
  lastRun: undefined,
  retries: { used: 0, left: null },
  state: Option.none(),
  pending: Option.none(),
  live: Option.none(),
  lastActivity: now
})

/** The entry after one more event of its process. */
const recorded = (entry: Entry, event: KernelEvent.KernelEvent): Entry => {
  const log = append(entry.log, event)
  const seq = log.length
  let { lastRun, runs, retries } = entry
  switch (event.type) {
    case "run_started":
      if (lastRun !== undefined && lastRun.status === null && lastRun.run_id === event.run_id) {
        lastRun = { ...lastRun, last_seq: seq }
      } else {
        runs += 1
        lastRun = {
          run_id: event.run_id,
          index: runs,
          model: event.model,
          input: event.input,
          status: null,
          started_at: event.at,
          ended_at: null,
          first_seq: seq,
          last_seq: seq
        }
      }
      break
    case "run_ended":
      lastRun =
        lastRun === undefined ? undefined : { ...lastRun, status: event.status, ended_at: event.at, last_seq: seq }
      retries = { used: event.retries.session_total, left: retries.left }
      break
    case "retry_scheduled":
    case "fallback":
      retries = { used: event.session_retries_used, left: event.session_retries_left }
      lastRun = lastRun === undefined ? undefined : { ...lastRun, last_seq: seq }
      break
    default:
      lastRun = lastRun === undefined ? undefined : { ...lastRun, last_seq: seq }
  }
  return { ...entry, log, lastRun, runs, retries, lastActivity: Math.max(entry.lastActivity, event.at) }
}

const withBudget = (entry: Entry, budget: RetryBudget.Snapshot): Entry => ({
  ...entry,
  retries: { used: budget.used, left: budget.remaining }
})

const isDelta = (event: KernelEvent.KernelEvent) => event.type === "text_delta" || event.type === "thinking_delta"

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

const entryOfSnapshot = (session: Snapshot["sessions"][number]): Entry =>
  session.events.reduce(recorded, {
    ...emptyEntry(session.id, session.last_activity),
    state: Option.fromNullOr(session.state),
    pending: Option.fromNullOr(session.pending)
  })

const restoreRetries = (entry: Entry, session: Snapshot["sessions"][number]): Entry => ({
  ...entry,
  retries: { used: session.retries_used, left: session.retries_left },
  lastActivity: Math.max(entry.lastActivity, session.last_activity)
})

/**
 * A new, empty store whose sessions `factory` makes. Its fibers and sessions
 * end with the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (factory: SessionFactory): Effect.Effect<MemoryStore, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const slots = yield* Ref.make<ReadonlyMap<string, Slot>>(new Map())
    const gone = yield* Ref.make<Option.Option<string>>(Option.none())

    const available = Effect.flatMap(Ref.get(gone), (message) =>
      Option.isSome(message)
        ? Effect.fail(new InspectorStore.StoreUnavailable({ message: message.value }))
        : Effect.void
    )
    const newSlot = (entry: Entry) => Effect.all({ entry: Ref.make(entry), grew: PubSub.sliding<void>(1) })
    const slotOf = (id: string) =>
      Effect.flatMap(Ref.get(slots), (all) => {
        const slot = all.get(id)
        return slot === undefined
          ? Effect.fail(new InspectorStore.SessionNotFound({ session_id: id }))
          : Effect.succeed(slot)
      })
    const slotOrNew = (id: string) =>
      Effect.flatMap(Ref.get(slots), (all) => {
        const slot = all.get(id)
        if (slot !== undefined) return Effect.succeed(slot)
        return Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.flatMap(newSlot(emptyEntry(id, now)), (made) =>
            Ref.modify(slots, (current): readonly [Slot, ReadonlyMap<string, Slot>] => {
              const existing = current.get(id)
              return existing !== undefined ? [existing, current] : [made, new Map(current).set(id, made)]
            })
          )
        )
      })

    /** The observer of one process of the session: it records until a crash starts another. */
    const observerOf = (
      slot: Slot,
      generation: number,
      session: Deferred.Deferred<Session.Service>
    ): EventBus.Observer => ({
      onEvent: (event) =>
        Effect.gen(function* () {
          const kept = yield* Ref.modify(slot.entry, (entry): readonly [boolean, Entry] =>
            entry.generation === generation ? [true, recorded(entry, event)] : [false, entry]
          )
          if (!kept) return
          if (event.type === "run_started" || event.type === "run_ended") {
            const live = yield* Deferred.poll(session)
            if (Option.isSome(live)) {
              const budget = yield* Effect.flatMap(live.value, (s) => s.retryBudget)
              yield* Ref.update(slot.entry, (entry) =>
                entry.generation === generation ? withBudget(entry, budget) : entry
              )
            }
          }
          yield* PubSub.publish(slot.grew, undefined)
        })
    })

    /** Begins a run in a session of a new process, from the entry's state; returns once it has started. */
    const begin = (
      slot: Slot,
      input: string | Content.Message,
      generation: number,
      state: Option.Option<Session.State>
    ) =>
      Effect.gen(function* () {
        const id = (yield* Ref.get(slot.entry)).id
        const made = yield* Deferred.make<Session.Service>()
        const session = yield* factory({ id, state, observer: observerOf(slot, generation, made) }).pipe(
          Scope.provide(scope)
        )
        yield* Deferred.succeed(made, session)
        // The run waits until the entry names its fiber: a run that ends at once still finds itself there.
        const go = yield* Deferred.make<void>()
        const started = yield* Deferred.make<void>()
        const ended = (exit: Exit.Exit<RunOutcome.RunOutcome>) =>
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
        const body = Deferred.await(go).pipe(
          Effect.andThen(Deferred.succeed(started, undefined)),
          Effect.andThen(session.run(input)),
          Effect.onExit(ended)
        )
        const fiber = yield* Effect.forkIn(body, scope)
        yield* Ref.update(slot.entry, (entry) => ({
          ...entry,
          live: Option.some({ generation, session, fiber }),
          pending: Option.some(input)
        }))
        yield* Deferred.succeed(go, undefined)
        yield* Deferred.await(started)
      })

    const refused = (id: string, action: "resume" | "interrupt", reason: string) =>
      new InspectorStore.ActionRefused({ session_id: id, action, reason })

    const summaryOf = (entry: Entry): Effect.Effect<InspectorStore.SessionSummary> =>
      Effect.map(
        Option.match(entry.live, {
          onNone: () => Effect.succeed(Option.match(entry.state, { onNone: () => 0, onSome: (s) => s.history.length })),
          onSome: (live) => Effect.map(live.session.history, (history) => history.length)
        }),
        (messages) => ({
          id: entry.id,
          ...Runs.statusOf(entry.lastRun, Option.isSome(entry.live)),
          runs: entry.runs,
          retries_used: entry.retries.used,
          retries_left: entry.retries.left,
          messages,
          last_activity: entry.lastActivity
        })
      )

    const eventsOf = (entry: Entry, query: InspectorStore.EventQuery): ReadonlyArray<InspectorStore.LoggedEvent> => {
      const from = Math.max(0, Math.floor(query.after))
      const to = Math.min(entry.log.length, query.until === undefined ? entry.log.length : Math.floor(query.until))
      const out: Array<InspectorStore.LoggedEvent> = []
      for (let i = from; i < to && out.length < query.limit; i++) {
        const logged = entry.log.backing[i]!
        if (!(query.omitDeltas === true && isDelta(logged.event))) out.push(logged)
      }
      return out
    }

    const store: InspectorStore.Service = {
      sessions: (query) =>
        Effect.gen(function* () {
          yield* available
          const all = yield* Ref.get(slots)
          // One synchronous pass over every entry: filtering and ordering need no effect.
          const entries = yield* Effect.sync(() => Array.from(all.values(), (slot) => Ref.getUnsafe(slot.entry)))
          const matching = entries
            .map((entry) => ({
              entry,
              shown: {
                ...Runs.statusOf(entry.lastRun, Option.isSome(entry.live)),
                id: entry.id,
                last_activity: entry.lastActivity
              }
            }))
            .filter(({ shown }) => Runs.matches(shown, query))
            .sort((a, b) => Runs.byActivity(a.shown, b.shown))
          const page = matching.slice(query.offset, query.offset + query.limit)
          return { total: matching.length, sessions: yield* Effect.forEach(page, ({ entry }) => summaryOf(entry)) }
        }),
      session: (id) =>
        Effect.gen(function* () {
          yield* available
          const entry = yield* Ref.get((yield* slotOf(id)).entry)
          const history = yield* Option.match(entry.live, {
            onNone: () => Effect.succeed(Option.match(entry.state, { onNone: () => [], onSome: (s) => s.history })),
            onSome: (live) => live.session.history
          })
          return {
            summary: yield* summaryOf(entry),
            runs: Runs.fromEvents(entry.log.backing.slice(0, entry.log.length)),
            history
          }
        }),
      events: (id, query) =>
        Effect.gen(function* () {
          yield* available
          return eventsOf(yield* Ref.get((yield* slotOf(id)).entry), query)
        }),
      follow: (id, after) =>
        Stream.unwrap(
          Effect.gen(function* () {
            yield* available
            const slot = yield* slotOf(id)
            // Subscribed before the first read: an event stored in between wakes the next read.
            const wakes = yield* PubSub.subscribe(slot.grew)
            const read = (cursor: number) =>
              Effect.gen(function* () {
                yield* available
                const events = eventsOf(yield* Ref.get(slot.entry), { after: cursor, limit: Number.MAX_SAFE_INTEGER })
                return [events.at(-1)?.seq ?? cursor, events] as const
              })
            return Stream.concat(Stream.succeed(undefined), Stream.fromSubscription(wakes)).pipe(
              Stream.mapAccumEffect(
                () => after,
                (cursor, _) => read(cursor)
              )
            )
          })
        ),
      resume: (id) =>
        Effect.gen(function* () {
          yield* available
          const slot = yield* slotOf(id)
          const entry = yield* Ref.get(slot.entry)
          const summary = yield* summaryOf(entry)
          if (summary.status !== "resumable" || Option.isNone(entry.pending)) {
            return yield* refused(id, "resume", `it has no unfinished run (it is ${summary.status})`)
          }
          yield* begin(slot, entry.pending.value, entry.generation, entry.state)
        }),
      interrupt: (id) =>
        Effect.gen(function* () {
          yield* available
          const entry = yield* Ref.get((yield* slotOf(id)).entry)
          if (Option.isNone(entry.live)) return yield* refused(id, "interrupt", "it has no run in progress")
          yield* Fiber.interrupt(entry.live.value.fiber)
        })
    }

    const start = (id: string, input: string | Content.Message) =>
      Effect.gen(function* () {
        yield* available
        const slot = yield* slotOrNew(id)
        const entry = yield* Ref.get(slot.entry)
        if (Option.isSome(entry.live) || Option.isSome(entry.pending)) {
          return yield* Effect.die(new Error(`the session "${id}" has a run in progress or unfinished`))
        }
        yield* begin(slot, input, entry.generation, entry.state)
      })

    const awaitRun = (id: string): Effect.Effect<Option.Option<RunOutcome.RunOutcome>> =>
      Effect.flatMap(Ref.get(slots), (all) => {
        const slot = all.get(id)
        if (slot === undefined) return Effect.succeedNone
        return Effect.flatMap(Ref.get(slot.entry), (entry) =>
          Option.match(entry.live, {
            onNone: () => Effect.succeedNone,
            onSome: (live) =>
              Effect.map(
                Fiber.await(live.fiber),
                Exit.match({ onFailure: () => Option.none(), onSuccess: Option.some })
              )
          })
        )
      })

    const crash = (id: string) =>
      Effect.gen(function* () {
        const slot = yield* Effect.mapError(slotOf(id), () => refused(id, "interrupt", "no such session"))
        const entry = yield* Ref.get(slot.entry)
        if (Option.isNone(entry.live)) return yield* refused(id, "interrupt", "it has no run in progress")
        // A new process: the old one's events and end are no longer recorded.
        yield* Ref.set(slot.entry, { ...entry, generation: entry.generation + 1, live: Option.none() })
        yield* Fiber.interrupt(entry.live.value.fiber)
        yield* PubSub.publish(slot.grew, undefined)
      })

    const wakeAll = Effect.flatMap(Ref.get(slots), (all) =>
      Effect.forEach([...all.values()], (slot) => PubSub.publish(slot.grew, undefined), { discard: true })
    )

    const toSnapshot = Effect.gen(function* () {
      const all = yield* Ref.get(slots)
      const sessions = yield* Effect.forEach([...all.values()], (slot) =>
        Effect.map(Ref.get(slot.entry), (entry) => ({
          id: entry.id,
          state: Option.getOrNull(entry.state),
          pending: Option.getOrNull(entry.pending),
          events: entry.log.backing.slice(0, entry.log.length).map((logged) => logged.event),
          retries_used: entry.retries.used,
          retries_left: entry.retries.left,
          last_activity: entry.lastActivity
        }))
      )
      return yield* Effect.orDie(
        Schema.encodeEffect(SnapshotJson)({ format: "agent-kernel/inspector-memory@1", sessions })
      )
    })

    const addSnapshot = (json: string) =>
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
          Effect.map(newSlot(restoreRetries(entryOfSnapshot(session), session)), (slot) => [session.id, slot] as const)
        )
        yield* Ref.update(slots, (current) => {
          const next = new Map(current)
          for (const [id, slot] of made) next.set(id, slot)
          return next
        })
        return made.length
      })

    return {
      store,
      layer: Layer.succeed(InspectorStore.InspectorStore, store),
      start,
      await: awaitRun,
      run: (id, input) =>
        Effect.flatMap(start(id, input), () =>
          Effect.flatMap(
            awaitRun(id),
            Option.match({
              onNone: () => Effect.die(new Error("the run ended without an outcome")),
              onSome: Effect.succeed
            })
          )
        ),
      crash,
      goAway: (message) => Effect.andThen(Ref.set(gone, Option.some(message)), wakeAll),
      comeBack: Ref.set(gone, Option.none()),
      toSnapshot,
      addSnapshot
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
