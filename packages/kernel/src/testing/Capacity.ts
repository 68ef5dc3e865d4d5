/**
 * A provider's capacity as a pure rule: at most `requests_per_second`
 * requests admitted in any one second (a sliding window on the server's
 * clock); a request above that is refused with the milliseconds until the
 * window has room again, which is the retry-after a provider sends with its
 * 429. Refused requests do not count against the window.
 *
 * The providers' fake server and the fleet simulator (`PolicyComparison`)
 * both admit by this rule, so a simulated fleet meets the same provider as
 * one over real sockets.
 *
 * @since 1.0.0
 */
import * as Option from "effect/Option"

/**
 * The requests admitted in the last second: a value, like an array of their
 * arrival times (ms), oldest first. Admitting appends in place when no other
 * window shares the tail, so a long run admits in constant time however
 * large the capacity; a window admitted from twice is copied, never changed.
 *
 * @since 1.0.0
 * @category models
 */
export interface Window {
  /** Arrival times; the window's are those from `from` to before `to`. */
  readonly log: Array<number>
  readonly from: number
  readonly to: number
}

/**
 * No request admitted yet.
 *
 * @since 1.0.0
 * @category constructors
 */
export const empty: Window = { log: [], from: 0, to: 0 }

const second = 1_000

/** Past this many expired entries at the head of a log, and half of it, the live part moves to a new one. */
const compactAfter = 1_024

/** The window with `now` admitted: in place when this window owns the log's tail, on a copy otherwise. */
const append = (log: Array<number>, from: number, to: number, now: number): Window => {
  const owned = log.length === to && (from <= compactAfter || 2 * from <= to)
  const next = owned ? log : log.slice(from, to)
  next.push(now)
  return { log: next, from: owned ? from : 0, to: next.length }
}

/**
 * Admits a request arriving at `now`, or refuses it with the milliseconds
 * until the window has room again (at least 1); the window after. `now`
 * comes from a clock: it is never before an arrival the window admitted.
 *
 * @example
 * ```ts
 * import { Capacity } from "@agent-kernel/kernel/testing"
 *
 * const [first, window] = Capacity.admit(Capacity.empty, 1, 0) // admitted: Option.none()
 * const [second] = Capacity.admit(window, 1, 250) // refused: Option.some(750)
 * ```
 *
 * @since 1.0.0
 * @category admission
 */
export const admit = (
  window: Window,
  requestsPerSecond: number,
  now: number
): readonly [Option.Option<number>, Window] => {
  const { log, to } = window
  let from = window.from
  while (from < to && (log[from] ?? now) <= now - second) from++
  if (to - from < requestsPerSecond) return [Option.none(), append(log, from, to, now)]
  return [Option.some(Math.max(1, (log[to - requestsPerSecond] ?? now) + second - now)), { log, from, to }]
}

/**
 * A refusal's wait as a `retry-after` header says it: whole seconds, rounded
 * up, so that a client waiting it never comes back before the window has room.
 *
 * @example
 * ```ts
 * import { Capacity } from "@agent-kernel/kernel/testing"
 *
 * Capacity.retryAfterSeconds(750) // 1
 * Capacity.retryAfterSeconds(1_001) // 2
 * ```
 *
 * @since 1.0.0
 * @category admission
 */
export const retryAfterSeconds = (waitMs: number): number => Math.ceil(waitMs / second)
