/**
 * Review of the embedded store's kept statements (`Engine.layerSqliteStore`, internal/libsql.ts): cases
 * where a statement run again does not behave as a new one, or the connection that keeps them does not
 * behave as @libsql/client's own. Real SQLite files.
 */
import { Engine } from "@agent-kernel/durable"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import Database from "libsql"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { vi } from "vitest"

const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-kept-")), "agent.db")

const storeOf = (filename: string) =>
  Effect.map(Layer.build(Engine.layerSqliteStore(filename)), (context) => Context.get(context, SqlClient.SqlClient))

describe("the embedded store's kept statements, reviewed", () => {
  it.scoped("a kept SELECT * names the columns of the table as it is now, after ALTER TABLE", () =>
    Effect.gen(function* () {
      const store = yield* storeOf(file())
      yield* store`CREATE TABLE probe (a INTEGER)`
      yield* store`INSERT INTO probe (a) VALUES (1)`
      assert.deepStrictEqual(yield* store`SELECT * FROM probe`, [{ a: 1n }])
      yield* store`ALTER TABLE probe RENAME COLUMN a TO c`
      assert.deepStrictEqual(yield* store`SELECT * FROM probe`, [{ c: 1n }], "a renamed column keeps its old name")
      yield* store`ALTER TABLE probe ADD COLUMN b TEXT DEFAULT 'x'`
      assert.deepStrictEqual(
        yield* store`SELECT * FROM probe`,
        [{ c: 1n, b: "x" }],
        "an added column is named 'undefined'"
      )
    })
  )

  it.scoped("after a transaction, the store's statements are still kept", () =>
    Effect.gen(function* () {
      const store = yield* storeOf(file())
      yield* store`CREATE TABLE probe (k TEXT)`
      yield* store.withTransaction(store`INSERT INTO probe (k) VALUES ('in a transaction')`)
      const prepare = vi.spyOn(Database.prototype, "prepare")
      yield* Effect.addFinalizer(() => Effect.sync(() => prepare.mockRestore()))
      for (let i = 0; i < 5; i++) yield* store`SELECT count(*) AS n FROM probe`
      assert.isAtMost(prepare.mock.calls.length, 1, "each run prepared its statement again")
    })
  )

  it.scoped("after a transaction, the store's connection still writes with synchronous=NORMAL", () =>
    Effect.gen(function* () {
      const store = yield* storeOf(file())
      yield* store`CREATE TABLE probe (k TEXT)`
      assert.deepStrictEqual(yield* store`PRAGMA synchronous`, [{ synchronous: 1n }])
      yield* store.withTransaction(store`INSERT INTO probe (k) VALUES ('in a transaction')`)
      assert.deepStrictEqual(
        yield* store`PRAGMA synchronous`,
        [{ synchronous: 1n }],
        "the journal's writes after a transaction are FULL (a new connection)"
      )
    })
  )

  it.effect("closing the store closes its connection (the last one checkpoints and removes the WAL)", () =>
    Effect.gen(function* () {
      v8.setFlagsFromString("--expose-gc")
      const gc = vm.runInNewContext("gc") as () => void
      const filename = file()
      const scope = yield* Scope.make()
      const store = yield* Effect.provideService(storeOf(filename), Scope.Scope, scope)
      yield* store`CREATE TABLE probe (k TEXT)`
      yield* store`INSERT INTO probe (k) VALUES ('a')`
      yield* store`SELECT count(*) AS n FROM probe`
      yield* Scope.close(scope, Exit.void)
      // A statement not finalized keeps a closed connection open (sqlite3_close_v2) until it is
      // collected: @libsql/client's own statements are garbage once run.
      gc()
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
      gc()
      assert.isFalse(fs.existsSync(`${filename}-wal`), "the store's connection is still open after its scope closed")
      // The app still holds the client it was given (a runtime, a service).
      assert.isDefined(store)
    })
  )
})
