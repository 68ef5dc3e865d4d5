/**
 * The inspector as a server of its own on Node (what `agent ui` runs): the
 * inspector's routes served by `@effect/platform-node`'s HTTP server, on
 * 127.0.0.1 unless told otherwise. It opens no browser; print `banner` for
 * the person who started it (the address, and the token the actions need).
 *
 * @example
 * ```ts
 * import { ActionToken, InspectorStore } from "@agent-kernel/inspector"
 * import { InspectorServer } from "@agent-kernel/inspector/node"
 * import { Console, Effect, Layer } from "effect"
 *
 * declare const store: Layer.Layer<InspectorStore.InspectorStore>
 *
 * const program = Effect.gen(function* () {
 *   const token = yield* ActionToken.make
 *   yield* Effect.gen(function* () {
 *     yield* Console.log(yield* InspectorServer.banner(token))
 *     yield* Effect.never
 *   }).pipe(Effect.provide(InspectorServer.layer({ token }).pipe(Layer.provide(store))))
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Http from "node:http"
import * as Inspector from "../Inspector.js"
import type * as InspectorStore from "../InspectorStore.js"

/**
 * Where the server listens, and the inspector's own options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Inspector.Options {
  /** Default `127.0.0.1`: only this machine can reach it. */
  readonly host?: string | undefined
  /** Default `defaultPort`; 0 picks a free port. */
  readonly port?: number | undefined
  /** How long closing waits for open responses (live streams) before it cuts them. Default 1 second. */
  readonly shutdownGrace?: Duration.Input | undefined
}

/**
 * The port the inspector listens on unless told otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPort = 4319

/**
 * The server: the inspector's routes over the `InspectorStore` in context,
 * listening until the layer's scope closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError, InspectorStore.InspectorStore> =>
  HttpRouter.serve(Inspector.layer(options), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(
      NodeHttpServer.layer(() => Http.createServer(), {
        host: options.host ?? "127.0.0.1",
        port: options.port ?? defaultPort,
        gracefulShutdownTimeout: options.shutdownGrace ?? Duration.seconds(1)
      })
    )
  )

/**
 * The server's address as a URL, such as `http://127.0.0.1:4319`.
 *
 * @since 0.1.0
 * @category accessors
 */
export const url: Effect.Effect<string, never, HttpServer.HttpServer> = HttpServer.addressFormattedWith(Effect.succeed)

/**
 * What to print at start-up: where the inspector is, and the token its
 * actions need.
 *
 * @since 0.1.0
 * @category accessors
 */
export const banner = (
  token: Redacted.Redacted<string>,
  prefix?: string | undefined
): Effect.Effect<string, never, HttpServer.HttpServer> =>
  Effect.map(
    url,
    (address) =>
      `agent-kernel inspector: ${address}${Inspector.normalizePrefix(prefix)}/\naction token (resume, interrupt): ${Redacted.value(token)}`
  )
