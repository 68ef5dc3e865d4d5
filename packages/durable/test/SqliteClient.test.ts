/**
 * The embedded store's `SqlClient` over `node:sqlite` (internal/sqlite.ts), on real files: its kept
 * prepared statements behave as new ones, its transactions commit, roll back and keep other fibers
 * out, each failure is a `SqlError` whose reason says what SQLite reported, and two processes share a
 * file.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Context from "effect/Context"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { vi } from "vitest"
import * as Engine from "../src/Engine.js"
import * as Sqlite from "../src/internal/sqlite.js"

const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-client-")), "agent.db")

const clientOf = (options: Sqlite.Options) => Effect.provide(Sqlite.make(options), Reactivity.layer)

const Count = Schema.Tuple([Schema.Struct({ n: Schema.Number })])
const countOf = (sql: SqlClient.SqlClient, table = "probe") =>
  Effect.flatMap(sql.unsafe(`SELECT count(*) AS n FROM ${table}`), (rows) =>
    Effect.map(Schema.decodeUnknownEffect(Count)(rows), ([row]) => row.n)
  )

/** The reason of the `SqlError` an effect failed with. */
const reasonOf = <A, R>(effect: Effect.Effect<A, SqlError.SqlError, R>) =>
  Effect.flatMap(Effect.flip(effect), (error) => Effect.succeed(error.reason))

const { DatabaseSync } = process.getBuiltinModule("node:sqlite")

