/**
 * The custom policy, property-tested with the kernel's laws. CI runs this file.
 */
import { Laws } from "@agent-kernel/kernel/testing"
import { describe, it } from "@effect/vitest"
import { budget, bucket, policy, settings } from "./policy.js"

const subject: Laws.Subject = { policy, settings, budget }
const fatal = ["auth_error", "invalid_request", "quota_exceeded"] as const

describe("the custom policy", () => {
  it.effect("never waits less than the server asked", () => Laws.check(Laws.honorsRetryAfter, subject))

  it.effect("retries a call at most four times", () => Laws.check(Laws.respectsPerCallCap(4), subject))

  it.effect("spends at most the bucket, plus what successes refund", () =>
    Laws.check(
      Laws.respectsSessionBudget(bucket.capacity / bucket.retryCost, {
        refundPerSuccess: bucket.successRefund / bucket.retryCost
      }),
      subject
    )
  )

  it.effect("never retries or falls back on a configuration error", () =>
    Laws.checkAll([Laws.neverRetries(fatal), Laws.neverFallsBackOn(fatal)], subject)
  )

  it.effect("keeps every delay under full jitter's envelope, and gives up", () =>
    Laws.checkAll([Laws.delaysWithin(Laws.backoffEnvelope(settings)), Laws.terminates], subject)
  )
})
