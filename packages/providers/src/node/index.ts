/**
 * The Node-only part of the providers: the transport that observes each
 * request's connection. Import it from `@agent-kernel/providers/node`; the
 * main entry runs on any platform with an `HttpClient`.
 *
 * @since 0.1.0
 */

/**
 * A Node `HttpClient` whose connect phase is observable.
 *
 * @since 0.1.0
 */
export * as NodeTransport from "./NodeTransport.js"
