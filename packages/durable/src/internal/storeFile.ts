/**
 * The embedded store's file: where it really is, who owns it, and why it
 * failed.
 *
 * One process owns a store whatever the path it is opened by. A symbolic
 * link resolves to the file's real path, which SQLite follows too; a hard
 * link is another name of the same file, for which SQLite keeps a
 * write-ahead log of its own, so two processes through two names would fork
 * the store. So the owner holds two locks: `REAL.lock` beside the file's
 * real path, and a lock named by the file's identity (its device and inode)
 * in the system's temporary directory, which every name of the file shares.
 * Each is an exclusive transaction on a lock file, never ended, that the OS
 * releases when the process dies (SIGKILL included).
 *
 * @internal
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import type * as SqlError from "effect/sql/SqlError"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Sqlite from "./sqlite.js"
import { oneLine, type StoreError, type StoreErrorReason, storeError } from "./storeError.js"

/**
 * A store's file as found on disk: the name it was given, its real path
 * (symbolic links resolved), and its identity.
 *
 * @internal
 */
export interface Located {
  readonly given: string
  readonly real: string
  readonly dev: number
  readonly ino: number
}

/** What a failed file-system call reports (`code`: ENOENT, EACCES, EROFS, ...). */
const FsFailure = Schema.Struct({ code: Schema.String, message: Schema.String })
const decodeFsFailure = Schema.decodeUnknownOption(FsFailure)

const fsCode = (error: unknown): string | undefined =>
  Option.match(decodeFsFailure(error), { onNone: () => undefined, onSome: (failure) => failure.code })

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Whether the directory of `file` can be written (SQLite keeps its log and lock files there). */
const directoryWritable = (file: string): boolean => {
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Finds the store `given`: `None` when no file is there; its real path and
 * identity otherwise.
 *
 * @internal
 */
export const locate = (given: string): Effect.Effect<Option.Option<Located>, StoreError> =>
  Effect.try({
    try: () => {
      const stat = fs.statSync(given, { throwIfNoEntry: false })
      if (stat === undefined) return Option.none()
      if (!stat.isFile()) throw new Error("not a regular file")
      return Option.some({ given, real: fs.realpathSync(given), dev: stat.dev, ino: stat.ino })
    },
    catch: (error) => storeError(fsReason(error, given), `cannot open the session store ${given}: ${messageOf(error)}`)
  })

/** The reason of a failed file-system call on the store `file`. */
const fsReason = (error: unknown, file: string): StoreErrorReason => {
  switch (fsCode(error)) {
    case "ENOENT":
    case "ENOTDIR":
      return "missing"
    case "EACCES":
    case "EPERM":
      return directoryWritable(file) ? "read-only" : "not-writable"
    case "EROFS":
      return "read-only"
    case "ENOSPC":
      return "disk-full"
    case "EIO":
      return "io"
    default:
      return "unavailable"
  }
}

/**
 * Creates the store's file, empty, when nothing is at `given` (an empty file
 * is an empty SQLite database), so that it has an identity to lock before
 * SQLite opens it.
 */
const create = (given: string): Effect.Effect<void, StoreError> =>
  Effect.try({
    try: () => fs.closeSync(fs.openSync(given, "a")),
    catch: (error) => {
      const reason = fsReason(error, given)
      const why =
        reason === "missing"
          ? `its directory ${path.dirname(given)} does not exist`
          : reason === "not-writable"
            ? `its directory ${path.dirname(given)} is not writable`
            : messageOf(error)
      return storeError(reason, `cannot create the session store ${given}: ${why}`)
    }
  })

/**
 * The lock files of a store: beside its real path, and named by its
 * identity in the system's temporary directory.
 *
 * @internal
 */
export const lockFiles = (located: Located): readonly [string, string] => [
  `${located.real}.lock`,
  path.join(os.tmpdir(), `agent-kernel-store-${located.dev}-${located.ino}.lock`)
]

const inUse = (given: string) => storeError("locked", `the session store ${given} is in use by another process`)

/**
 * How long an owner waits for a lock another holds: a reader's probe
 * (`ownedElsewhere`) holds it for an instant, which must not refuse an owner.
 */
const ownerWait = "250 millis"

/** Takes the lock file `lock` of the store `given` for the life of the scope, waiting `wait` for it at most. */
const lock = (given: string, lock: string, wait: Duration.Input = 0): Effect.Effect<void, StoreError, Scope.Scope> =>
  Effect.mapError(Sqlite.lockFile(lock, wait), (error) =>
    error.reason._tag === "LockTimeoutError"
      ? inUse(given)
      : directoryWritable(lock)
        ? storeError(sqlReason(error), `cannot lock the session store ${given} (${lock}): ${error.message}`)
        : storeError(
            "not-writable",
            `cannot lock the session store ${given}: the directory ${path.dirname(lock)} is not writable`
          )
  )

/**
 * Owns the store `given` for the life of the scope: its file (created empty
 * when `create` and nothing is there; otherwise a missing file is
 * `StoreError` `missing`, and nothing is created), resolved, and both its
 * locks taken (another owner: `StoreError` `locked`). Returns where it is:
 * open it by its real path, whose write-ahead log every owner shares.
 *
 * @internal
 */
export const own = (
  given: string,
  options: { readonly create: boolean }
): Effect.Effect<Located, StoreError, Scope.Scope> =>
  Effect.gen(function* () {
    let found = yield* locate(given)
    if (Option.isNone(found)) {
      if (!options.create) return yield* storeError("missing", `there is no session store at ${given}`)
      yield* create(given)
      found = yield* locate(given)
    }
    if (Option.isNone(found)) return yield* storeError("missing", `there is no session store at ${given}`)
    const located = found.value
    for (const file of lockFiles(located)) yield* lock(given, file, ownerWait)
    return located
  })

/**
 * Owns the store `given` for the life of the scope if no other process does
 * (`own`, nothing created); `None` when another process owns it.
 *
 * @internal
 */
export const ownIfFree = (given: string): Effect.Effect<Option.Option<Located>, StoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const owned = yield* Effect.exit(Scope.provide(own(given, { create: false }), scope))
    if (Exit.isSuccess(owned)) {
      yield* Effect.addFinalizer((exit) => Scope.close(scope, exit))
      return Option.some(owned.value)
    }
    yield* Scope.close(scope, Exit.void)
    const failure = Exit.findErrorOption(owned)
    if (Option.isSome(failure) && failure.value.reason === "locked") return Option.none()
    return yield* Effect.failCause(owned.cause)
  })

