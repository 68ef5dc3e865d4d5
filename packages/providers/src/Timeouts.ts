/**
 * The three timeouts of one model call, each mapped to a `Timeout` error:
 *
 * - `connect`: from sending until the socket is connected (TCP, plus TLS for
 *   https). Only observable with `NodeTransport.layer`.
 * - `firstByte`: from connected until the response status and headers arrive.
 *   For a non-streaming call the server generates the whole answer first, so
 *   this one is long by default.
 * - `idle`: the longest silence allowed between two chunks of the body, in a
 *   stream or not.
 *
 * All three run on Effect's `Clock`, so `TestClock` drives them while the
 * socket is real.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"

/**
 * User-facing timeout options; every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: 10 seconds. */
  readonly connect?: Duration.DurationInput | undefined
  /** Default: 10 minutes (the official SDKs' whole-request default). */
  readonly firstByte?: Duration.DurationInput | undefined
  /** Default: 60 seconds. */
  readonly idle?: Duration.DurationInput | undefined
}

/**
 * Resolved timeouts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeouts {
  readonly connect: Duration.Duration
  readonly firstByte: Duration.Duration
  readonly idle: Duration.Duration
}

/**
 * The defaults.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Timeouts = {
  connect: Duration.seconds(10),
  firstByte: Duration.minutes(10),
  idle: Duration.seconds(60)
}

/**
 * Fills in defaults.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolve = (options?: Options): Timeouts => ({
  connect: Duration.decode(options?.connect ?? defaults.connect),
  firstByte: Duration.decode(options?.firstByte ?? defaults.firstByte),
  idle: Duration.decode(options?.idle ?? defaults.idle)
})

/**
 * Which timeout fired; recorded as `details.phase` of the `Timeout` error.
 *
 * @since 0.1.0
 * @category models
 */
export type Phase = "connect" | "first_byte" | "idle"
