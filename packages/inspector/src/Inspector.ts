/**
 * The run inspector as routes of an effect/http `HttpRouter`: the sessions
 * of the `InspectorStore` in context, a session's runs and messages, a run's
 * timeline, a session's events live over SSE, and the actions resume and
 * interrupt, which need the token given here. Pages are rendered on the
 * server; their stylesheet and script are served by the same routes, so the
 * page loads nothing from elsewhere. Secrets never reach a page or a
 * response: every value read from the store is scrubbed of `secrets` and of
 * the token first.
 *
 * Mount it in an Effect HTTP server of your own by merging `layer` with your
 * routes (under a `prefix` of its own), or run it alone with
 * `@agent-kernel/inspector/node`'s `InspectorServer`.
 *
 * @example
 * ```ts
 * import { Inspector, InspectorStore } from "@agent-kernel/inspector"
 * import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
 * import { Layer } from "effect"
 * import * as HttpRouter from "effect/http/HttpRouter"
 * import * as HttpServerResponse from "effect/http/HttpServerResponse"
 * import * as Redacted from "effect/Redacted"
 * import { createServer } from "node:http"
 *
 * declare const store: Layer.Layer<InspectorStore.InspectorStore>
 * declare const token: Redacted.Redacted<string>
 *
 * const Health = HttpRouter.add("GET", "/health", HttpServerResponse.text("ok"))
 * const Routes = Layer.mergeAll(Health, Inspector.layer({ token, prefix: "/inspector" }))
 *
 * const Server = HttpRouter.serve(Routes).pipe(
 *   Layer.provide(store),
 *   Layer.provide(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 8080 }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as InspectorStore from "./InspectorStore.js"
import * as Routes from "./internal/routes.js"
import { scrubbed } from "./internal/scrubbed.js"
import * as Secrets from "./Secrets.js"

/**
 * How the inspector is mounted and guarded.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The token the actions need (see `ActionToken.make`). */
  readonly token: Redacted.Redacted<string>
  /** The path the inspector is mounted under, such as `/inspector`; default: the root. */
  readonly prefix?: string | undefined
  /**
   * Secrets to scrub from everything shown (see `Secrets.fromEnvironment`);
   * the token is always among them.
   */
  readonly secrets?: ReadonlyArray<Redacted.Redacted<string>> | undefined
  /** Sessions a page of the sessions list shows. Default 50. */
  readonly pageSize?: number | undefined
}

/**
 * A mount path in its canonical form: empty for the root, else `/a/b`.
 *
 * @since 0.1.0
 * @category paths
 */
export const normalizePrefix = (prefix: string | undefined): string => {
  const trimmed = (prefix ?? "").trim().replace(/\/+$/, "")
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/**
 * The inspector's routes, added to the `HttpRouter` being built, over the
 * `InspectorStore` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<never, never, HttpRouter.HttpRouter | InspectorStore.InspectorStore> =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      const store = yield* InspectorStore.InspectorStore
      const base = normalizePrefix(options.prefix)
      const scrub = Secrets.scrubber([...(options.secrets ?? []), options.token])
      const routes = Routes.make({
        store: scrubbed(store, scrub),
        scrubText: scrub,
        token: options.token,
        base,
        pageSize: Math.max(1, Math.min(500, Math.floor(options.pageSize ?? 50)))
      })
      yield* (base === "" ? router : router.prefixed(base)).addAll(routes)
    })
  )
