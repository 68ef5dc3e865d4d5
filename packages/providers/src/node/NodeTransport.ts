/**
 * The Node transport: an @effect/platform-node `HttpClient` (over `node:http`)
 * whose agents
 * report when each request's socket is connected (TCP, or TLS for https) or
 * reused from the keep-alive pool, so the connect timeout is told apart from
 * the first-byte timeout.
 *
 * It lives in `@agent-kernel/providers/node`, the one entry that needs
 * `@effect/platform-node`; elsewhere, `Transport.layerHttpClient` takes any
 * `HttpClient` from the context.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import type * as Scope from "effect/Scope"
import * as NodeCrypto from "node:crypto"
import type * as Http from "node:http"
import type * as Net from "node:net"
import type * as Stream from "node:stream"
import * as Tls from "node:tls"
import * as Transport from "../Transport.js"

/**
 * Options for the Node transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Keep connections alive between calls. Default: `true`. */
  readonly keepAlive?: boolean | undefined
  /** A DNS lookup replacing `dns.lookup` (tests use it to stall or fail resolution). */
  readonly lookup?: Net.LookupFunction | undefined
}

type Registry = Map<string, () => void>

const callIdOf = (value: unknown): string | undefined =>
  Predicate.isString(value) ? value : Array.isArray(value) && Predicate.isString(value[0]) ? value[0] : undefined

// Array.isArray does not narrow a readonly array out of a union.
const isArray = (u: unknown): u is ReadonlyArray<unknown> => Array.isArray(u)

const idFromHeaders = (headers: Http.ClientRequestArgs["headers"]): string | undefined =>
  headers === undefined || isArray(headers) ? undefined : callIdOf(headers[Transport.callHeader])

const notifyOnConnect = (registry: Registry, id: string | undefined, socket: Stream.Duplex | null | undefined) => {
  if (id === undefined || socket == null) return
  const fire = () => registry.get(id)?.()
  if (socket instanceof Tls.TLSSocket) {
    socket.once("secureConnect", fire)
  } else if ("connecting" in socket && socket.connecting === true) {
    socket.once("connect", fire)
  } else {
    fire()
  }
}

const notifyOnReuse = (registry: Registry, request: Http.ClientRequest) => {
  const id = callIdOf(request.getHeader(Transport.callHeader))
  if (id !== undefined) registry.get(id)?.()
}

// The stock agents of each scheme (Https.Agent makes the TLS sockets) get the
// same two hooks on the instance, so one function serves both.
const track = <A extends Http.Agent>(agent: A, registry: Registry): A => {
  const createConnection = agent.createConnection.bind(agent)
  const reuseSocket = agent.reuseSocket.bind(agent)
  agent.createConnection = (options, callback) => {
    const socket = createConnection(options, callback)
    notifyOnConnect(registry, idFromHeaders(options.headers), socket)
    return socket
  }
  agent.reuseSocket = (socket, request) => {
    reuseSocket(socket, request)
    notifyOnReuse(registry, request)
  }
  return agent
}

const makeWatch =
  (registry: Registry) =>
  (onConnect: () => void): Transport.Watch => {
    const callId = NodeCrypto.randomUUID()
    registry.set(callId, onConnect)
    return {
      callId,
      unwatch: () => {
        registry.delete(callId)
      }
    }
  }

/**
 * Builds the Node transport. Its agents are destroyed when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<Transport.Service, never, Scope.Scope> = Effect.fnUntraced(
  function* (options?: Options) {
    const registry: Registry = new Map()
    const agents = yield* NodeHttpClient.makeAgent({
      keepAlive: options?.keepAlive ?? true,
      ...(options?.lookup !== undefined ? { lookup: options.lookup } : {})
    })
    const client = yield* NodeHttpClient.makeNodeHttp.pipe(
      Effect.provideService(NodeHttpClient.HttpAgent, {
        http: track(agents.http, registry),
        https: track(agents.https, registry)
      })
    )
    return { client, tracksConnect: true, watch: makeWatch(registry) }
  }
)

/**
 * The Node transport as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Transport.Transport> =>
  Layer.effect(Transport.Transport, make(options))
