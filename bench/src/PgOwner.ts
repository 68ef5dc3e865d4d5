/**
 * The cost of the Postgres owner's fencing: `Engine.layerSql` runs
 * every statement of the light engine and the session store on the one
 * connection that holds the store's advisory lock, so that none can land
 * once the lock is lost. Against the same engine over the pool with no
 * fencing (statements on any pooled connection), and over
 * the pool with an ownership check before each journal write (a `pg_locks`
 * query for the holder's lock: the other design considered; a lower bound of
 * it, since a check that fences must share a transaction with the write,
 * `BEGIN` and `COMMIT` more, and the store's writes are not checked here).
 *
 * Two loads: one run of `steps` steps (a model call and a tool call each) at
 * a time, and `sessions` runs at once (the pool has 10 connections: the
 * fenced engine serialises what the others spread). Each engine has its own
 * database in one throwaway PostgreSQL (`TempPostgres`), started once,
 * outside the samples; every sample is new sessions. Medians of interleaved
 * rounds, as ratios to the unfenced pool.
 *
 * @since 0.2.0
 */
import { TempPostgres } from "@agent-kernel/cluster/testing"
import { DurableSessions, Engine, SqlEngine } from "@agent-kernel/durable"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import * as Goal from "./Goal.js"
import * as Journaling from "./Journaling.js"
import * as Measure from "./Measure.js"
import * as Report from "./Report.js"
import * as Script from "./Script.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Plan {
  readonly steps: number
  /** Runs at once in the concurrent load. */
  readonly sessions: number
  readonly rounds: number
}

/**
 * @since 0.2.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = {
  full: { steps: 20, sessions: 8, rounds: 7 },
  quick: { steps: 10, sessions: 4, rounds: 3 }
}

const pool = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 10 })

/** The database `name` in the server of `url`, new; its URL. */
const database = (url: string, name: string) =>
  Effect.gen(function* () {
    yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)).pipe(
      Effect.provide(pool(url)),
      Effect.scoped
    )
    const own = new URL(url)
    own.pathname = `/${name}`
    return own.toString()
  })

/** The light engine over the pool, the store's tables created: no lock, no fencing. */
const unfenced = (options: SqlEngine.Options = {}) =>
  SqlEngine.layer(options).pipe(Layer.provideMerge(Layer.effectDiscard(Engine.migrate)))

/** `unfenced`, each journal write after a query of `pg_locks` for the lock a reserved connection holds. */
const checked = Layer.unwrap(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const holder = yield* sql.reserve
    yield* holder.execute("SELECT pg_advisory_lock(1)", [], undefined)
    const check = sql`SELECT 1 FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = 1`.pipe(
      Effect.orDie,
      Effect.flatMap((rows) => (rows.length === 1 ? Effect.void : Effect.die(new Error("the lock is not held"))))
    )
    return unfenced({ beforeWrite: () => check })
  })
)

type EngineLayer = Layer.Layer<Engine.Engine, Engine.StoreError>

/**
 * Measures and prints the table; no goal is judged (the figures are for the
 * design's record).
 *
 * @since 0.2.0
 * @category running
 */
export const run = (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const postgres = yield* TempPostgres.start()
        const engines: ReadonlyArray<readonly [string, EngineLayer]> = [
          [
            "pool, no fencing",
            unfenced().pipe(Layer.provideMerge(pool(yield* database(postgres.url, "owner_unfenced"))), Layer.orDie)
          ],
          [
            "pool, pg_locks check before each journal write",
            checked.pipe(Layer.provideMerge(pool(yield* database(postgres.url, "owner_checked"))), Layer.orDie)
          ],
          [
            "the lock's connection (layerSql)",
            Engine.layerSql().pipe(Layer.provideMerge(pool(yield* database(postgres.url, "owner_fenced"))), Layer.orDie)
          ]
        ]
        const runtimes = engines.map(([name, engine]) => ({
          name,
          runtime: ManagedRuntime.make(Journaling.durable(engine, plan.steps))
        }))
        yield* Effect.addFinalizer(() =>
          Effect.promise(() => Promise.all(runtimes.map(({ runtime }) => runtime.dispose())))
        )
        yield* Effect.promise(() => Promise.all(runtimes.map(({ runtime }) => runtime.runPromise(Effect.void))))
        let sessions = 0
        const runs = (runtime: (typeof runtimes)[number]["runtime"], count: number) => () =>
          Measure.sample(() =>
            runtime.runPromise(
              Effect.forEach(
                Array.from({ length: count }),
                () =>
                  Effect.flatMap(DurableSessions.DurableSessions, (all) =>
                    all.run(`s${sessions++}`, Script.prompt)
                  ).pipe(Effect.map((outcome) => Journaling.check("postgres", outcome.status))),
                { concurrency: "unbounded" }
              )
            )
          )
        const loads = [
          ["one run at a time", 1],
          [`${plan.sessions} runs at once`, plan.sessions]
        ] as const
        const contenders = loads.flatMap(([load, count]) =>
          runtimes.map(({ name, runtime }) => ({
            name: `${load}: ${name}`,
            count,
            samples: plan.rounds,
            measure: runs(runtime, count)
          }))
        )
        // One warm-up round, not counted: the first runs compile the statements and warm the pools.
        yield* Effect.promise(() => Measure.interleave(contenders, 1))
        const samples = yield* Effect.promise(() => Measure.interleave(contenders, plan.rounds))
        const medians = samples.map((taken) => Measure.median(taken.map((sample) => sample.millis)))
        console.log(
          `${plan.steps} steps a run (${2 * plan.steps + 2} journaled activities), local PostgreSQL, ` +
            `a pool of 10 connections; medians of ${plan.rounds} interleaved rounds`
        )
        console.log(
          Report.table(
            ["", "wall ms/sample", "ms/step/run", "x no fencing"],
            contenders.map((contender, i) => {
              const load = Math.floor(i / engines.length)
              const base = medians[load * engines.length]
              return [
                contender.name,
                Report.figure(medians[i]),
                Report.figure((medians[i] ?? Number.NaN) / contender.count / plan.steps),
                Report.times(Goal.ratio(medians[i], base))
              ]
            })
          )
        )
        return []
      })
    )
  )
