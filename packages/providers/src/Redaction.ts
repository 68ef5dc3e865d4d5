/**
 * Keeping secrets out of errors: the key a server echoed into a body, a
 * message or a header never reaches a `ModelError`. The kernel providers and
 * the effect/ai adapter (`@agent-kernel/ai`) both build their errors with
 * these functions.
 *
 * @since 0.2.0
 */
import * as Option from "effect/Option"

/**
 * What a secret is replaced with.
 *
 * @since 0.2.0
 * @category constants
 */
export const redacted = "<redacted>"

/**
 * Replaces every occurrence of each secret (of four characters or more) in a
 * string.
 *
 * @since 0.2.0
 * @category redaction
 */
export const scrub = (secrets: ReadonlyArray<string>, text: string): string =>
  secrets.reduce((out, secret) => (secret.length >= 4 ? out.split(secret).join(redacted) : out), text)

/**
 * Replaces the secrets everywhere inside a JSON-like value, keys included.
 *
 * @since 0.2.0
 * @category redaction
 */
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

/**
 * At most `max` characters of a text, with the secrets scrubbed FIRST: cutting
 * first could split a secret across the cut and leave a part of it that no
 * longer matches.
 *
 * @since 0.2.0
 * @category redaction
 */
export const excerpt = (secrets: ReadonlyArray<string>, text: string, max: number): string => {
  const clean = scrub(secrets, text)
  return clean.length > max ? `${clean.slice(0, max)}…` : clean
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
 * The response headers worth keeping in an error's `details`: string values
 * only (effect/ai redacts credentials into `Redacted` values), names in
 * lower case, never credentials or cookies.
 *
 * @since 0.2.0
 * @category redaction
 */
export const keptHeaders = (headers: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (typeof headers !== "object" || headers === null) return out
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value === "string" && !sensitiveHeaders.has(key.toLowerCase())) out[key.toLowerCase()] = value
  }
  return out
}

/**
 * Parses JSON without throwing (it runs on every SSE event, so it stays a bare
 * `JSON.parse`).
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/**
 * A body as read: its parsed JSON when it is JSON, else the text.
 *
 * @since 0.2.0
 * @category parsing
 */
export const bodyOfText = (text: string): unknown => Option.getOrElse(parseJson(text), () => text)
