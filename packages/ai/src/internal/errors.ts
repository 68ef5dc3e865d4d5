/**
 * The pure half of error mapping: what an `AiError` reason (or a response the
 * single-request guard recorded) says, as classification facts.
 *
 * @internal
 */
import { ModelError } from "@agent-kernel/kernel"
import { Anthropic, Classification, OpenAi, Redaction } from "@agent-kernel/providers"
import type * as AiError from "effect/ai/AiError"
import * as Cause from "effect/Cause"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

// The kernel's error as JSON; one whose details JSON cannot hold is not carried.
const ModelErrorJson = Schema.toCodecJson(ModelError.ModelError)
export const encodeModelError = Schema.encodeOption(ModelErrorJson)
export const decodeModelError = Schema.decodeUnknownOption(ModelErrorJson)

/** A kernel error with its JSON edited; the error itself when JSON cannot hold it or the edit does not decode. */
export const editModelError = (error: ModelError.ModelError, edit: (json: unknown) => unknown): ModelError.ModelError =>
  Option.getOrElse(Option.flatMap(Option.map(encodeModelError(error), edit), decodeModelError), () => error)

/** What an `AiError` reason kept of the HTTP exchange. */
export type HttpContext = typeof AiError.HttpContext.Type

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
 * The dialect of the client that raised an error, from its `module`
 * (`AnthropicClient`, `OpenAiClient`, `OpenRouterClient`, their language
 * models). OpenRouter speaks OpenAI's error shape. `undefined` when the
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
  readonly reason: "TransportError" | "EncodeError" | "InvalidUrlError"
  readonly description?: string | undefined
  /** The socket error code (ECONNREFUSED, ECONNRESET...), when the cause kept one. */
  readonly code?: string | undefined
  /** The request timed out rather than failed (a `TimeoutError` in the cause). */
  readonly timedOut?: boolean | undefined
}

/**
 * The body an `AiError`'s HTTP context kept, as text: parsed when it is JSON
 * (a text body that itself holds JSON, too).
 */
export const bodyOf = (stored: string | undefined): unknown => {
  if (stored === undefined) return undefined
  const value = Redaction.bodyOfText(stored)
  return typeof value === "string" ? Redaction.bodyOfText(value) : value
}

/** Each object along a chain of `cause`s, at most `depth` deep. */
const causeChain = (cause: unknown, depth = 6): ReadonlyArray<object> => {
  const chain: Array<object> = []
  let current = cause
  for (let i = 0; i < depth && typeof current === "object" && current !== null; i++) {
    chain.push(current)
    current = "cause" in current ? current.cause : "reason" in current ? current.reason : undefined
  }
  return chain
}

/** The socket error code inside a cause chain, if any. */
export const codeOf = (cause: unknown): string | undefined => {
  for (const link of causeChain(cause)) if ("code" in link && typeof link.code === "string") return link.code
  return undefined
}

/** Whether a cause chain holds a timeout (`Cause.TimeoutError`, as `Effect.timeout` raises). */
export const timedOutOf = (cause: unknown): boolean => causeChain(cause).some(Cause.isTimeoutError)

/** Response headers as plain strings (a redacted value is dropped), lower-cased, credentials left out. */
export const plainHeaders = (headers: Readonly<Record<string, string | Redacted.Redacted<string>>>) => {
  const plain: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (!Redacted.isRedacted(value)) plain[name] = value
  return Redaction.keptHeaders(plain)
}

/** The failure a reason's HTTP context describes, if it kept the response. */
export const httpFailureOf = (http: HttpContext | undefined): HttpFailure | undefined =>
  http?.response === undefined
    ? undefined
    : { status: http.response.status, headers: plainHeaders(http.response.headers), body: bodyOf(http.body) }

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
 * providers classify transport failures: a timeout is a timeout, a socket
 * failure is transient, a request that could not be built is the request's
 * fault.
 */
export const transportCategory = (failure: TransportFailure): ModelError.Category =>
  failure.reason !== "TransportError" ? "invalid_request" : failure.timedOut === true ? "timeout" : "connection_error"

/**
 * The category of a response that could not be read or made no sense: a 5xx
 * is a server error, as the kernel's providers treat a malformed 5xx;
 * anything else is `unknown`, never retried.
 */
export const unreadableCategory = (status: number | undefined): ModelError.Category =>
  status !== undefined && status >= 500 && status < 600 ? "server_error" : "unknown"

/** `x-should-retry: false` forbids retrying, as the official SDKs read it. */
export const retryableOf = (headers: Readonly<Record<string, string>>): false | undefined =>
  Classification.shouldRetryOf(headers) === false ? false : undefined

/**
 * Whether a message says the prompt is over the model's context window, and
 * the counts it gives: each dialect's overflow rows, read on the message
 * alone (for an `InvalidRequestError` that kept no response).
 */
export const contextOverflowOf = (
  message: string | undefined
): { readonly promptTokens?: number | undefined; readonly maxTokens?: number | undefined } | undefined => {
  if (message === undefined) return undefined
  for (const dialect of ["anthropic", "openai"] as const) {
    const classified = Classification.classify(
      dialects[dialect].table.filter(
        (rule) => rule.category === "context_length_exceeded" && rule.message !== undefined
      ),
      { status: 400, message }
    )
    if (classified.category === "context_length_exceeded") {
      return { promptTokens: classified.promptTokens, maxTokens: classified.maxTokens }
    }
  }
  return undefined
}

const credentialHeaders = new Set(["authorization", "x-api-key", "api-key", "proxy-authorization"])

/** The credentials a request carries in its headers (a bearer token without its scheme too). */
export const credentialsOf = (headers: Readonly<Record<string, string>>): ReadonlyArray<string> =>
  Object.entries(headers).flatMap(([name, value]) => {
    if (!credentialHeaders.has(name.toLowerCase())) return []
    const token = /^\s*(?:bearer|basic)\s+(.+)$/i.exec(value)?.[1]
    return token === undefined ? [value] : [value, token]
  })
