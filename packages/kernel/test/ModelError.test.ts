import { ModelError } from "@agent-kernel/kernel"
import { Arbitraries } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

describe("ModelError", () => {
  it("reactionOf decides each category's reaction", () => {
    const table: Record<ModelError.Category, ModelError.Reaction> = {
      rate_limited: "retry",
      overloaded: "retry",
      server_error: "retry",
      timeout: "retry",
      connection_error: "retry",
      context_length_exceeded: "reduce_context",
      auth_error: "fatal",
      invalid_request: "fatal",
      quota_exceeded: "fatal",
      content_filtered: "surface",
      process_crashed: "fail",
      unknown: "fail"
    }
    for (const category of ModelError.Category.literals)
      assert.strictEqual(ModelError.reactionOf(category), table[category])
  })

  it("make builds the member of each category, with a readable message and a snake_case category", () => {
    for (const category of ModelError.Category.literals) {
      const error = ModelError.make(category, { provider: "p", model: "m", message: `a ${category}` })
      assert.strictEqual(error.category, category)
      assert.strictEqual(error.message, `a ${category}`)
      assert.instanceOf(error, Error)
    }
  })

  it("x-should-retry: false (retryable false) makes a transient error not retryable", () => {
    const base = { provider: "p", model: "m", message: "busy" }
    assert.isTrue(ModelError.isRetryable(new ModelError.Overloaded(base)))
    assert.isFalse(ModelError.isRetryable(new ModelError.Overloaded({ ...base, retryable: false })))
    assert.isFalse(ModelError.isRetryable(new ModelError.AuthError({ ...base, retryable: true })))
    // Each error says it too, as effect/ai's AiError reasons do.
    assert.isTrue(new ModelError.Overloaded(base).isRetryable)
    assert.isFalse(new ModelError.Overloaded({ ...base, retryable: false }).isRetryable)
  })

  it.prop(
    "every model error round-trips through its JSON encoding, retryAfter as milliseconds",
    [Arbitraries.modelError()],
    ([error]) => {
      const encoded = Schema.encodeSync(ModelError.ModelError)(error)
      const decoded = Schema.decodeUnknownSync(ModelError.ModelError)(JSON.parse(JSON.stringify(encoded)))
      assert.strictEqual(decoded._tag, error._tag)
      assert.strictEqual(decoded.category, error.category)
      assert.strictEqual(decoded.isRetryable, ModelError.isRetryable(error))
      if (error.retryAfter !== undefined)
        assert.strictEqual(Duration.toMillis(decoded.retryAfter!), Duration.toMillis(error.retryAfter))
    }
  )
})
