/**
 * The embedded store's connection keeps its prepared statements (`Engine.layerSqliteStore`): a
 * statement run again must behave as a new one. A write is committed when it returns (another
 * connection on the file sees it: what a SIGKILL right after it would leave), a read sees what
 * another connection committed since its last run, and a statement kept across a schema change
 * fails while its table is gone and works once it is back.
 */
import { Engine } from "@agent-kernel/durable"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const Count = Schema.Tuple(Schema.Struct({ n: Schema.Union(Schema.Number, Schema.BigIntFromSelf) }))
const countOf = (rows: ReadonlyArray<unknown>) =>
  Effect.map(Schema.decodeUnknown(Count)(rows), ([row]) => Number(row.n))

describe("the embedded store's prepared statements", () => {
  it.scoped("a reused statement commits each write, reads fresh rows, and follows a schema change", () =>
    Effect.gen(function* () {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-store-")), "agent.db")
      const store = Context.get(yield* Layer.build(Engine.layerSqliteStore(file)), SqlClient.SqlClient)
      const other = yield* Effect.provide(LibsqlClient.make({ url: `file:${file}` }), Reactivity.layer)
      yield* store`CREATE TABLE probe (k TEXT PRIMARY KEY)`
      const insert = (k: string) => store`INSERT INTO probe (k) VALUES (${k}) ON CONFLICT DO NOTHING RETURNING k`
      const count = Effect.flatMap(store`SELECT count(*) AS n FROM probe`, countOf)
      for (let round = 1; round <= 3; round++) {
        assert.lengthOf(yield* insert(`store-${round}`), 1)
        // The same text again, a conflict: the statement runs to its end and returns nothing.
        assert.lengthOf(yield* insert(`store-${round}`), 0)
        assert.strictEqual(
          yield* Effect.flatMap(other`SELECT count(*) AS n FROM probe`, countOf),
          2 * round - 1,
          "a write through a kept statement is not committed when it returns"
        )
        yield* other`INSERT INTO probe (k) VALUES (${`other-${round}`})`
        assert.strictEqual(yield* count, 2 * round, "a kept read does not see another connection's commit")
      }
      yield* store`ALTER TABLE probe RENAME TO moved_away`
      assert.isTrue(Either.isLeft(yield* Effect.either(insert("gone"))), "a kept statement ran on a missing table")
      yield* store`ALTER TABLE moved_away RENAME TO probe`
      assert.lengthOf(yield* insert("back"), 1)
      assert.strictEqual(yield* count, 7)
    })
  )
})