describe("the embedded store's prepared statements", () => {
  it.effect("a statement is prepared once and kept, also across a transaction", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (k TEXT)`
      const prepare = vi.spyOn(DatabaseSync.prototype, "prepare")
      yield* Effect.addFinalizer(() => Effect.sync(() => prepare.mockRestore()))
      for (let i = 0; i < 5; i++) yield* sql`SELECT count(*) AS n FROM probe`
      yield* sql.withTransaction(sql`INSERT INTO probe (k) VALUES (${"in a transaction"})`)
      for (let i = 0; i < 5; i++) yield* sql`SELECT count(*) AS n FROM probe`
      expect(prepare.mock.calls.filter(([text]) => text.startsWith("SELECT count"))).toHaveLength(1)
    })
  )

  it.effect("a reused statement commits each write, reads fresh rows, and follows a schema change", () =>
    Effect.gen(function* () {
      const filename = file()
      const store = yield* clientOf({ filename })
      const other = yield* clientOf({ filename })
      yield* store`CREATE TABLE probe (k TEXT PRIMARY KEY)`
      const insert = (k: string) => store`INSERT INTO probe (k) VALUES (${k}) ON CONFLICT DO NOTHING RETURNING k`
      for (let round = 1; round <= 3; round++) {
        expect(yield* insert(`store-${round}`)).toHaveLength(1)
        // The same text again, a conflict: the statement runs to its end and returns nothing.
        expect(yield* insert(`store-${round}`)).toHaveLength(0)
        expect(yield* countOf(other), "a write through a kept statement is not committed when it returns").toBe(
          2 * round - 1
        )
        yield* other`INSERT INTO probe (k) VALUES (${`other-${round}`})`
        expect(yield* countOf(store), "a kept read does not see another connection's commit").toBe(2 * round)
      }
      yield* store`ALTER TABLE probe RENAME TO moved_away`
      expect(Exit.isFailure(yield* Effect.exit(insert("gone"))), "a kept statement ran on a missing table").toBe(true)
      yield* store`ALTER TABLE moved_away RENAME TO probe`
      expect(yield* insert("back")).toHaveLength(1)
      expect(yield* countOf(store)).toBe(7)
    })
  )

  it.effect("a kept SELECT * names the columns of the table as it is now, after ALTER TABLE", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (a INTEGER)`
      yield* sql`INSERT INTO probe (a) VALUES (1)`
      expect(yield* sql`SELECT * FROM probe`).toEqual([{ a: 1 }])
      yield* sql`ALTER TABLE probe RENAME COLUMN a TO c`
      expect(yield* sql`SELECT * FROM probe`, "a renamed column keeps its old name").toEqual([{ c: 1 }])
      yield* sql`ALTER TABLE probe ADD COLUMN b TEXT DEFAULT 'x'`
      expect(yield* sql`SELECT * FROM probe`, "an added column is missing").toEqual([{ c: 1, b: "x" }])
    })
  )

  it.effect("integers are numbers, or bigints where the fiber asks for safe integers", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      const big = 2n ** 62n
      yield* sql`CREATE TABLE probe (n INTEGER)`
      yield* sql`INSERT INTO probe (n) VALUES (${big})`
      expect(yield* Effect.provideService(sql`SELECT n FROM probe`, SqlClient.SafeIntegers, true)).toEqual([{ n: big }])
      yield* sql`DELETE FROM probe`
      yield* sql`INSERT INTO probe (n) VALUES (${7}), (${true})`
      expect(yield* sql`SELECT n FROM probe ORDER BY n`).toEqual([{ n: 1 }, { n: 7 }])
    })
  )

  it.effect("rows stream a page at a time, and values come as arrays", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (n INTEGER)`
      yield* sql.withTransaction(
        Effect.forEach(
          Array.from({ length: 300 }, (_, i) => i),
          (n) => sql`INSERT INTO probe (n) VALUES (${n})`
        )
      )
      const streamed = yield* Stream.runCollect(sql`SELECT n FROM probe ORDER BY n`.stream)
      expect(streamed).toEqual(Array.from({ length: 300 }, (_, n) => ({ n })))
      expect(yield* sql`SELECT n, n + 1 AS m FROM probe WHERE n < 2 ORDER BY n`.values).toEqual([
        [0, 1],
        [1, 2]
      ])
    })
  )
})

describe("the embedded store's transactions", () => {
  it.effect("a transaction commits on success and rolls back on failure, a nested one to its savepoint", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (k TEXT)`
      yield* sql.withTransaction(sql`INSERT INTO probe (k) VALUES ('committed')`)
      const failed = yield* Effect.exit(
        sql.withTransaction(
          Effect.andThen(sql`INSERT INTO probe (k) VALUES ('rolled back')`, Effect.fail("the caller's failure"))
        )
      )
      expect(failed).toEqual(Exit.fail("the caller's failure"))
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO probe (k) VALUES ('outer')`
          yield* Effect.exit(
            sql.withTransaction(Effect.andThen(sql`INSERT INTO probe (k) VALUES ('inner')`, Effect.fail("inner")))
          )
        })
      )
      expect(yield* sql`SELECT k FROM probe ORDER BY k`).toEqual([{ k: "committed" }, { k: "outer" }])
    })
  )

  it.effect("an interrupted transaction rolls back, and the connection serves the next statement", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (k TEXT)`
      const inside = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        sql.withTransaction(
          Effect.andThen(
            sql`INSERT INTO probe (k) VALUES ('interrupted')`,
            Effect.andThen(Deferred.succeed(inside, undefined), Effect.never)
          )
        )
      )
      yield* Deferred.await(inside)
      yield* Fiber.interrupt(fiber)
      expect(yield* countOf(sql)).toBe(0)
      yield* sql`INSERT INTO probe (k) VALUES ('after')`
      expect(yield* countOf(sql)).toBe(1)
    })
  )

  it.effect("a transaction holds the connection: another fiber's statement runs after its commit", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (k TEXT)`
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const transaction = yield* Effect.forkChild(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO probe (k) VALUES ('first')`
            yield* Deferred.succeed(inside, undefined)
            yield* Deferred.await(release)
            yield* Effect.fail("rolled back")
          })
        )
      )
      yield* Deferred.await(inside)
      const outside = yield* Effect.forkChild(sql`INSERT INTO probe (k) VALUES ('outside')`)
      yield* Effect.yieldNow
      expect(outside.pollUnsafe(), "a statement ran inside another fiber's transaction").toBeUndefined()
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.await(transaction)
      yield* Fiber.join(outside)
      expect(yield* sql`SELECT k FROM probe`).toEqual([{ k: "outside" }])
    })
  )
})

