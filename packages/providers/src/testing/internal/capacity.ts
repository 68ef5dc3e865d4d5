import * as Option from "effect/Option"
import type * as FaultPlan from "../FaultPlan.js"

/** The arrival times (server Clock, ms) of the requests admitted in the last second, oldest first. */
export type Window = ReadonlyArray<number>

/** @internal */
export const empty: Window = []

const second = 1_000

/**
 * Admits a request arriving at `now`, or refuses it with the milliseconds
 * until the window has room again; the window after.
 *
 * @internal
 */
export const admit = (
  window: Window,
  capacity: FaultPlan.Capacity,
  now: number
): readonly [Option.Option<number>, Window] => {
  const recent = window.filter((at) => at > now - second)
  if (recent.length < capacity.requests_per_second) return [Option.none(), [...recent, now]]
  return [
    Option.some(Math.max(1, (recent[recent.length - capacity.requests_per_second] ?? now) + second - now)),
    recent
  ]
}
