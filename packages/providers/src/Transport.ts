/**
 * The HTTP transport the providers send through: an `effect/http`
 * `HttpClient`, plus a way to learn when a request's socket is connected so
 * that the connect timeout can be told apart from the first-byte timeout.
 *
 * `layerHttpClient` wraps any `HttpClient` from the context (fetch, undici, a
 * test double); it cannot see connections, so there the first-byte timeout
 * covers connecting too. On Node, `NodeTransport.layer` from
 * `@agent-kernel/providers/node` builds a client whose agents report when each
 * request's socket is connected (TCP, or TLS for https) or reused from the
 * keep-alive pool.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"

/**
 * The request header that carries a call id from the provider to the agent.
 * It only correlates a request with its socket; servers ignore it.
 *
 * @since 0.1.0
 * @category constants
 */
export const callHeader = "x-agent-kernel-call"

/**
 * A registered connect callback: the id the request must carry in
 * `callHeader`, and how to unregister.
 *
 * @since 0.2.0
 * @category models
 */
export interface Watch {
  readonly callId: string
  readonly unwatch: () => void
}

/**
 * What a transport does: the `HttpClient` the providers send through, and
 * whether and how it reports a request's socket connecting.
 *
 * @since 0.3.0
 * @category models
 */
export interface Service {
  readonly client: HttpClient.HttpClient
  /** Whether `watch` callbacks fire; when `false` no connect phase is observable. */
  readonly tracksConnect: boolean
  /**
   * Registers a callback run once the socket of the request carrying
   * `callHeader: callId` is connected, under a fresh `callId` the transport
   * makes (so that the platform-neutral providers need no id source of
   * their own). Returns the id and the unregister function.
   */
  readonly watch: (onConnect: () => void) => Watch
}

/**
 * The transport service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Transport extends Context.Service<Transport, Service>()("@agent-kernel/providers/Transport") {}

/**
 * A transport over whatever `HttpClient` the context provides. Connections
 * are not observable, so the first-byte timeout also covers connecting.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient: Layer.Layer<Transport, never, HttpClient.HttpClient> = Layer.effect(
  Transport,
  Effect.map(HttpClient.HttpClient, (client) => ({
    client,
    tracksConnect: false,
    watch: () => ({ callId: "", unwatch: () => {} })
  }))
)