describe("the embedded store's failures", () => {
  it.effect("busy: another connection holds the file's lock", () =>
    Effect.gen(function* () {
      const filename = file()
      const sql = yield* clientOf({ filename, busyTimeout: 0 })
      yield* sql`CREATE TABLE probe (k TEXT)`
      const holder = new DatabaseSync(filename)
      holder.exec("BEGIN EXCLUSIVE")
      yield* Effect.addFinalizer(() => Effect.sync(() => holder.close()))
      const reason = yield* reasonOf(sql`INSERT INTO probe (k) VALUES ('x')`)
      expect(reason._tag).toBe("LockTimeoutError")
      expect(reason.operation).toBe("execute")
      expect(reason.isRetryable).toBe(true)
    })
  )

  it.effect("a busy file is waited for up to the busy timeout", () =>
    Effect.gen(function* () {
      const filename = file()
      const sql = yield* clientOf({ filename, busyTimeout: "10 seconds" })
      yield* sql`CREATE TABLE probe (k TEXT)`
      // Another process takes the write lock, says so, and commits 300 ms later.
      const holder = childProcess.spawn(
        process.execPath,
        [
          "-e",
          `const db = new (require("node:sqlite").DatabaseSync)(${JSON.stringify(filename)})
          db.exec("BEGIN IMMEDIATE; INSERT INTO probe (k) VALUES ('holder')")
          console.log("held")
          setTimeout(() => { db.exec("COMMIT"); db.close() }, 300)`
        ],
        { stdio: ["ignore", "pipe", "inherit"] }
      )
      yield* Effect.callback<void>((resume) => {
        holder.stdout.once("data", () => resume(Effect.void))
      })
      yield* sql`INSERT INTO probe (k) VALUES ('waited')`
      expect(yield* sql`SELECT k FROM probe ORDER BY rowid`).toEqual([{ k: "holder" }, { k: "waited" }])
    })
  )

  it.effect("read-only: a write to a database opened for reading", () =>
    Effect.gen(function* () {
      const filename = file()
      const writer = yield* clientOf({ filename })
      yield* writer`CREATE TABLE probe (k TEXT)`
      const reader = yield* clientOf({ filename, readOnly: true })
      const reason = yield* reasonOf(reader`INSERT INTO probe (k) VALUES ('x')`)
      expect(reason._tag).toBe("AuthorizationError")
      expect(reason.message).toMatch(/read-only/)
    })
  )

  it.effect("corrupt: a file that is no database, and a database whose pages are garbage", () =>
    Effect.gen(function* () {
      const notADatabase = file()
      fs.writeFileSync(notADatabase, "this is not a database, only some text long enough to have a header".repeat(20))
      const opened = yield* reasonOf(clientOf({ filename: notADatabase }))
      expect(opened._tag).toBe("UnknownError")
      expect(opened.operation).toBe("open")
      expect(opened.message).toMatch(/corrupt/)

      const damaged = file()
      const db = new DatabaseSync(damaged)
      db.exec("PRAGMA page_size = 4096; CREATE TABLE probe (k TEXT); INSERT INTO probe (k) VALUES ('x')")
      db.close()
      const bytes = fs.readFileSync(damaged)
      bytes.fill(0xff, 4096, 8192)
      fs.writeFileSync(damaged, bytes)
      const sql = yield* clientOf({ filename: damaged, wal: false })
      const read = yield* reasonOf(sql`SELECT k FROM probe`)
      expect(read._tag).toBe("UnknownError")
      expect(read.message).toMatch(/corrupt/)
      expect(read.isRetryable).toBe(false)
    })
  )

  it.effect("full: a write past the database's size limit", () =>
    Effect.gen(function* () {
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (k TEXT)`
      yield* sql.unsafe("PRAGMA max_page_count = 8")
      const reason = yield* reasonOf(
        Effect.forEach(Array.from({ length: 64 }), () => sql`INSERT INTO probe (k) VALUES (${"x".repeat(4096)})`)
      )
      expect(reason._tag).toBe("UnknownError")
      expect(reason.message).toMatch(/full/)
    })
  )

  it.effect("a file that cannot be opened, a unique key and a syntax error keep effect/sql's reasons", () =>
    Effect.gen(function* () {
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-client-"))
      const cannotOpen = yield* reasonOf(clientOf({ filename: path.join(directory, "missing", "agent.db") }))
      expect(cannotOpen._tag).toBe("ConnectionError")
      const sql = yield* clientOf({ filename: file() })
      yield* sql`CREATE TABLE probe (k TEXT PRIMARY KEY)`
      yield* sql`INSERT INTO probe (k) VALUES ('x')`
      const unique = yield* reasonOf(sql`INSERT INTO probe (k) VALUES ('x')`)
      expect(unique._tag).toBe("UniqueViolation")
      const syntax = yield* reasonOf(sql.unsafe("SELEC 1"))
      expect(syntax.message).toMatch(/syntax error/)
      expect(SqlError.isSqlErrorReason(syntax)).toBe(true)
    })
  )
})

describe("the embedded store's file, shared", () => {
  it.effect("two processes writing one file at once each commit every write", () =>
    Effect.gen(function* () {
      const filename = file()
      const sql = yield* clientOf({ filename })
      yield* sql`CREATE TABLE probe (k TEXT PRIMARY KEY)`
      const writes = 200
      const child = childProcess.spawn(
        process.execPath,
        [path.join(import.meta.dirname, "fixtures", "sqliteWriter.mjs"), filename, String(writes)],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      const output: Array<string> = []
      child.stdout.on("data", (chunk) => output.push(String(chunk)))
      child.stderr.on("data", (chunk) => output.push(String(chunk)))
      const exited = Effect.callback<number | null>((resume) => {
        child.on("exit", (code) => resume(Effect.succeed(code)))
      })
      for (let i = 0; i < writes; i++) {
        yield* sql.withTransaction(sql`INSERT INTO probe (k) VALUES (${`parent-${i}`})`)
        if (i % 20 === 0) yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      const code = yield* exited
      expect(code, output.join("")).toBe(0)
      expect(output.join(""), "the child printed something (a warning?)").toBe("")
      expect(yield* countOf(sql)).toBe(2 * writes)
    })
  )

  it.effect("the file's lock: a second holder fails at once as busy, and the lock is free once the scope closes", () =>
    Effect.gen(function* () {
      const filename = file()
      const scope = yield* Scope.make()
      yield* Effect.provideService(Sqlite.lockFile(filename), Scope.Scope, scope)
      const second = yield* Effect.exit(Effect.scoped(Sqlite.lockFile(filename)))
      expect(Exit.isFailure(second) && Cause.squash(second.cause)).toBeInstanceOf(SqlError.SqlError)
      const reason = yield* reasonOf(Effect.scoped(Sqlite.lockFile(filename)))
      expect(reason._tag).toBe("LockTimeoutError")
      yield* Scope.close(scope, Exit.void)
      yield* Effect.scoped(Sqlite.lockFile(filename))
    })
  )

  it.effect("closing the client closes its connection (the last one checkpoints and removes the WAL)", () =>
    Effect.gen(function* () {
      const filename = file()
      const scope = yield* Scope.make()
      const sql = yield* Effect.provideService(clientOf({ filename }), Scope.Scope, scope)
      yield* sql`CREATE TABLE probe (k TEXT)`
      yield* sql`INSERT INTO probe (k) VALUES ('a')`
      yield* sql`SELECT count(*) AS n FROM probe`
      expect(fs.existsSync(`${filename}-wal`)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      expect(fs.existsSync(`${filename}-wal`), "the connection is still open after its scope closed").toBe(false)
    })
  )
})

describe("the embedded store's layer (Engine.layerSqliteStore)", () => {
  // The store is made first (by an engine's layer): the store's layer opens a store, it creates none.
  const storeOf = (filename: string) =>
    Effect.andThen(
      fs.existsSync(filename) ? Effect.void : Effect.scoped(Effect.asVoid(Layer.build(Engine.layerSqlite(filename)))),
      Effect.map(Layer.build(Engine.layerSqliteStore(filename)), (context) => Context.get(context, SqlClient.SqlClient))
    )

  it.effect("writes in WAL with synchronous=NORMAL, also after a transaction (one connection runs both)", () =>
    Effect.gen(function* () {
      const store = yield* storeOf(file())
      yield* store`CREATE TABLE probe (k TEXT)`
      expect(yield* store`PRAGMA journal_mode`).toEqual([{ journal_mode: "wal" }])
      expect(yield* store`PRAGMA synchronous`).toEqual([{ synchronous: 1 }])
      yield* store.withTransaction(store`INSERT INTO probe (k) VALUES ('in a transaction')`)
      expect(
        yield* store`PRAGMA synchronous`,
        "the journal's writes after a transaction are FULL (a new connection)"
      ).toEqual([{ synchronous: 1 }])
    })
  )

  it.effect("a reused statement of the store commits each write and reads what another connection committed", () =>
    Effect.gen(function* () {
      const filename = file()
      const store = yield* storeOf(filename)
      const other = new DatabaseSync(filename)
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      yield* store`CREATE TABLE probe (k TEXT PRIMARY KEY)`
      const insert = (k: string) => store`INSERT INTO probe (k) VALUES (${k}) ON CONFLICT DO NOTHING RETURNING k`
      const otherCount = () => Number(other.prepare("SELECT count(*) AS n FROM probe").get()?.["n"])
      for (let round = 1; round <= 3; round++) {
        expect(yield* insert(`store-${round}`)).toHaveLength(1)
        expect(yield* insert(`store-${round}`)).toHaveLength(0)
        expect(otherCount(), "a write through a kept statement is not committed when it returns").toBe(2 * round - 1)
        other.prepare("INSERT INTO probe (k) VALUES (?)").run(`other-${round}`)
        expect(yield* countOf(store), "a kept read does not see another connection's commit").toBe(2 * round)
      }
    })
  )

  it.effect("a second holder of the store's file gets StoreError with locked: true", () =>
    Effect.gen(function* () {
      const filename = file()
      yield* storeOf(filename)
      const second = yield* Effect.flip(Effect.scoped(storeOf(filename)))
      expect(second).toEqual(
        new Engine.StoreError({
          message: `the session store ${filename} is in use by another process`,
          locked: true,
          reason: "locked"
        })
      )
    })
  )
})
