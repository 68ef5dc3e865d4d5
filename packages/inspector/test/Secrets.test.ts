/**
 * The secrets kept out of the pages: which environment variables count, and
 * the scrubber over any JSON-like value, whatever characters a secret has.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import { Secrets } from "../src/index.js"

describe("secrets", () => {
  it("the environment's keys, tokens, secrets and passwords of 8 characters or more", () => {
    const found = Secrets.fromEnvironment({
      ANTHROPIC_API_KEY: "sk-ant-0123456789",
      OPENAI_API_KEY: "sk-proj-abcdefgh",
      GITHUB_TOKEN: "ghp_0123456789",
      DATABASE_PASSWORD: "correct horse",
      AWS_SECRET: "wJalrXUtnFEMI",
      SHORT_TOKEN: "1234",
      HOME: "/home/agent-kernel",
      PATH: "/usr/bin:/bin",
      UNSET_KEY: undefined
    })
    expect(found.map((secret) => secret.label)).toEqual([
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GITHUB_TOKEN",
      "DATABASE_PASSWORD",
      "AWS_SECRET"
    ])
    expect(String(found[0])).not.toContain("sk-ant")
  })

  it("scrubs every occurrence in strings and keys, at any depth; a value without one is returned as it is", () => {
    const scrub = Secrets.scrubber([Redacted.make("sk-ant-0123456789"), Redacted.make('quote"and\\slash')])
    const clean = { a: [1, "two", { b: null }] }
    expect(scrub(clean)).toBe(clean)
    expect(
      scrub({
        input: "key sk-ant-0123456789 and sk-ant-0123456789",
        nested: [{ "sk-ant-0123456789": 'say quote"and\\slash' }],
        n: 3
      })
    ).toEqual({
      input: "key <redacted> and <redacted>",
      nested: [{ "<redacted>": "say <redacted>" }],
      n: 3
    })
  })

  it("a secret that holds another is replaced whole", () => {
    const scrub = Secrets.scrubber([Redacted.make("abcd1234"), Redacted.make("abcd1234-extended")])
    expect(scrub("x abcd1234-extended y")).toBe("x <redacted> y")
  })
})