/**
 * Whether another process owns the store `given` now: its locks are tried
 * and released at once. `false` for a store that is not there.
 *
 * @internal
 */
export const ownedElsewhere = (given: string): Effect.Effect<boolean, StoreError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const found = yield* locate(given)
      if (Option.isNone(found)) return false
      for (const file of lockFiles(found.value)) {
        const taken = yield* Effect.exit(lock(given, file))
        const failure = Exit.findErrorOption(taken)
        if (Option.isSome(failure)) {
          if (failure.value.reason === "locked") return true
          return yield* failure.value
        }
      }
      return false
    })
  )

/**
 * Checks that the path of the store `located` still names the file it
 * found: a store deleted (or replaced) under a reader fails its next check
 * with `StoreError` `missing`, rather than being read on from the gone file.
 *
 * @internal
 */
export const stillThere = (located: Located): Effect.Effect<void, StoreError> =>
  Effect.flatMap(locate(located.given), (found) =>
    Option.isSome(found) && found.value.dev === located.dev && found.value.ino === located.ino
      ? Effect.void
      : Effect.fail(
          storeError("missing", `the session store ${located.given} is gone (deleted or replaced): it cannot be read`)
        )
  )

/** The reason SQLite's primary result code `code` gives. */
const sqliteReason = (code: number): StoreErrorReason => {
  switch (code) {
    case Sqlite.SQLITE_READONLY:
      return "read-only"
    case Sqlite.SQLITE_CORRUPT:
    case Sqlite.SQLITE_NOTADB:
      return "corrupt"
    case Sqlite.SQLITE_FULL:
      return "disk-full"
    case Sqlite.SQLITE_IOERR:
      return "io"
    case Sqlite.SQLITE_BUSY:
    case Sqlite.SQLITE_LOCKED:
      return "locked"
    default:
      return "unavailable"
  }
}

/**
 * The reason of a failed statement of the store: what SQLite (or Postgres)
 * reported, as `Sqlite.reasonOf` and the server's SQLSTATE classify it.
 *
 * @internal
 */
export const sqlReason = (error: SqlError.SqlError): StoreErrorReason => {
  const code = Sqlite.primaryCode(error)
  if (code !== undefined) return sqliteReason(code)
  const state = Sqlite.sqlState(error)
  if (state !== undefined) {
    if (state === "53100") return "disk-full"
    if (state === "25006" || state === "42501") return "read-only"
    if (state === "XX001" || state === "XX002") return "corrupt"
    if (state === "58030") return "io"
  }
  if (error.reason._tag === "LockTimeoutError") return "locked"
  if (error.reason._tag === "AuthorizationError") return "read-only"
  return "unavailable"
}

/**
 * The store `given` failed at `what` with `error`: one line saying why, its
 * reason classified (a file that cannot be opened for want of a writable
 * directory is `not-writable`).
 *
 * @internal
 */
export const failure =
  (given: string, what: string) =>
  (error: SqlError.SqlError): StoreError => {
    const reason = sqlReason(error)
    const unopenable = Sqlite.primaryCode(error) === Sqlite.SQLITE_CANTOPEN
    if (unopenable && !directoryWritable(given))
      return storeError(
        "not-writable",
        `cannot ${what} the session store ${given}: its directory ${path.dirname(given)} is not writable`
      )
    return storeError(
      unopenable ? "unavailable" : reason,
      `cannot ${what} the session store ${given}: ${oneLine(error.message)}`
    )
  }
