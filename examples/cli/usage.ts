import * as Data from "effect/Data"

/** Bad usage: a bad option, invalid settings, a bad fault plan. Reported on stderr with exit code 2, before any model request. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The exit code for bad usage. */
export const usageExitCode = 2
