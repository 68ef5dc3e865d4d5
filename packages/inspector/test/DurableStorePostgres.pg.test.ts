/**
 * The inspector over the durable store on Postgres (the cluster's store): an
 * owner process's engine on one pool, the adapter reading on another pool of
 * the same database, as an inspector beside the service's runners would. Real
 * Postgres (the run's throwaway server), real durable runs against the fake
 * provider over HTTP.
 */
import { Engine } from "@agent-kernel/durable"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { ownDatabase } from "../../cluster/test/postgres.js"
import { DurableStore } from "../src/durable/index.js"
import { InspectorStore } from "../src/index.js"
import { answer, heldProvider, owner, until } from "./support/durable.js"

const pool = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })

describe("the durable adapter on Postgres", () => {
  it.live("lists the owner's sessions, follows a live run, stops another through the owner, from another pool", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { url } = yield* ownDatabase("inspector_durable_pg")
        const provider = yield* heldProvider
        const process = yield* owner(Engine.layerSql().pipe(Layer.provide(pool(url))), provider.url)
        yield* process.start("followed", "go")
        yield* process.start("stopped", "go")
        yield* provider.awaitRequests(2)
        const store = Context.get(
          yield* Layer.build(DurableStore.layer({ pollInterval: "50 millis" }).pipe(Layer.provide(pool(url)))),
          InspectorStore.InspectorStore
        )
        const running = yield* until(store.sessions({ offset: 0, limit: 10 }), (page) =>
          page.sessions.every((s) => s.status === "running" && s.runs === 1)
        )
        expect(running.sessions.map((s) => s.id).sort()).toEqual(["followed", "stopped"])

        const seen: Array<InspectorStore.LoggedEvent> = []
        const follower = yield* Effect.forkChild(
          store.follow("followed", 0).pipe(
            Stream.takeUntil((logged) => logged.event.type === "run_ended"),
            Stream.runForEach((logged) => Effect.sync(() => void seen.push(logged)))
          )
        )
        yield* until(
          Effect.sync(() => seen.length),
          (n) => n > 0
        )

        yield* store.interrupt("stopped")
        const stopped = yield* store.session("stopped")
        expect([stopped.summary.status, stopped.runs.map((run) => run.status)]).toEqual([
          "interrupted",
          ["interrupted"]
        ])

        yield* provider.release
        yield* Fiber.join(follower)
        expect(seen.map((logged) => logged.seq)).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1))
        expect(seen.at(-1)!.event).toMatchObject({ type: "run_ended", status: "completed", final_text: answer })
        const done = yield* store.session("followed")
        expect([done.summary.status, done.summary.messages]).toEqual(["completed", 2])
        expect(yield* Effect.flip(store.session("nobody"))).toEqual(
          new InspectorStore.SessionNotFound({ session_id: "nobody" })
        )
        yield* process.close
      })
    )
  )

  it.live("an owner of a store in another database of the server holds none of this store's runs", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const provider = yield* heldProvider
        const other = yield* ownDatabase("inspector_other_pg")
        const elsewhere = yield* owner(Engine.layerSql().pipe(Layer.provide(pool(other.url))), provider.url)
        yield* elsewhere.start("elsewhere", "go")
        const { url } = yield* ownDatabase("inspector_crashed_pg")
        const crashed = yield* owner(Engine.layerSql().pipe(Layer.provide(pool(url))), provider.url)
        yield* crashed.start("crashed", "go")
        yield* provider.awaitRequests(2)
        yield* crashed.close
        const store = Context.get(
          yield* Layer.build(DurableStore.layer().pipe(Layer.provide(pool(url)))),
          InspectorStore.InspectorStore
        )
        const listed = yield* store.sessions({ offset: 0, limit: 10 })
        expect(listed.sessions.map((s) => [s.id, s.status])).toEqual([["crashed", "resumable"]])
        yield* elsewhere.close
      })
    )
  )

  it.live(
    "on a cluster's store its runners' runs are running: resume is refused, interrupt stops one, the other ends once",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { url } = yield* ownDatabase("inspector_cluster_pg")
          const provider = yield* heldProvider
          // A runner of the cluster engine (effect/cluster's tables beside the store's): it takes no owner's lock.
          const runner = yield* owner(Engine.layerClusterSql().pipe(Layer.provide(pool(url))), provider.url)
          yield* runner.start("clustered", "go")
          yield* runner.start("stopped", "go")
          yield* provider.awaitRequests(2)
          // As `agent ui --database-url URL --provider NAME` reads it: a resume it could run itself.
          const resumed = yield* Ref.make<ReadonlyArray<string>>([])
          const store = Context.get(
            yield* Layer.build(
              DurableStore.layer({
                pollInterval: "50 millis",
                resume: (id) => Ref.update(resumed, (ids) => [...ids, id])
              }).pipe(Layer.provide(pool(url)))
            ),
            InspectorStore.InspectorStore
          )
          const listed = yield* store.sessions({ offset: 0, limit: 10 })
          expect(listed.sessions.map((s) => [s.id, s.status]).sort()).toEqual([
            ["clustered", "running"],
            ["stopped", "running"]
          ])
          expect((yield* store.sessions({ status: "resumable", offset: 0, limit: 10 })).total).toBe(0)

          expect(yield* Effect.flip(store.resume("clustered"))).toEqual(
            new InspectorStore.ActionRefused({
              session_id: "clustered",
              action: "resume",
              reason: "runs of a cluster store are resumed by its runners: none runs here"
            })
          )
          expect(yield* Ref.get(resumed)).toEqual([])

          yield* store.interrupt("stopped")
          expect((yield* store.session("stopped")).summary.status).toBe("interrupted")

          yield* provider.release
          const done = yield* until(store.session("clustered"), (s) => s.summary.status !== "running")
          expect([done.summary.status, done.runs.map((run) => run.status)]).toEqual(["completed", ["completed"]])
          // One model call per session: nothing ran the cluster's runs a second time.
          expect((yield* provider.requests).length).toBe(2)
        })
      )
  )
})
