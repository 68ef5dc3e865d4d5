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
 * The arrival times (ms) of the requests admitted in the last second, oldest first.
 *
 * @since 1.0.0
 * @category models
 */
export type Window = ReadonlyArray<number>

/**
 * No request admitted yet.
 *
 * @since 1.0.0
 * @category constructors
 */
export const empty: Window = []

const second = 1_000

/**
 * Admits a request arriving at `now`, or refuses it with the milliseconds
 * until the window has room again (at least 1); the window after.
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
  const recent = window.filter((at) => at > now - second)
  if (recent.length < requestsPerSecond) return [Option.none(), [...recent, now]]
  return [Option.some(Math.max(1, (recent[recent.length - requestsPerSecond] ?? now) + second - now)), recent]
}
