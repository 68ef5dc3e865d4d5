import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as TestClock from "effect/testing/TestClock"
import { RetryAfter } from "../src/index.js"
import { FaultPlan } from "../src/testing/index.js"
import { apis, failure, setup } from "./support.js"

const NOW = Date.parse("2026-11-30T06:00:00Z")
const millisOf = (parsed: RetryAfter.Parsed) => Option.map(parsed.retryAfter, Duration.toMillis)

describe("RetryAfter.parseAt", () => {
  it("reads retry-after as whole and fractional seconds", () => {
    expect(millisOf(RetryAfter.parseAt({ "retry-after": "7" }, NOW))).toEqual(Option.some(7000))
    expect(millisOf(RetryAfter.parseAt({ "retry-after": "1.5" }, NOW))).toEqual(Option.some(1500))
  })

  it("reads retry-after-ms and prefers it over retry-after", () => {
    expect(millisOf(RetryAfter.parseAt({ "retry-after-ms": "250" }, NOW))).toEqual(Option.some(250))
    expect(millisOf(RetryAfter.parseAt({ "retry-after-ms": "250", "retry-after": "9" }, NOW))).toEqual(Option.some(250))
  })

  it("falls back to retry-after when retry-after-ms is garbage", () => {
    const parsed = RetryAfter.parseAt({ "retry-after-ms": "soon", "retry-after": "3" }, NOW)
    expect(millisOf(parsed)).toEqual(Option.some(3000))
    expect(parsed.ignored).toHaveLength(1)
  })

  it("reads an HTTP date relative to now, and a past date as zero", () => {
    expect(millisOf(RetryAfter.parseAt({ "retry-after": "Mon, 30 Nov 2026 06:00:42 GMT" }, NOW))).toEqual(
      Option.some(42_000)
    )
    expect(millisOf(RetryAfter.parseAt({ "retry-after": "Mon, 30 Nov 2026 05:00:00 GMT" }, NOW))).toEqual(
      Option.some(0)
    )
  })

  it.each([
    ["a UTC zone name", "Mon, 30 Nov 2026 06:00:42 UTC", 42_000],
    ["a numeric zone", "Mon, 30 Nov 2026 06:00:42 +0000", 42_000],
    ["a numeric zone east of UTC", "Mon, 30 Nov 2026 07:00:42 +0100", 42_000],
    ["a one-digit day", "Tue, 1 Dec 2026 06:00:00 GMT", 24 * 3600 * 1000],
    ["no comma after the day name", "Mon 30 Nov 2026 06:00:42 GMT", 42_000],
    ["a full day name", "Monday, 30 Nov 2026 06:00:42 GMT", 42_000]
  ])("reads a date beyond the HTTP standard's formats: %s", (_, value, millis) => {
    const parsed = RetryAfter.parseAt({ "retry-after": value }, NOW)
    expect(millisOf(parsed)).toEqual(Option.some(millis))
    expect(parsed.ignored).toEqual([])
  })

  it("reads a date with no zone in local time, as Date.parse does", () => {
    const localNow = new Date(2026, 10, 30, 6, 0, 0).getTime()
    const parsed = RetryAfter.parseAt({ "retry-after": "Mon, 30 Nov 2026 06:00:42" }, localNow)
    expect(millisOf(parsed)).toEqual(Option.some(42_000))
    expect(parsed.ignored).toEqual([])
  })

  it("ignores a day name followed by something that is not a date", () => {
    const parsed = RetryAfter.parseAt({ "retry-after": "Mon, whenever" }, NOW)
    expect(parsed.retryAfter).toEqual(Option.none())
    expect(parsed.ignored.length).toBeGreaterThan(0)
  })

  it("matches header names case-insensitively", () => {
    expect(millisOf(RetryAfter.parseAt({ "Retry-After": "2" }, NOW))).toEqual(Option.some(2000))
  })

  it.each([
    ["garbage", { "retry-after": "banana" }],
    ["negative seconds", { "retry-after": "-5" }],
    ["negative milliseconds", { "retry-after-ms": "-100" }],
    ["too large to be a number", { "retry-after": "9".repeat(400) }],
    ["empty", { "retry-after": "" }],
    ["infinite", { "retry-after-ms": "Infinity" }],
    ["a year number, not a date", { "retry-after": "2026-11-30" }]
  ])("ignores %s with a note", (_, headers) => {
    const parsed = RetryAfter.parseAt(headers, NOW)
    expect(parsed.retryAfter).toEqual(Option.none())
    expect(parsed.ignored.length).toBeGreaterThan(0)
  })

  it("keeps a hint above 24 h, however long, so the kernel can see it is too long to wait", () => {
    const day = 24 * 3600 * 1000
    expect(millisOf(RetryAfter.parseAt({ "retry-after": "90000" }, NOW))).toEqual(Option.some(90_000_000))
    expect(millisOf(RetryAfter.parseAt({ "retry-after-ms": String(3 * day) }, NOW))).toEqual(Option.some(3 * day))
    expect(millisOf(RetryAfter.parseAt({ "retry-after": "99999999999" }, NOW))).toEqual(Option.some(99999999999000))
    expect(millisOf(RetryAfter.parseAt({ "retry-after": "Wed, 02 Dec 2026 06:00:00 GMT" }, NOW))).toEqual(
      Option.some(2 * day)
    )
    expect(RetryAfter.parseAt({ "retry-after": "90000" }, NOW).ignored).toEqual([])
  })

  it("is silent when there is no header", () => {
    expect(RetryAfter.parseAt({}, NOW)).toEqual({ retryAfter: Option.none(), ignored: [] })
  })
})

