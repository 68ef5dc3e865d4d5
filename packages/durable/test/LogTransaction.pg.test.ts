/**
 * A run's end and its events in one transaction on `Engine.layerSql`'s store client (the owner's
 * connection) while another fiber's write of the same log waits: both complete (see
 * ./logTransaction.ts). The throwaway database is the run's (packages/cluster/test/postgres.setup.ts).
 */
import { Engine } from "@agent-kernel/durable"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ownDatabase } from "../../cluster/test/postgres.js"
import * as Store from "../src/internal/store.js"
import { endBesideAFlush, endOnlyWithItsRecord, flushThenRollBack } from "./logTransaction.js"

describe("the event log's transaction on the owner's connection", () => {
  it.live("a run's end written with its events while another write of the log waits for the connection completes", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("log_transaction")
      const context = yield* Layer.build(
        Engine.layerSql().pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })))
      )
      const sql = yield* Option.match(Context.get(context, Store.StoreSql), {
        onNone: () => Effect.die("the layer provides no store client"),
        onSome: Effect.succeed
      })
      const rows = yield* endBesideAFlush(sql)
      expect(rows).toEqual([{ seq: 1, event: { text: "hello world" } }])
    })
  )

  it.live("a transaction that writes events and then fails: the next write logs them, numbered without a gap", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("log_rollback")
      const context = yield* Layer.build(
        Engine.layerSql().pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })))
      )
      const sql = yield* Option.match(Context.get(context, Store.StoreSql), {
        onNone: () => Effect.die("the layer provides no store client"),
        onSome: Effect.succeed
      })
      const { rows, exit } = yield* flushThenRollBack(sql, Effect.fail("the end's record failed"))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(rows).toEqual([
        { seq: 1, event: { text: "first" } },
        { seq: 2, event: { text: "rolled back" } },
        { seq: 3, event: { text: "after" } }
      ])
    })
  )

  it.live("a run_ended is written only by the transaction that records its end: other writes leave it waiting", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("log_end_recorded")
      const context = yield* Layer.build(
        Engine.layerSql().pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })))
      )
      const sql = yield* Option.match(Context.get(context, Store.StoreSql), {
        onNone: () => Effect.die("the layer provides no store client"),
        onSome: Effect.succeed
      })
      const { flushed, rolledBack, flushedAgain, recorded } = yield* endOnlyWithItsRecord(sql)
      expect(flushed).toEqual([{ seq: 1, type: "text_delta" }])
      expect(Exit.isFailure(rolledBack)).toBe(true)
      expect(flushedAgain).toEqual([{ seq: 1, type: "text_delta" }])
      expect(recorded).toEqual([
        { seq: 1, type: "text_delta" },
        { seq: 2, type: "run_ended" }
      ])
    })
  )
})
