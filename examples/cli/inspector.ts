/**
 * The run inspector as `agent ui` serves it (see ui.ts): the durable store
 * read beside its owner (`DurableStore.layerSqlite` for `--session`,
 * `DurableStore.layer` over a Postgres pool for `--database-url`), the
 * inspector's own server (`InspectorServer.layer`) with a new action token,
 * every secret of the environment kept out of its pages, and its banner on
 * stdout. Given `--provider`, a resume asked from the page takes the store's
 * ownership (the engine and lock `agent --session PATH --resume` takes),
 * which resumes every unfinished run of the store: they all run here, and
 * the store is let go once each has ended, one such batch at a time (the
 * reader refuses a resume meanwhile, see `DurableStore.Options.resume`).
 * A store that is
 * missing, is no session store or cannot be reached, and a port that cannot
 * be listened on, are bad usage (exit 2).
 */
import { EventBus, type RunOutcome } from "@agent-kernel/kernel"
import { ActionToken, InspectorStore, Secrets } from "@agent-kernel/inspector"
import { DurableStore } from "@agent-kernel/inspector/durable"
import { InspectorServer } from "@agent-kernel/inspector/node"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Redacted from "effect/Redacted"
import { DurableSessions, Engine, sessionsLayer } from "./durable.js"
import { validPort } from "./fakeServer.js"
import * as Run from "./run.js"
import type { Input } from "./ui.js"
import { UsageError } from "./usage.js"

/** Why the server could not listen, in one line. */
const listenFailure = (error: HttpServerError.ServeError): string =>
  Predicate.hasProperty(error.cause, "message") ? String(error.cause.message) : String(error.cause)

/** The store `agent ui` was pointed at: the embedded store's file, or a Postgres database. */
type Source =
  | { readonly _tag: "Sqlite"; readonly file: string }
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string> }

/** The one store the options name; naming none or both is bad usage. */
export const sourceOf = (input: Pick<Input, "session" | "databaseUrl">): Source | UsageError => {
  if (Option.isSome(input.session) && Option.isSome(input.databaseUrl)) {
    return new UsageError({ message: "give --session PATH or --database-url URL, not both" })
  }
  if (Option.isSome(input.session)) return { _tag: "Sqlite", file: input.session.value }
  if (Option.isSome(input.databaseUrl)) return { _tag: "Postgres", url: input.databaseUrl.value }
  return new UsageError({ message: "agent ui needs the store to inspect: --session PATH or --database-url URL" })
}

/** How the options are named in a message about the store. */
const sourceName = (source: Source): string =>
  source._tag === "Sqlite" ? `--session ${source.file}` : "--database-url"

/** Why the page cannot resume a run without a provider, and what enables it. */
const cannotResume = (source: Source): string =>
  `agent ui runs no model unless started with --provider NAME (and the run's --model, --mcp, --settings, --set as agent takes them): then the page resumes it; or finish it with ${
    source._tag === "Sqlite" ? `agent --session ${source.file} --resume` : "the process that owns the store"
  }`

/** How a resumed run ended, in a line of stderr. */
const endOf = (id: string, exit: Exit.Exit<Option.Option<RunOutcome.RunOutcome>, unknown>): string =>
  Exit.match(exit, {
    onSuccess: Option.match({
      onNone: () => `agent ui: the resumed run of ${id} had no unfinished run\n`,
      onSome: (outcome) => `agent ui: the resumed run of ${id} ended ${outcome.status}\n`
    }),
    onFailure: (cause) => `agent ui: could not resume ${id}: ${messageOf(Cause.squash(cause))}\n`
  })

/** What taking the store starts, in a line of stderr: `runs`, read before it was taken, `id` first. */
const takingNotice = (id: string, runs: ReadonlyArray<string>): string =>
  runs.length <= 1
    ? `agent ui: resuming the unfinished run of ${id}\n`
    : `agent ui: taking the store resumes its ${runs.length} unfinished runs: ${runs.join(", ")}\n`

/**
 * Finishes the session's unfinished run in this process, as `agent --session PATH --resume` does:
 * the provider and plugins `prepared` names, and the store's ownership (`engine`: its lock). Taking
 * the store resumes every unfinished run of it (`runs`, `id`'s first): each is awaited, and all is let
 * go once they have all ended. Each run's end is told on stderr once the store is let go; the
 * result is `id`'s.
 */