describe("RetryAfter.parse", () => {
  it.effect("measures an HTTP date against Effect's Clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW)
      const hint = yield* RetryAfter.parse({ "retry-after": "Mon, 30 Nov 2026 06:01:00 GMT" })
      expect(Option.map(hint, Duration.toMillis)).toEqual(Option.some(60_000))
    })
  )

  it.effect("logs ignored headers at debug level instead of failing", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const logger = Logger.make(({ message, logLevel, fiber }) => {
        const annotations = fiber.getRef(References.CurrentLogAnnotations)
        lines.push(`${logLevel.toUpperCase()} ${JSON.stringify(message)} ${"module" in annotations}`)
      })
      const hint = yield* RetryAfter.parse({ "retry-after": "tomorrow-ish" }).pipe(
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "Debug")
      )
      expect(hint).toEqual(Option.none())
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain("DEBUG")
      expect(lines[0]).toContain("tomorrow-ish")
    })
  )
})

// Each form over a real socket, through the fake server, on both providers.
describe.each(apis)("retry-after over the wire (%s)", (api) => {
  const rateLimited = (headers: Record<string, string>) =>
    FaultPlan.make([{ kind: "error", status: 429, error_type: "rate_limit_error", message: "slow down", headers }])

  it.effect("seconds", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, rateLimited({ "retry-after": "12" }))
      const error = yield* failure(provider)
      expect(error._tag).toBe("RateLimited")
      expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(12_000)
    })
  )

  it.effect("milliseconds", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, rateLimited({ "retry-after-ms": "1234", "retry-after": "60" }))
      const error = yield* failure(provider)
      expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(1234)
    })
  )

  it.effect("HTTP date, relative to the Clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW)
      const { provider } = yield* setup(api, rateLimited({ "retry-after": "Mon, 30 Nov 2026 06:00:30 GMT" }))
      const error = yield* failure(provider)
      expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(30_000)
    })
  )

  it.effect("garbage is ignored and the error is still classified", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, rateLimited({ "retry-after": "whenever", "retry-after-ms": "-3" }))
      const error = yield* failure(provider)
      expect(error._tag).toBe("RateLimited")
      expect(error.retryAfter).toBeUndefined()
    })
  )

  it.effect("a hint above 24 h is kept", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(api, rateLimited({ "retry-after": "90000" }))
      const error = yield* failure(provider)
      expect(error._tag).toBe("RateLimited")
      expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(90_000_000)
    })
  )

  it.effect("is read on other statuses too (503)", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "error", status: 503, error_type: "api_error", headers: { "retry-after": "5" } }])
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("ServerError")
      expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(5000)
    })
  )
})
