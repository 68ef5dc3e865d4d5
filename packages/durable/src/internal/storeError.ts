import * as Schema from "effect/Schema"

/**
 * Why the session store failed, for a program to act on (the CLI maps it to
 * its exit code):
 * - `locked`: another process owns the store;
 * - `missing`: there is no store at the path (opened for reading);
 * - `foreign`: the database is not a session store (another program's, or a
 *   newer version's), and is left as it is;
 * - `corrupt`: the file is damaged, or is no SQLite database;
 * - `read-only`: the database (or its file) cannot be written;
 * - `not-writable`: the directory of the file cannot be written (SQLite
 *   keeps its write-ahead log beside the file);
 * - `disk-full`: the disk (or the database's size limit) is full;
 * - `io`: the file cannot be read or written (an I/O error);
 * - `invalid-row`: a row of the store does not decode;
 * - `unavailable`: anything else (a connection that failed, a lost lock).
 *
 * @internal
 */
export const StoreErrorReason = Schema.Literals([
  "locked",
  "missing",
  "foreign",
  "corrupt",
  "read-only",
  "not-writable",
  "disk-full",
  "io",
  "invalid-row",
  "unavailable"
])

/** @internal */
export type StoreErrorReason = typeof StoreErrorReason.Type

/**
 * The session store failed: another process holds it (`locked`), or its
 * database cannot be read, written or set up, or a row does not decode.
 * `reason` says which; `message` says it in one line for a person.
 *
 * @internal
 */
export class StoreError extends Schema.TaggedError<StoreError>("@agent-kernel/durable/StoreError")("StoreError", {
  message: Schema.String,
  locked: Schema.Boolean,
  reason: StoreErrorReason
}) {}

/**
 * A `StoreError` of `reason` (`locked` set for that reason alone).
 *
 * @internal
 */
export const storeError = (reason: StoreErrorReason, message: string): StoreError =>
  new StoreError({ message: oneLine(message), locked: reason === "locked", reason })

/** The most of a message a one-line report carries. */
const lineLimit = 300

/**
 * `text` on one line, at most `lineLimit` characters: a failure's report
 * names what failed and why, never a dump of a schema or a row.
 *
 * @internal
 */
export const oneLine = (text: string): string => {
  const flat = text.replace(/\s*\n\s*/g, " ").trim()
  return flat.length <= lineLimit ? flat : `${flat.slice(0, lineLimit - 1)}…`
}
