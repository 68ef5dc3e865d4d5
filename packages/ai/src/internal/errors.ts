/**
 * The pure half of error mapping: what an `AiError` (or a response the
 * single-request guard recorded) says, as classification facts.
 *
 * @internal
 */
import type { ModelError } from "@agent-kernel/kernel"
import { Anthropic, Classification, OpenAi, Redaction } from "@agent-kernel/providers"
import type * as AiError from "@effect/ai/AiError"
import * as Option from "effect/Option"

/** The wire dialect whose error bodies and classification table apply. */
export type Dialect = "anthropic" | "openai"

/** Each dialect's table and error-body reader: the kernel providers' own. */
export const dialects: Record<
  Dialect,
  {
    readonly table: ReadonlyArray<Classification.Rule>
    readonly errorFacts: (body: unknown) => Option.Option<Omit<Classification.Facts, "status">>
  }
> = {
  anthropic: { table: Classification.anthropic, errorFacts: Anthropic.errorFacts },
  openai: { table: Classification.openAi, errorFacts: OpenAi.errorFacts }
}

/**
 * The dialect of the @effect/ai client that raised an error, from its
 * `module`. OpenRouter speaks OpenAI's error shape. `undefined` when the
 * module is not one whose wire format the tables know.
 */
export const dialectOfModule = (module: string): Dialect | undefined => {
  if (module.startsWith("Anthropic")) return "anthropic"
  if (module.startsWith("OpenAi") || module.startsWith("OpenRouter")) return "openai"
  return undefined
}

/** An HTTP response that failed: what the classification tables read. */
export interface HttpFailure {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The body: parsed JSON when it was JSON, the text otherwise, `undefined` when none was kept. */
  readonly body: unknown
}

/** A request that got no response. */
export interface TransportFailure {
  readonly reason: "Transport" | "Encode" | "InvalidUrl"
  readonly description?: string | undefined
  /** The socket error code (ECONNREFUSED, ECONNRESET...), when the cause kept one. */
  readonly code?: string | undefined
}

/**
 * The body an `HttpResponseError` kept. @effect/ai stores it as
 * `JSON.stringify(value, null, 2)` of the parsed JSON (or of the text for
 * a text body); a text body may itself hold JSON.
 */
export const bodyOf = (stored: string | undefined): unknown => {
  if (stored === undefined) return undefined
  const value = Redaction.bodyOfText(stored)
  return typeof value === "string" ? Redaction.bodyOfText(value) : value
}

/** The socket error code inside an `HttpRequestError`'s cause, if any. */
export const codeOf = (cause: unknown): string | undefined => {
  let current = cause
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    if ("code" in current && typeof current.code === "string") return current.code
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

/** The failure an `HttpResponseError` describes. */
export const httpFailureOf = (error: AiError.HttpResponseError): HttpFailure => ({
  status: error.response.status,
  headers: Redaction.keptHeaders(error.response.headers),
  body: bodyOf(error.body)
})

/**
 * What the tables say about an HTTP failure, with the row that decided: the
 * kernel providers' own classification, on status, headers (`x-should-retry`
 * included) and body.
 */
export const classifyHttp = (dialect: Dialect, failure: HttpFailure) => {
  const { table, errorFacts } = dialects[dialect]
  const read = failure.body === undefined ? Option.none() : errorFacts(failure.body)
  return Classification.classifyFailure(table, {
    status: failure.status,
    headers: failure.headers,
    facts: Option.getOrElse(read, () => ({ message: "the error body is not in the provider's error shape" }))
  })
}

/**
 * The category of a request that got no response, as the kernel's own
 * providers classify transport failures: a socket failure is transient, a
 * request that could not be built is the request's fault.
 */
export const transportCategory = (failure: TransportFailure): ModelError.Category =>
  failure.reason === "Transport" ? "connection_error" : "invalid_request"

/**
 * The category of an HTTP response that could not be read (`Decode`,
 * `EmptyBody`): a 5xx is a server error, as the kernel's providers treat a
 * malformed 5xx; anything else is `unknown`, because @effect/ai keeps no
 * cause here (a reset mid-body and a garbled body look the same).
 */
export const unreadableCategory = (status: number): ModelError.Category =>
  status >= 500 && status < 600 ? "server_error" : "unknown"

/** `x-should-retry: false` forbids retrying, as the official SDKs read it. */
export const retryableOf = (headers: Readonly<Record<string, string>>): false | undefined =>
  Classification.shouldRetryOf(headers) === false ? false : undefined

const credentialHeaders = new Set(["authorization", "x-api-key", "api-key", "proxy-authorization"])

/** The credentials a request carries in its headers (a bearer token without its scheme too). */
export const credentialsOf = (headers: Readonly<Record<string, string>>): ReadonlyArray<string> =>
  Object.entries(headers).flatMap(([name, value]) => {
    if (!credentialHeaders.has(name.toLowerCase())) return []
    const token = /^\s*(?:bearer|basic)\s+(.+)$/i.exec(value)?.[1]
    return token === undefined ? [value] : [value, token]
  })
