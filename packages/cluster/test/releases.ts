/**
 * The instants at which the provider-wide limiter let requests go, for the
 * multi-process tests that hold it to its bound. `RateBucket`'s guarantee
 * (the tokens whose waits end within any interval of length w add up to at
 * most capacity + w × rate) is about these instants: a reservation's time on
 * the store's clock plus the wait it was given. The arrivals the fake
 * provider records are each of them plus the request's way there (the
 * reservation's answer from Postgres, the timer, the HTTP send), which a
 * loaded machine stretches unevenly: a window of arrivals can hold more than
 * the bound without the limiter letting one request too many go. So the
 * workers record the releases (`recording`) and the tests check the bound
 * exactly on them (`excess`), and check that every request the provider saw
 * was one of them. For the adaptive limiter, whose rate moves with the
 * provider's answers, the workers record every committed update of its state
 * instead, and the tests check that together they make one history
 * (`histories`).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as RateBucket from "../src/RateBucket.js"
import * as StateStore from "../src/StateStore.js"

/**
 * The requests limit every worker process's limiter has (`rate` a second,
 * burst 1): the workers build their limiter from it and the tests hold the
 * releases to the bound it gives, so the two cannot drift apart.
 */
export const workersLimit = (rate: number) => ({ limit: rate, window: "1 second", burst: 1 }) as const

/**
 * One committed update of an adaptive limiter's state (`ProviderLimiter`'s
 * key `limiter/<key>/adaptive/<model>`): the state it read and the state it
 * wrote, as the store holds them.
 */
export interface Transition {
  readonly before: unknown
  readonly after: unknown
}

/**
 * The `StateStore` in context, recording into `releases` each committed
 * reservation of a limiter's requests bucket (`ProviderLimiter`'s key
 * `limiter/<key>/requests`, whose result is the wait): the store's clock at
 * the reservation plus the wait, in epoch milliseconds; and into
 * `transitions`, when given, each committed update of an adaptive state.
 */
export const recording = (
  releases: Array<number>,
  transitions?: Array<Transition>
): Layer.Layer<StateStore.StateStore, never, StateStore.StateStore> =>
  Layer.effect(
    StateStore.StateStore,
    Effect.map(
      StateStore.StateStore,
      (store): StateStore.Service => ({
        modify: (options) => {
          // The update's last run is the committed one (a store may run it again after a conflict).
          let release: number | undefined
          let transition: Transition | undefined
          return Effect.tap(
            store.modify({
              ...options,
              f: (state, now) => {
                const [result, next] = options.f(state, now)
                const requests = options.key.startsWith("limiter/") && options.key.endsWith("/requests")
                release = requests && typeof result === "number" ? now + result : undefined
                transition = options.key.includes("/adaptive/") ? { before: state, after: next } : undefined
                return [result, next]
              }
            }),
            () =>
              Effect.sync(() => {
                if (release !== undefined) releases.push(release)
                if (transition !== undefined) transitions?.push(transition)
              })
          )
        }
      })
    )
  )

/**
 * Whether the recorded updates of one key, from every process, make one
 * history, in which each update reads the state the one
 * before it wrote: the states read more often than written (`sources`, with
 * reads minus writes) must be the initial state alone, read once, and those
 * written more often than read (`sinks`, with the same difference) the last
 * state alone, at −1. Every process keeping its
 * own state would read `initial` once each; an update lost to another that
 * read the same state would leave that state read twice.
 */
export const histories = (
  transitions: ReadonlyArray<{ readonly before: string; readonly after: string }>
): {
  readonly sources: ReadonlyArray<readonly [string, number]>
  readonly sinks: ReadonlyArray<readonly [string, number]>
} => {
  const balance = new Map<string, number>()
  const add = (state: string, by: number) => balance.set(state, (balance.get(state) ?? 0) + by)
  for (const { after, before } of transitions) {
    add(before, 1)
    add(after, -1)
  }
  const entries = [...balance]
  return { sources: entries.filter(([, n]) => n > 0), sinks: entries.filter(([, n]) => n < 0) }
}

/**
 * How far the releases go past the bound: the most, over every run of
 * consecutive releases (sorted), of its count minus `capacity + span × rate`
 * (span: from its first to its last). At most 0 when the limiter kept its
 * guarantee, but for rounding: a release is epoch milliseconds in a double,
 * exact to about 0.0002 ms (`tolerance`).
 */
export const excess = (releases: ReadonlyArray<number>, rate: RateBucket.Rate): number => {
  const sorted = [...releases].sort((a, b) => a - b)
  let most = Number.NEGATIVE_INFINITY
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) {
      most = Math.max(most, j - i + 1 - (rate.capacity + (sorted[j]! - sorted[i]!) * rate.perMillisecond))
    }
  }
  return most
}

/**
 * What `excess` may be when the bound holds: the rounding of releases in
 * epoch milliseconds (about 0.0002 ms each) at up to 1,000 requests a second,
 * with room to spare; one request too many is an excess of 1.
 */
export const tolerance = 1e-3

/**
 * How much earlier than the limiter let it go a request reached the provider,
 * at most: over the sorted arrivals and releases, the most by which the k-th
 * release is later than the k-th arrival. When every request waited for a
 * release of its own, the k-th arrival has k releases at or before it, so this
 * is at most 0, but for the arrivals' whole milliseconds (`arrivalTolerance`);
 * a request sent before its wait was over makes it the time it was early by.
 */
export const earliness = (arrivals: ReadonlyArray<number>, releases: ReadonlyArray<number>): number => {
  const sortedArrivals = [...arrivals].sort((a, b) => a - b)
  const sortedReleases = [...releases].sort((a, b) => a - b)
  let most = Number.NEGATIVE_INFINITY
  for (let k = 0; k < Math.min(sortedArrivals.length, sortedReleases.length); k++) {
    most = Math.max(most, sortedReleases[k]! - sortedArrivals[k]!)
  }
  return most
}

/**
 * What `earliness` may be when every request waited: the fake provider reads
 * its arrival times from a clock in whole milliseconds, so an arrival may read
 * up to 1 ms before the fractional release it followed.
 */
export const arrivalTolerance = 1
