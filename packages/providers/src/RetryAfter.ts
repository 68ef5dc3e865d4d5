/**
 * The server's retry hint, read from response headers on every status.
 *
 * Precedence follows the official SDKs: `retry-after-ms` first, then
 * `retry-after` as whole or fractional seconds, or as an HTTP date measured
 * against Effect's `Clock` (so tests can pin "now" with `TestClock`). A date
 * is read by `Headers.parseHttpDate` first; one it refuses that starts with a
 * day name is read by `Date.parse` (a `UTC` or `+0000` zone, a one-digit day,
 * no comma, no zone), since ignoring a date servers do send would let the
 * kernel retry sooner than they asked.
 *
 * A value that is garbage or negative is ignored with a debug log line. It
 * never fails and never throws: a bad hint must not turn a retryable error
 * into a crash. A long hint is kept however long it is (a day, a week): the
 * kernel compares it with `max_retry_wait_ms` and ends the call or falls back,
 * where dropping it would let the kernel retry after its own short backoff,
 * far sooner than the server asked.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Headers from "effect/http/Headers"
import * as Option from "effect/Option"
import * as Result from "effect/Result"

/**
 * The outcome of reading the headers: the hint, if any, and why any header
 * was ignored.
 *
 * @since 0.1.0
 * @category models
 */
export interface Parsed {
  readonly retryAfter: Option.Option<Duration.Duration>
  /** Human-readable notes about headers that were present but ignored. */
  readonly ignored: ReadonlyArray<string>
}

const decimal = /^\s*(\d+(?:\.\d+)?)\s*$/
const dayName = /^\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/i

/** An HTTP date in epoch milliseconds: the standard's formats, then any date `Date.parse` reads after a day name. */
const httpDateMillis = (value: string): Option.Option<number> => {
  const strict = Headers.parseHttpDate(value)
  if (Result.isSuccess(strict)) return Option.some(DateTime.toEpochMillis(strict.success))
  if (!dayName.test(value)) return Option.none()
  const lenient = Date.parse(value)
  return Number.isFinite(lenient) ? Option.some(lenient) : Option.none()
}

const headerOf = (headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const direct = headers[name]
  if (direct !== undefined) return direct
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return headers[key]
  }
  return undefined
}

/**
 * Reads the hint from headers given the current time in epoch milliseconds.
 * Pure, so every form can be tested without a clock.
 *
 * @example
 * ```ts
 * import { RetryAfter } from "@agent-kernel/providers"
 *
 * RetryAfter.parseAt({ "retry-after": "2" }, Date.now()).retryAfter // Some(2 seconds)
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseAt = (headers: Readonly<Record<string, string | undefined>>, nowMillis: number): Parsed => {
  const ignored: Array<string> = []
  const accept = (name: string, raw: string, millis: number): Option.Option<Duration.Duration> => {
    if (!Number.isFinite(millis) || millis < 0) {
      ignored.push(`${name}: ${JSON.stringify(raw)} is negative or not finite`)
      return Option.none()
    }
    return Option.some(Duration.millis(millis))
  }

  const ms = headerOf(headers, "retry-after-ms")
  if (ms !== undefined) {
    const match = decimal.exec(ms)
    if (match?.[1] !== undefined) {
      const parsed = accept("retry-after-ms", ms, Number(match[1]))
      if (Option.isSome(parsed)) return { retryAfter: parsed, ignored }
    } else {
      ignored.push(`retry-after-ms: ${JSON.stringify(ms)} is not a number of milliseconds`)
    }
  }

  const value = headerOf(headers, "retry-after")
  if (value !== undefined) {
    const match = decimal.exec(value)
    if (match?.[1] !== undefined) {
      return { retryAfter: accept("retry-after", value, Number(match[1]) * 1000), ignored }
    }
    const date = httpDateMillis(value)
    if (Option.isSome(date)) {
      // A date already in the past means "now": the wait is over.
      return { retryAfter: accept("retry-after", value, Math.max(0, date.value - nowMillis)), ignored }
    }
    ignored.push(`retry-after: ${JSON.stringify(value)} is neither seconds nor an HTTP date`)
  }
  return { retryAfter: Option.none(), ignored }
}

/**
 * Reads the hint from headers, relative to Effect's `Clock`, and logs (at
 * debug level) any header it had to ignore.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  headers: Readonly<Record<string, string | undefined>>
): Effect.Effect<Option.Option<Duration.Duration>> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const parsed = parseAt(headers, now)
    return parsed.ignored.length === 0
      ? Effect.succeed(parsed.retryAfter)
      : Effect.as(
          Effect.logDebug("ignored an unusable retry hint", ...parsed.ignored).pipe(
            Effect.annotateLogs("module", "RetryAfter")
          ),
          parsed.retryAfter
        )
  })
