/**
 * The three timeouts a provider enforces on one model call, each mapped to a
 * `Timeout` error (transient):
 *
 * - `connect`: from sending until the socket is connected (TCP, plus TLS for
 *   https). Only observable with `NodeTransport.layer`.
 * - `firstByte`: from connected until the response status and headers arrive.
 *   For a non-streaming call the server generates the whole answer first, so
 *   this one is long by default.
 * - `idle`: the longest time between two content-bearing parts of the body,
 *   counted from the moment the headers arrive. In a stream only events that
 *   carry content (text, a tool call, a stop reason, usage, the end) restart
 *   it: pings, SSE comments, empty events and other keep-alives never do, so
 *   a server that only keeps the connection alive is cut at the bound. In a
 *   JSON body whitespace does not count either.
 *
 * By default each comes from the session: the kernel provides
 * `ModelProvider.CurrentCallTimeouts` from its settings
 * (`model_connect_timeout_ms`, `model_first_byte_timeout_ms`,
 * `model_idle_timeout_ms`) to every call, and providers read it at call
 * time. A provider's own `timeouts` option, field by field, wins over the
 * session's. The whole attempt is bounded by the kernel
 * (`model_attempt_timeout_ms`), not here.
 *
 * All three run on Effect's `Clock`, so `TestClock` drives them while the
 * socket is real.
 *
 * @since 0.1.0
 */
import type { ModelProvider } from "@agent-kernel/kernel"
import * as Duration from "effect/Duration"

/**
 * A provider's own timeouts; each field given wins over the session's
 * `CurrentCallTimeouts`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: the session's `model_connect_timeout_ms` (10 seconds). */
  readonly connect?: Duration.Input | undefined
  /** Default: the session's `model_first_byte_timeout_ms` (10 minutes, the official SDKs' whole-request default). */
  readonly firstByte?: Duration.Input | undefined
  /** Default: the session's `model_idle_timeout_ms` (60 seconds). */
  readonly idle?: Duration.Input | undefined
}

/**
 * Resolved timeouts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeouts {
  readonly connect: Duration.Duration
  readonly firstByte: Duration.Duration
  readonly idle: Duration.Duration
}

/**
 * The timeouts of one call: the provider's options where given, else the
 * session's call timeouts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolve = (options: Options | undefined, session: ModelProvider.CallTimeouts): Timeouts => ({
  connect: options?.connect !== undefined ? Duration.fromInputUnsafe(options.connect) : session.connect,
  firstByte: options?.firstByte !== undefined ? Duration.fromInputUnsafe(options.firstByte) : session.firstByte,
  idle: options?.idle !== undefined ? Duration.fromInputUnsafe(options.idle) : session.idle
})

/**
 * Which timeout fired; recorded as `details.phase` of the `Timeout` error.
 *
 * @since 0.1.0
 * @category models
 */
export type Phase = "connect" | "first_byte" | "idle"