const resumeRun =
  (prepared: Run.Prepared, engine: Layer.Layer<Engine.Engine, Engine.StoreError>) =>
  (id: string, runs: ReadonlyArray<string>) =>
    Effect.scoped(
      Effect.gen(function* () {
        const provider = yield* Run.makeProvider(prepared)
        const toolbox = yield* Run.makeToolbox(prepared)
        const bus = yield* EventBus.make()
        const owned = yield* Layer.build(sessionsLayer(engine, Run.sessionConfig(prepared), { provider, bus, toolbox }))
        yield* Effect.sync(() => process.stderr.write(takingNotice(id, runs)))
        const sessions = Context.get(owned, DurableSessions.DurableSessions)
        // One run's failure loses none of the others' ends.
        return yield* Effect.forEach(runs, (run) => Effect.exit(sessions.resume(run)), { concurrency: "unbounded" })
      })
    ).pipe(
      Effect.tapError((error) =>
        Effect.sync(() => process.stderr.write(`agent ui: could not resume ${runs.join(", ")}: ${messageOf(error)}\n`))
      ),
      // Told once the store is let go.
      Effect.tap((exits) =>
        Effect.sync(() => process.stderr.write(exits.map((exit, index) => endOf(runs[index] ?? id, exit)).join("")))
      ),
      Effect.flatMap((exits) => exits[0] ?? Effect.succeedNone),
      Effect.provide(NodeTransport.layer())
    )

const messageOf = (error: unknown): string =>
  Predicate.hasProperty(error, "message") ? String(error.message) : String(error)

/** The store's reader, and the engine a resume takes the store with (its owner's lock with it). */
const storeOf = (source: Source) =>
  Effect.gen(function* () {
    if (source._tag === "Sqlite") {
      return {
        reader: (options: DurableStore.Options) => DurableStore.layerSqlite(source.file, options),
        engine: Engine.layerSqlite(source.file)
      }
    }
    // One pool: the reader's statements, and a resume's engine, which reserves one of its connections.
    const pool = Layer.succeedContext(
      yield* Layer.build(PgClient.layer({ url: source.url, connectTimeout: "10 seconds" })).pipe(
        Effect.mapError((error) => new UsageError({ message: `--database-url: ${error.message}` }))
      )
    )
    return {
      reader: (options: DurableStore.Options) => DurableStore.layer(options).pipe(Layer.provide(pool)),
      engine: Engine.layerSql().pipe(Layer.provide(pool))
    }
  })

/** Serves until interrupted (SIGINT, SIGTERM); the server and the store close with the scope. */
export const serve = (input: Input) =>
  Effect.scoped(
    Effect.gen(function* () {
      const port = input.port._tag === "Some" ? input.port.value : InspectorServer.defaultPort
      if (!validPort(port)) return yield* new UsageError({ message: `--port must be 0 to 65535, not ${port}` })
      const source = sourceOf(input)
      if (source instanceof UsageError) return yield* source
      const named = sourceName(source)
      // The model options are checked at start: a resume from the page fails on nothing they say.
      const prepared = Option.isSome(input.provider) ? Option.some(yield* Run.prepare(input)) : Option.none()
      const { reader, engine } = yield* storeOf(source)
      const services = yield* Effect.context<Effect.Services<ReturnType<ReturnType<typeof resumeRun>>>>()
      const options: DurableStore.Options = Option.match(prepared, {
        onNone: () => ({ cannotResume: cannotResume(source) }),
        onSome: (prepared) => ({
          resume: (id: string, runs: ReadonlyArray<string>) =>
            Effect.provideContext(resumeRun(prepared, engine)(id, runs), services)
        })
      })
      const store = yield* Layer.build(reader(options)).pipe(
        Effect.mapError((error) => new UsageError({ message: `${named}: ${error.message}` }))
      )
      // A database that cannot be reached, or holds no session store, is told now, not on the page.
      yield* Context.get(store, InspectorStore.InspectorStore)
        .sessions({ offset: 0, limit: 1 })
        .pipe(Effect.mapError((error) => new UsageError({ message: `${named}: ${error.message}` })))
      const token = yield* ActionToken.make
      const server = InspectorServer.layer({
        token,
        host: input.host,
        port,
        // The database's URL may hold its password.
        secrets: [...Secrets.fromEnvironment(process.env), ...(source._tag === "Postgres" ? [source.url] : [])]
      })
      const listening = yield* Layer.build(server.pipe(Layer.provide(Layer.succeedContext(store)))).pipe(
        Effect.mapError(
          (error) => new UsageError({ message: `cannot listen on ${input.host}:${port}: ${listenFailure(error)}` })
        )
      )
      const banner = yield* Effect.provideContext(InspectorServer.banner(token), listening)
      const where = source._tag === "Sqlite" ? source.file : "the Postgres store"
      const resumes = Option.isSome(prepared) ? "resumes runs no process holds" : "resumes nothing (no --provider)"
      yield* Effect.sync(() => {
        process.stdout.write(`${banner}\n`)
        process.stderr.write(`agent ui: reading ${where} beside any process that runs it; ${resumes}; Ctrl-C to stop\n`)
      })
      return yield* Effect.never
    })
  )
