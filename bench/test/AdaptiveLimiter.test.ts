import { describe, expect, it } from "@effect/vitest"
import * as AdaptiveLimiter from "../src/AdaptiveLimiter.js"

/** `ok` admitted and `refused` throttled requests spread over the second starting at `at`. */
const second = (at: number, ok: number, refused: number) => [
  ...Array.from({ length: ok }, (_, i) => ({ time: at + (i * 1_000) / (ok + refused), throttled: false })),
  ...Array.from({ length: refused }, (_, i) => ({ time: at + ((ok + i) * 1_000) / (ok + refused), throttled: true }))
]

describe("the adaptive limiter bench's convergence", () => {
  it("is the first second from which at most 10 % of the requests up to the end of the load were 429s", () => {
    const requests = [...second(0, 5, 5), ...second(1_000, 8, 2), ...second(2_000, 10, 0), ...second(3_000, 10, 1)]
    // From second 1: 3 of 31 (9.7 %); from second 0: 8 of 41.
    expect(AdaptiveLimiter.convergence(requests, 0, 4_000)).toBe(1)
  })

  it("counts only the load: what comes after it does not make a run converge", () => {
    const requests = [...second(0, 5, 5), ...second(1_000, 5, 5), ...second(2_000, 30, 0)]
    expect(AdaptiveLimiter.convergence(requests, 0, 2_000)).toBeUndefined()
    expect(AdaptiveLimiter.convergence(requests, 0, 3_000)).toBe(2)
  })
})
