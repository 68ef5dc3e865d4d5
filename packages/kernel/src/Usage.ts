/**
 * Token usage reported by a model provider: what a call, an attempt that
 * failed mid-stream, and a whole run used. Its own module, so that the
 * error taxonomy and the provider service both read it without importing
 * each other.
 *
 * @since 0.4.0
 */
import * as Schema from "effect/Schema"

/**
 * Token usage reported by the provider.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Usage = Schema.Struct({
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  cache_read_tokens: Schema.optional(Schema.Number),
  cache_write_tokens: Schema.optional(Schema.Number)
})

/**
 * @since 0.4.0
 * @category models
 */
export interface Usage extends Schema.Schema.Type<typeof Usage> {}

/**
 * No tokens at all.
 *
 * @since 0.4.0
 * @category constructors
 */
export const empty: Usage = { input_tokens: 0, output_tokens: 0 }

/**
 * Adds two usages.
 *
 * @example
 * ```ts
 * import { Usage } from "@agent-kernel/kernel"
 *
 * const total = Usage.add({ input_tokens: 10, output_tokens: 5 }, { input_tokens: 3, output_tokens: 1 })
 * // { input_tokens: 13, output_tokens: 6, cache_read_tokens: 0, cache_write_tokens: 0 }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const add = (self: Usage, that: Usage): Usage => ({
  input_tokens: self.input_tokens + that.input_tokens,
  output_tokens: self.output_tokens + that.output_tokens,
  cache_read_tokens: (self.cache_read_tokens ?? 0) + (that.cache_read_tokens ?? 0),
  cache_write_tokens: (self.cache_write_tokens ?? 0) + (that.cache_write_tokens ?? 0)
})
