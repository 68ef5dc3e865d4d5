/**
 * A token bucket that lends: the pure core of the provider-wide limiter.
 *
 * The bucket holds up to `capacity` tokens and refills continuously at
 * `limit` tokens per `window`, the way providers meter requests and tokens
 * per minute. A reservation always succeeds: it takes its cost now, even
 * into debt, and says how long to wait until the refill has paid that debt.
 * Waiting callers therefore start in the order they reserved, at the refill
 * rate, and no caller is refused for good (a cost above the capacity waits
 * longer, it is not rejected).
 *
 * Whatever the times and costs, the tokens whose waits end within any
 * interval of length `w` add up to at most `capacity + w × rate`: the bound
 * the property tests check.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

/**
 * A bucket's state: its tokens (negative while in debt) when last touched,
 * and when that was (epoch milliseconds on the store's clock).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Bucket = Schema.Struct({ tokens: Schema.Number, at: Schema.Number })

/**
 * @since 0.1.0
 * @category models
 */
export interface Bucket extends Schema.Schema.Type<typeof Bucket> {}

/**
 * A rate: `capacity` tokens at most in the bucket, refilled at `perMillisecond`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rate {
  readonly capacity: number
  readonly perMillisecond: number
}

/**
 * `limit` tokens per `window`, with a bucket of `burst` tokens (default:
 * `limit`, a full window's worth, as providers allow).
 *
 * @since 0.1.0
 * @category constructors
 */
export const rate = (options: {
  readonly limit: number
  readonly window: Duration.Input
  readonly burst?: number | undefined
}): Rate => ({
  capacity: options.burst ?? options.limit,
  perMillisecond: options.limit / Duration.toMillis(options.window)
})

/**
 * A full bucket.
 *
 * @since 0.1.0
 * @category constructors
 */
export const full = (rate: Rate): Bucket => ({ tokens: rate.capacity, at: 0 })

/** The tokens at `now`: refilled since `at`, never above the capacity. A clock that went back refills nothing. */
const level = (bucket: Bucket, rate: Rate, now: number): number =>
  Math.min(rate.capacity, bucket.tokens + Math.max(0, now - bucket.at) * rate.perMillisecond)

/**
 * Takes `cost` tokens at `now`: how many milliseconds to wait before going
 * ahead (0 when the bucket had them), and the bucket after.
 *
 * @since 0.1.0
 * @category transitions
 */
export const reserve = (bucket: Bucket, rate: Rate, now: number, cost: number): readonly [number, Bucket] => {
  const tokens = level(bucket, rate, now) - cost
  return [tokens >= 0 ? 0 : -tokens / rate.perMillisecond, { tokens, at: Math.max(bucket.at, now) }]
}

/**
 * Corrects an earlier reservation by `delta` tokens at `now`: a positive
 * delta takes more (the call cost more than reserved), a negative one gives
 * tokens back (never above the capacity).
 *
 * @since 0.1.0
 * @category transitions
 */
export const adjust = (bucket: Bucket, rate: Rate, now: number, delta: number): Bucket => ({
  tokens: Math.min(rate.capacity, level(bucket, rate, now) - delta),
  at: Math.max(bucket.at, now)
})
