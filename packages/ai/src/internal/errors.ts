/**
 * The pure half of error mapping: what an `AiError` (or a response the
 * single-request guard recorded) says, as classification facts.
 *
 * @internal
 */
import type { ModelError } from "@agent-kernel/kernel"
import { Anthropic, Classification, OpenAi } from "@agent-kernel/providers"
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

const sensitiveHeaders = new Set([
  "set-cookie",
  "cookie",
  "authorization",
  "x-api-key",
  "api-key",
  "proxy-authorization"
])

/**
 * The response headers worth keeping: string values only (@effect/ai
 * redacts credentials into `Redacted` values) and never credentials or
 * cookies.
 */
export const keptHeaders = (headers: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (typeof headers !== "object" || headers === null) return out
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value === "string" && !sensitiveHeaders.has(key.toLowerCase())) out[key.toLowerCase()] = value
  }
  return out
}

const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/** A response body as read: parsed JSON when it is JSON, else the text. */
export const bodyOfText = (text: string): unknown => Option.getOrElse(parseJson(text), () => text)

/**
 * The body an `HttpResponseError` kept. @effect/ai stores it as
 * `JSON.stringify(value, null, 2)` of the parsed JSON (or of the text for
 * a text body); a text body may itself hold JSON.
 */
export const bodyOf = (stored: string | undefined): unknown => {
  if (stored === undefined) return undefined
  const value = bodyOfText(stored)
  return typeof value === "string" ? bodyOfText(value) : value
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
  headers: keptHeaders(error.response.headers),
  body: bodyOf(error.body)
})

/** What the tables say about an HTTP failure, with the row that decided. */
export const classifyHttp = (
  dialect: Dialect,
  failure: HttpFailure
): Classification.Classified & { readonly facts: Classification.Facts } => {
  const { table, errorFacts } = dialects[dialect]
  const read = failure.body === undefined ? Option.none() : errorFacts(failure.body)
  const facts: Classification.Facts = {
    status: failure.status,
    ...Option.getOrElse(read, () => ({ message: "the error body is not in the provider's error shape" }))
  }
  return { ...Classification.classify(table, facts), facts }
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
  headers["x-should-retry"]?.trim().toLowerCase() === "false" ? false : undefined

const REDACTED = "<redacted>"

/** Replaces every occurrence of each secret (of four characters or more) in a string. */
export const scrub = (secrets: ReadonlyArray<string>, text: string): string =>
  secrets.reduce((out, secret) => (secret.length >= 4 ? out.split(secret).join(REDACTED) : out), text)

/** Replaces the secrets everywhere inside a JSON-like value, keys included. */
export const scrubDeep = (secrets: ReadonlyArray<string>, value: unknown): unknown => {
  if (secrets.length === 0) return value
  if (typeof value === "string") return scrub(secrets, value)
  if (Array.isArray(value)) return value.map((item) => scrubDeep(secrets, item))
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[scrub(secrets, key)] = scrubDeep(secrets, item)
    return out
  }
  return value
}

const credentialHeaders = new Set(["authorization", "x-api-key", "api-key", "proxy-authorization"])

/** The credentials a request carries in its headers (a bearer token without its scheme too). */
export const credentialsOf = (headers: Readonly<Record<string, string>>): ReadonlyArray<string> =>
  Object.entries(headers).flatMap(([name, value]) => {
    if (!credentialHeaders.has(name.toLowerCase())) return []
    const token = /^\s*(?:bearer|basic)\s+(.+)$/i.exec(value)?.[1]
    return token === undefined ? [value] : [value, token]
  })
