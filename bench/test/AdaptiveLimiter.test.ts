import { describe, expect, it } from "@effect/vitest"
import * as AdaptiveLimiter from "../src/AdaptiveLimiter.js"

/** `ok` admitted and `refused` throttled requests spread over the second starting at `at`. */
const second = (at: number, ok: number, refused: number) => [
  ...Array.from({ length: ok }, (_, i) => ({ time: at + (i * 1_000) / (ok + refused), throttled: false })),
  ...Array.from({ length: refused }, (_, i) => ({ time: at + ((ok + i) * 1_000) / (ok + refused), throttled: true }))
]

describe("the adaptive limiter bench's convergence", () => {
  it("is the first second from which every second up to the end of the load had at most 10 % 429s", () => {
    const requests = [...second(0, 5, 5), ...second(1_000, 9, 1), ...second(2_000, 10, 0), ...second(3_000, 10, 1)]
    expect(AdaptiveLimiter.convergence(requests, 0, 4_000)).toBe(1)
  })

  it("is not diluted by calm seconds after a burst of 429s: the burst's second must pass first", () => {
    const requests = [
      ...second(0, 10, 0),
      ...second(1_000, 5, 5),
      ...Array.from({ length: 20 }, (_, i) => second(2_000 + i * 1_000, 10, 0)).flat()
    ]
    // From second 0, 5 of 220 requests were 429s (2 %), but second 1 had half of its requests refused.
    expect(AdaptiveLimiter.convergence(requests, 0, 22_000)).toBe(2)
  })

  it("counts only the load: what comes after it does not make a run converge", () => {
    const requests = [...second(0, 5, 5), ...second(1_000, 5, 5), ...second(2_000, 30, 0)]
    expect(AdaptiveLimiter.convergence(requests, 0, 2_000)).toBeUndefined()
    expect(AdaptiveLimiter.convergence(requests, 0, 3_000)).toBe(2)
  })
})
