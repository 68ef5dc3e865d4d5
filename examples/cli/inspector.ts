/**
 * The run inspector as `agent ui` serves it (see ui.ts): the durable store
 * read beside its owner (`DurableStore.layerSqlite`), the inspector's own
 * server (`InspectorServer.layer`) with a new action token, every secret of
 * the environment kept out of its pages, and its banner on stdout. A store
 * that is missing or is no session store, and a port that cannot be listened
 * on, are bad usage (exit 2).
 */
import { ActionToken, Secrets } from "@agent-kernel/inspector"
import { DurableStore } from "@agent-kernel/inspector/durable"
import { InspectorServer } from "@agent-kernel/inspector/node"
import * as Effect from "effect/Effect"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import { validPort } from "./fakeServer.js"
import type { Input } from "./ui.js"
import { UsageError } from "./usage.js"

/** Why the server could not listen, in one line. */
const listenFailure = (error: HttpServerError.ServeError): string =>
  Predicate.hasProperty(error.cause, "message") ? String(error.cause.message) : String(error.cause)

/** Serves until interrupted (SIGINT, SIGTERM); the server and the store close with the scope. */
export const serve = (input: Input) =>
  Effect.scoped(
    Effect.gen(function* () {
      const port = input.port._tag === "Some" ? input.port.value : InspectorServer.defaultPort
      if (!validPort(port)) return yield* new UsageError({ message: `--port must be 0 to 65535, not ${port}` })
      const store = yield* Layer.build(DurableStore.layerSqlite(input.session)).pipe(
        Effect.mapError((error) => new UsageError({ message: `--session ${input.session}: ${error.message}` }))
      )
      const token = yield* ActionToken.make
      const server = InspectorServer.layer({
        token,
        host: input.host,
        port,
        secrets: Secrets.fromEnvironment(process.env)
      })
      const listening = yield* Layer.build(server.pipe(Layer.provide(Layer.succeedContext(store)))).pipe(
        Effect.mapError(
          (error) => new UsageError({ message: `cannot listen on ${input.host}:${port}: ${listenFailure(error)}` })
        )
      )
      const banner = yield* Effect.provideContext(InspectorServer.banner(token), listening)
      yield* Effect.sync(() => {
        process.stdout.write(`${banner}\n`)
        process.stderr.write(`agent ui: reading ${input.session} beside any process that runs it; Ctrl-C to stop\n`)
      })
      return yield* Effect.never
    })
  )
