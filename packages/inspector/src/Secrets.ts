/**
 * Secrets kept out of every page and response: each occurrence of a secret in
 * an event, a history or a message is replaced with `<redacted>`, with the
 * same function the providers use to keep API keys out of errors and logs
 * (`@agent-kernel/providers` `Redaction`).
 *
 * @since 0.1.0
 */
import { Redaction } from "@agent-kernel/providers"
import * as Redacted from "effect/Redacted"

/**
 * Environment variables whose names say they hold a secret: API keys,
 * tokens, secrets, passwords, credentials.
 *
 * @since 0.1.0
 * @category constants
 */
export const secretName = /(?:API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i

/**
 * The values of the environment variables named like secrets (`secretName`),
 * of 8 characters or more (a shorter value would redact ordinary words).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnvironment = (
  env: Readonly<Record<string, string | undefined>>
): ReadonlyArray<Redacted.Redacted<string>> =>
  Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && value.length >= 8 && secretName.test(name) ? [Redacted.make(value, { label: name })] : []
  )

/**
 * A function that scrubs the secrets from any JSON-like value, keeping its
 * type: only strings change, each to a string.
 *
 * @since 0.1.0
 * @category redaction
 */
export const scrubber = (secrets: ReadonlyArray<Redacted.Redacted<string>>): (<A>(value: A) => A) => {
  const values = [...new Set(secrets.map(Redacted.value))].filter((value) => value.length >= 4)
  // Longest first: a secret that contains another is replaced whole.
  values.sort((a, b) => b.length - a.length)
  // As JSON text escapes them: a secret occurs in a value exactly when its escaped form occurs in the value's JSON.
  const escaped = values.map((value) => JSON.stringify(value).slice(1, -1))
  // scrubDeep maps strings to strings and keeps every array and object's shape: the value keeps its type.
  return <A>(value: A): A => {
    if (values.length === 0) return value
    const text = JSON.stringify(value)
    // Most values hold no secret: they are returned as they are, not copied.
    if (text === undefined || !escaped.some((secret) => text.includes(secret))) return value
    return Redaction.scrubDeep(values, value) as A
  }
}

/**
 * Scrubs the secrets from a text.
 *
 * @since 0.1.0
 * @category redaction
 */
export const scrubText = (secrets: ReadonlyArray<Redacted.Redacted<string>>, text: string): string =>
  scrubber(secrets)(text)
