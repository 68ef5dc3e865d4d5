/**
 * Runners of the service as real processes, for its test and its benchmark:
 * `main.ts start` spawned with node and tsx's loader, killed with its scope,
 * and a wait until a set of runners holds every shard between them.
 *
 * @since 0.1.0
 */
import { Ports } from "@agent-kernel/cluster/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import * as Output from "./internal/output.js"
import * as Service from "./Service.js"
import type * as SessionEvents from "./SessionEvents.js"

/**
 * A runner process that did not start, or runners that never took every shard.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunnerProcessError extends Data.TaggedError("RunnerProcessError")<{ readonly message: string }> {}

/**
 * A running runner process.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunnerProcess {
  /** Its HTTP API: `http://127.0.0.1:PORT`. */
  readonly http: string
  /** Its runner address, as the events it publishes name it: `127.0.0.1:PORT`. */
  readonly runner: string
  readonly pid: number
  /** Sends it a signal: SIGTERM stops it as an orchestrator would, SIGKILL as a crash. */
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<void>
  /** Its exit code once it has exited (null when a signal ended it). */
  readonly exited: Effect.Effect<number | null>
  /** What it has printed so far, stdout and stderr. */
  readonly output: Effect.Effect<string>
}

/**
 * Options of `start`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly databaseUrl: string
  /** An Anthropic-compatible server; without it, the process starts its own fake provider. */
  readonly providerUrl?: string | undefined
  /** The own fake provider's wait before each answer. */
  readonly modelLatencyMs?: number | undefined
  /** Any other flags of `main.ts start` (`--drain-timeout 5`). */
  readonly flags?: ReadonlyArray<string> | undefined
}

const root = Path.join(import.meta.dirname, "..", "..")

/**
 * Creates the database `name` on the server of `serverUrl` (a URL of any of
 * its databases), sets it up for the service (`Service.migrate`), and returns
 * its URL: runners on it meet no other database's runners.
 *
 * @since 0.1.0
 * @category constructors
 */
export const freshDatabase = (
  serverUrl: string,
  name: string
): Effect.Effect<string, RunnerProcessError | Service.ServiceError | SessionEvents.EventLogError> =>
  Effect.gen(function* () {
    // A plain identifier: CREATE DATABASE takes no bound parameter.
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
      return yield* new RunnerProcessError({ message: `not a plain database name: ${name}` })
    }
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE DATABASE ${name}`)
  }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 })),
    Effect.mapError(
      (error) => new RunnerProcessError({ message: `cannot create the database ${name}: ${error.message}` })
    ),
    Effect.as(Object.assign(new URL(serverUrl), { pathname: `/${name}` }).href),
    Effect.tap((databaseUrl) => Service.migrate({ databaseUrl: Redacted.make(databaseUrl) }))
  )

/**
 * Starts `main.ts start` on free ports and waits for its `listening` line; the
 * process is killed (SIGKILL) when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (options: Options): Effect.Effect<RunnerProcess, RunnerProcessError, Scope.Scope> =>
  Effect.gen(function* () {
    const [port, runnerPort] = yield* Effect.all([Ports.free, Ports.free]).pipe(
      Effect.mapError((error) => new RunnerProcessError({ message: `no free port: ${error.message}` }))
    )
    const args = [
      "--import",
      "tsx",
      Path.join(import.meta.dirname, "main.ts"),
      "start",
      "--port",
      String(port),
      "--runner-port",
      String(runnerPort),
      "--database-url",
      options.databaseUrl,
      ...(options.providerUrl === undefined ? [] : ["--provider-url", options.providerUrl]),
      ...(options.modelLatencyMs === undefined ? [] : ["--model-latency-ms", String(options.modelLatencyMs)]),
      ...(options.flags ?? [])
    ]
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => ChildProcess.spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    let output = ""
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8")
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
    yield* Output.awaitOutput(
      child,
      "listening on",
      (code, printed) => new RunnerProcessError({ message: `a runner exited ${code}: ${printed}` })
    )
    return {
      http: `http://127.0.0.1:${port}`,
      runner: `127.0.0.1:${runnerPort}`,
      pid: child.pid ?? 0,
      kill: (signal) =>
        Effect.sync(() => {
          child.kill(signal)
        }),
      exited: Effect.promise(() => exited),
      output: Effect.sync(() => output)
    }
  })

const Holders = Schema.Array(Schema.Struct({ shards: Schema.NumberFromString }))

/**
 * Waits until exactly `runners` runners hold all `shards` shards of the
 * database at `databaseUrl` between them (each runner holds its shards as
 * advisory locks on its own connection). Prompts sent before that may run on
 * a runner that then hands the shard over, and replay there.
 *
 * @since 0.1.0
 * @category constructors
 */
export const awaitShards = (
  databaseUrl: string,
  runners: number,
  options: { readonly shards?: number | undefined; readonly timeout?: Duration.Input | undefined } = {}
): Effect.Effect<void, RunnerProcessError> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const database = new URL(databaseUrl).pathname.slice(1)
    const holders = sql`SELECT count(*)::text AS shards FROM pg_locks
      WHERE locktype = 'advisory' AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = ${database}) GROUP BY pid`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Holders)),
      Effect.map((rows) => rows.map((row) => row.shards))
    )
    yield* holders.pipe(
      Effect.repeat({
        until: (held) => held.length === runners && held.reduce((sum, n) => sum + n, 0) === (options.shards ?? 300),
        schedule: Schedule.spaced("200 millis")
      })
    )
  }).pipe(
    Effect.scoped,
    Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 })),
    Effect.mapError((error) => new RunnerProcessError({ message: `cannot read the shard locks: ${error.message}` })),
    Effect.timeoutOrElse({
      duration: options.timeout ?? Duration.minutes(2),
      orElse: () => Effect.fail(new RunnerProcessError({ message: `${runners} runners never held every shard` }))
    })
  )
