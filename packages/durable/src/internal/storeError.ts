import * as Schema from "effect/Schema"

/**
 * The session store failed: another process holds it (`locked`), or its
 * database cannot be read, written or set up, or a row does not decode.
 *
 * @internal
 */
export class StoreError extends Schema.TaggedError<StoreError>("@agent-kernel/durable/StoreError")("StoreError", {
  message: Schema.String,
  locked: Schema.Boolean
}) {}
