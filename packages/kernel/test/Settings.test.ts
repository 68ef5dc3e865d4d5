import { Settings } from "@agent-kernel/kernel"
import { Arbitraries } from "@agent-kernel/kernel/testing"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

describe("Settings", () => {
  it("decodes {} to the documented defaults", () => {
    assert.deepStrictEqual(Settings.defaults, {
      base_delay_ms: 500,
      backoff_factor: 2,
      max_retries: 5,
      max_delay_ms: 30_000,
      jitter: "proportional",
      max_retry_wait_ms: 60_000,
      max_session_retries: 20,
      session_retries_refill: true,
      max_turns: 100,
      prices: {},
      max_context_reductions: 3,
      fallback_models: [],
      model_connect_timeout_ms: 10_000,
      model_first_byte_timeout_ms: 600_000,
      model_idle_timeout_ms: 60_000,
      model_attempt_timeout_ms: 600_000,
      tool_timeout_ms: 60_000,
      plugin_startup_timeout_ms: 30_000,
      max_tool_result_bytes: 100_000,
      breaker_consecutive_failures: 3,
      breaker_total_failures: 20,
      breaker_cooldown_ms: 30_000,
      on_exhausted: "fail",
      pause_on: ["retries_exhausted", "retry_budget_exhausted", "quota_exceeded"]
    })
  })

  it("on_exhausted, pause_on and pause_resume_after_ms decode, and a bad value of each is named in one error", () => {
    const decoded = Settings.decodeResult({
      on_exhausted: "pause",
      pause_on: ["quota_exceeded"],
      pause_resume_after_ms: 60_000
    })
    assert.isTrue(Result.isSuccess(decoded))
    const bad = Settings.decodeResult({ on_exhausted: "wait", pause_on: ["auth_error"], pause_resume_after_ms: 0 })
    assert.isTrue(Result.isFailure(bad))
    if (Result.isFailure(bad)) {
      const issues = bad.failure.issues
      assert.lengthOf(issues, 3)
      assert.match(issues[0]!, /^on_exhausted: Expected "fail" \| "pause", actual "wait"$/)
      assert.match(
        issues[1]!,
        /^pause_on\.0: Expected "retries_exhausted" \| "retry_budget_exhausted" \| "quota_exceeded", actual "auth_error"$/
      )
      assert.match(issues[2]!, /^pause_resume_after_ms: Expected a positive number, actual 0$/)
    }
  })

  it("one error lists every bad field and every unknown key", () => {
    const result = Settings.decodeResult({ base_delay_ms: -5, jiter: "full", max_turns: 0, jitter: "some" })
    assert.isTrue(Result.isFailure(result))
    const error = Result.getFailure(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
    assert.strictEqual(error._tag, "SettingsError")
    assert.lengthOf(error.issues, 4)
    for (const key of ["base_delay_ms", "jiter", "max_turns", "jitter"])
      assert.isTrue(
        error.issues.some((issue) => issue.startsWith(`${key}:`)),
        key
      )
    assert.match(error.message, /jiter: unknown key \(did you mean "jitter"\?\)/)
    assert.include(error.message, `jitter: Expected "proportional" | "full" | "none", actual "some"`)
    assert.include(error.message, "base_delay_ms: Expected a non-negative number, actual -5")
    assert.include(error.message, "max_turns: Expected a positive number, actual 0")
  })

  it("NaN is one issue per key: the first check that fails stops that value's checks", () => {
    const result = Settings.decodeResult({ max_retries: NaN, base_delay_ms: NaN, max_cost_usd: NaN })
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result))
      assert.sameMembers(
        [...result.failure.issues],
        [
          "max_retries: Expected an integer, actual NaN",
          "base_delay_ms: Expected a finite number, actual NaN",
          "max_cost_usd: Expected a finite number, actual NaN"
        ]
      )
  })

  it.effect("fromFile: a broken JSON file is a typed error naming the file, not a crash", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-settings-"))
      const broken = path.join(dir, "broken.json")
      fs.writeFileSync(broken, '{ "base_delay_ms": 100, ')
      const error = yield* Effect.flip(Settings.fromFile(broken))
      assert.include(error.message, broken)
      assert.match(error.message, /not valid JSON/)
      const missing = yield* Effect.flip(Settings.fromFile(path.join(dir, "missing.json")))
      assert.match(missing.message, /cannot read settings file/)
      const good = path.join(dir, "good.json")
      fs.writeFileSync(good, JSON.stringify({ base_delay_ms: 100, fallback_models: ["b"] }))
      const settings = yield* Settings.fromFile(good)
      assert.deepStrictEqual([settings.base_delay_ms, settings.fallback_models, settings.max_retries], [100, ["b"], 5])
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.effect("config: reads each key from Effect Config and decodes them together", () =>
    Effect.gen(function* () {
      const settings = yield* Settings.config.pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ base_delay_ms: "250", jitter: "full", fallback_models: '["b","c"]' })
        )
      )
      assert.deepStrictEqual(
        [settings.base_delay_ms, settings.jitter, settings.fallback_models],
        [250, "full", ["b", "c"]]
      )
      const error = yield* Effect.flip(
        Settings.config.pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({ max_retries: "many" }))
        )
      )
      assert.match(String(error), /max_retries/)
    })
  )

  it.effect(
    "config: an empty value is an error naming its key where the provider keeps it, and unset where it does not",
    () =>
      Effect.gen(function* () {
        const env = { max_retries: "", jitter: "full" }
        const error = yield* Effect.flip(
          Settings.config.pipe(
            Effect.provideService(
              ConfigProvider.ConfigProvider,
              ConfigProvider.fromEnv({ env, preserveEmptyStrings: true })
            )
          )
        )
        assert.include(String(error), 'max_retries: Expected number, actual ""')
        const settings = yield* Settings.config.pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
        )
        assert.deepStrictEqual([settings.max_retries, settings.jitter], [5, "full"])
      })
  )

  it.effect("override and parseAssignments: --set key=value pairs are typed by JSON and re-validated", () =>
    Effect.gen(function* () {
      const assignments = Result.getOrThrow(Settings.parseAssignments(["max_retries=2", "jitter=none"]))
      const settings = yield* Settings.override(Settings.defaults, assignments)
      assert.deepStrictEqual([settings.max_retries, settings.jitter], [2, "none"])
      assert.isTrue(Result.isFailure(Settings.parseAssignments(["no-equals-sign"])))
      const error = yield* Effect.flip(Settings.override(Settings.defaults, { max_retries: -1 }))
      assert.match(error.message, /max_retries/)
    })
  )

  it("parseAssignments: __proto__, constructor and prototype are unknown keys, as in a settings file", () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const result = Settings.parseAssignments([`${key}={"max_retries":99}`, "max_retries=2"])
      assert.isTrue(Result.isFailure(result), key)
      if (Result.isFailure(result)) {
        assert.deepStrictEqual(result.failure.issues, [`${key}: unknown key`])
        assert.include(result.failure.message, `invalid settings in --set:\n  - ${key}: unknown key`)
      }
    }
  })

  it.prop(
    "every arbitrary settings value encodes and decodes back to itself",
    [Arbitraries.settings()],
    ([settings]) => {
      const encoded = Schema.encodeSync(Settings.Settings)(settings)
      assert.deepStrictEqual(Result.getOrThrow(Settings.decodeResult(encoded)), settings)
    }
  )

  it.effect("a value nested 100,000 deep is a SettingsError, not a stack overflow", () =>
    Effect.gen(function* () {
      let nested: unknown = 1
      for (let i = 0; i < 100_000; i++) nested = [nested]
      const error = yield* Effect.flip(Settings.decode({ fallback_models: nested }))
      assert.strictEqual(error._tag, "SettingsError")
      assert.match(error.message, /nested deeper than/)
      const fromText = yield* Effect.flip(
        Settings.fromJson(`{"max_retries":${"[".repeat(100_000)}${"]".repeat(100_000)}}`)
      )
      assert.match(fromText.message, /nested deeper than/)
      // A cycle ends at the depth bound too.
      const cyclic: Record<string, unknown> = {}
      cyclic["self"] = cyclic
      assert.isTrue(Result.isFailure(Settings.decodeResult({ model_prices: cyclic })))
    })
  )
})
