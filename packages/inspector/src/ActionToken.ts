/**
 * The token that guards the inspector's actions (resume, interrupt): random,
 * printed at start-up for the person who started the inspector, sent back by
 * the page with each action, and compared in constant time. Pages and API
 * responses never carry it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Redacted from "effect/Redacted"

/**
 * A new token: 32 random bytes from the platform's cryptographic random
 * source, base64url (43 characters).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Redacted.Redacted<string>> = Effect.sync(() =>
  Redacted.make(Base64Url.encode(globalThis.crypto.getRandomValues(new Uint8Array(32))), { label: "inspector token" })
)

const encoder = new TextEncoder()

/**
 * Whether `given` is the token. The time it takes depends on the length of
 * the token only, never on how much of it `given` gets right.
 *
 * @since 0.1.0
 * @category predicates
 */
export const matches = (token: Redacted.Redacted<string>, given: string): boolean => {
  const expected = encoder.encode(Redacted.value(token))
  const actual = encoder.encode(given)
  let difference = expected.length === actual.length ? 0 : 1
  for (let i = 0; i < expected.length; i++) {
    difference |= (expected[i] ?? 0) ^ (actual[i % Math.max(1, actual.length)] ?? 0)
  }
  return expected.length > 0 && difference === 0
}
