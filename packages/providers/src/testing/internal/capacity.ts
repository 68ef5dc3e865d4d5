import * as Option from "effect/Option"

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
  requestsPerSecond: number,
  now: number
): readonly [Option.Option<number>, Window] => {
  const recent = window.filter((at) => at > now - second)
  if (recent.length < requestsPerSecond) return [Option.none(), [...recent, now]]
  return [Option.some(Math.max(1, (recent[recent.length - requestsPerSecond] ?? now) + second - now)), recent]
}
