/**
 * The kernel's settings: one Schema with canonical defaults, decoded from an
 * object, a JSON file, or Effect `Config`. Keys are snake_case, as in the
 * spec's `settings{}` block. Unknown keys are an error, so a typo never
 * silently falls back to a default.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Formatter from "effect/Formatter"
import * as Option from "effect/Option"
import * as Record from "effect/Record"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaParser from "effect/SchemaParser"

// A value that is not finite (or not an integer) gets that one issue: NaN is not also "negative".
const NonNegative = Schema.Number.check(
  Schema.isFinite().abort(),
  Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number" })
)
const Millis = NonNegative
// A zero timeout would fail every call at once: a bound must leave room for the call.
const PositiveMillis = Schema.Number.check(
  Schema.isFinite().abort(),
  Schema.isGreaterThan(0, { expected: "a positive number" })
)
const Count = Schema.Number.check(
  Schema.isInt().abort(),
  Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number" })
)
const PositiveCount = Schema.Number.check(
  Schema.isInt().abort(),
  Schema.isGreaterThan(0, { expected: "a positive number" })
)

/**
 * Prices of one model in US dollars per million tokens.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelPrice = Schema.Struct({
  input_per_mtok: NonNegative,
  output_per_mtok: NonNegative,
  cache_read_per_mtok: Schema.optional(NonNegative),
  cache_write_per_mtok: Schema.optional(NonNegative)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelPrice extends Schema.Schema.Type<typeof ModelPrice> {}

/**
 * How random the backoff is:
 * - `proportional`: x U(0.8, 1.2), Effect's `Schedule.jittered`.
 * - `full`: U(0, d), the AWS "full jitter" that does the least work under contention.
 * - `none`: deterministic.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JitterKind = Schema.Literals(["proportional", "full", "none"])

/**
 * @since 0.1.0
 * @category models
 */
export type JitterKind = typeof JitterKind.Type

/**
 * What a durable run does when it would end with one of the statuses of
 * `pause_on`: `fail` ends it with that status; `pause` keeps it unfinished,
 * its journal and its place kept, until it is resumed
 * (`DurableSessions.resume`, `agent --resume`, or a runner at its
 * `resume_at`). A run that is not durable ends as with `fail`.
 *
 * @since 0.6.0
 * @category schemas
 */
export const OnExhausted = Schema.Literals(["fail", "pause"])

/**
 * @since 0.6.0
 * @category models
 */
export type OnExhausted = typeof OnExhausted.Type

/**
 * The statuses a run may pause at instead of ending (see `OnExhausted`): the
 * ends that waiting, a fix or a larger budget can undo.
 *
 * @since 0.6.0
 * @category schemas
 */
export const PausableStatus = Schema.Literals(["retries_exhausted", "retry_budget_exhausted", "quota_exceeded"])

/**
 * @since 0.6.0
 * @category models
 */
export type PausableStatus = typeof PausableStatus.Type

const withDefault = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, value: S["Type"]) =>
  schema.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(value)))

/**
 * The settings Schema. Every key has a default, so `{}` decodes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Settings = Schema.Struct({
  base_delay_ms: withDefault(Millis, 500),
  backoff_factor: withDefault(
    Schema.Number.check(
      Schema.isFinite(),
      Schema.isGreaterThanOrEqualTo(1, { expected: "a number greater than or equal to 1" })
    ),
    2
  ),
  max_retries: withDefault(Count, 5),
  max_delay_ms: withDefault(Millis, 30_000),
  jitter: withDefault(JitterKind, "proportional"),
  max_retry_wait_ms: withDefault(Millis, 60_000),
  max_session_retries: withDefault(Count, 20),
  session_retries_refill: withDefault(Schema.Boolean, true),
  max_turns: withDefault(PositiveCount, 100),
  max_wall_clock_ms: Schema.optionalKey(Millis),
  max_cost_usd: Schema.optionalKey(NonNegative),
  prices: withDefault(Schema.Record(Schema.String, ModelPrice), {}),
  max_context_reductions: withDefault(Count, 3),
  fallback_models: withDefault(Schema.Array(Schema.Trimmed.check(Schema.isNonEmpty({ expected: "a model name" }))), []),
  model_connect_timeout_ms: withDefault(PositiveMillis, 10_000),
  model_first_byte_timeout_ms: withDefault(PositiveMillis, 600_000),
  model_idle_timeout_ms: withDefault(PositiveMillis, 60_000),
  model_attempt_timeout_ms: withDefault(PositiveMillis, 600_000),
  tool_timeout_ms: withDefault(Millis, 60_000),
  plugin_startup_timeout_ms: withDefault(PositiveMillis, 30_000),
  max_tool_result_bytes: withDefault(PositiveCount, 100_000),
  breaker_consecutive_failures: withDefault(PositiveCount, 3),
  breaker_total_failures: withDefault(PositiveCount, 20),
  breaker_cooldown_ms: withDefault(Millis, 30_000),
  on_exhausted: withDefault(OnExhausted, "fail"),
  pause_on: withDefault(Schema.Array(PausableStatus), PausableStatus.literals),
  pause_resume_after_ms: Schema.optionalKey(PositiveMillis)
})

/**
 * Decoded settings.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings extends Schema.Schema.Type<typeof Settings> {}

/**
 * Settings as written in a file or passed as overrides: every key optional.
 *
 * @since 0.1.0
 * @category models
 */
export type SettingsInput = typeof Settings.Encoded

/**
 * Settings as code writes them (`Agent.layer({ settings })`): the keys of the
 * settings file and of `--set`, in snake_case, every key optional, each with
 * its JSON type. A key that is not a setting is a compile error in an object
 * literal, as a value of the wrong type is; the values' bounds are checked
 * when they are decoded (`decode`), with every bad field in one
 * `SettingsError`.
 *
 * @example
 * ```ts
 * import { Settings } from "@agent-kernel/kernel"
 *
 * const input: Settings.Input = { max_retries: 3, jitter: "full" }
 * // @ts-expect-error `maxRetries` is not a setting: the key is `max_retries`
 * const typo: Settings.Input = { maxRetries: 3 }
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export type Input = SettingsInput

/**
 * `S` with no key beyond the settings' own: each other key of `S` is typed
 * `never`. A function that takes `Exact<S>` for a generic `S extends Input`
 * rejects a typo at compile time even in a value built elsewhere and passed
 * by name, where TypeScript checks no excess property.
 *
 * @example
 * ```ts
 * import { Settings } from "@agent-kernel/kernel"
 *
 * const configure = <S extends Settings.Input>(settings: Settings.Exact<S>) => settings
 * const overrides = { maxRetries: 3, jitter: "full" as const }
 * // @ts-expect-error `maxRetries` is typed never
 * configure(overrides)
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export type Exact<S> = S & { readonly [K in Exclude<keyof S, keyof Input>]: never }

/**
 * The names of every settings key.
 *
 * @since 0.1.0
 * @category constants
 */
export const keys: ReadonlyArray<keyof Settings> = Object.keys(Settings.fields) as Array<keyof Settings>

/**
 * Settings could not be read or are invalid. `issues` lists every problem,
 * one per line; `message` is the whole readable report.
 *
 * @since 0.1.0
 * @category errors
 */
export class SettingsError extends Schema.TaggedError<SettingsError>("@agent-kernel/SettingsError")("SettingsError", {
  source: Schema.String,
  message: Schema.String,
  issues: Schema.Array(Schema.String)
}) {}

const parseOptions = { errors: "all", onExcessProperty: "error", reportInput: true } as const

/** What an issue is reported as: an unknown key, or a message (Effect's, with the input as `actual`). */
const unknownKey = "\u0000unknown key"

const leafHook: SchemaIssue.LeafHook = (issue) =>
  issue._tag === "UnexpectedKey" ? unknownKey : SchemaIssue.defaultLeafHook(issue)

const checkHook: SchemaIssue.CheckHook = (issue) => {
  const expected = issue.filter.annotations?.expected
  return typeof expected === "string" && "input" in issue
    ? `Expected ${expected}, got ${Formatter.format(issue.input)}`
    : SchemaIssue.defaultCheckHook(issue)
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook, checkHook })

// Effect writes "Expected X, got Y"; settings errors have always said "actual Y".
const withActual = (message: string): string => {
  const at = message.startsWith("Expected ") ? message.indexOf(", got ") : -1
  return at < 0 ? message : `${message.slice(0, at)}, actual ${message.slice(at + ", got ".length)}`
}

const fromIssue = (source: string, issue: SchemaIssue.Issue): SettingsError => {
  const byPath = new Map<string, Array<string>>()
  for (const found of formatIssues(issue).issues) {
    const path = found.path !== undefined && found.path.length > 0 ? found.path.map(String).join(".") : "(root)"
    byPath.set(path, [...(byPath.get(path) ?? []), found.message])
  }
  const issues = Array.from(byPath, ([path, messages]) => `${path}: ${describe(path, messages)}`)
  return new SettingsError({
    source,
    issues,
    message: `invalid settings in ${source}:\n${issues.map((line) => `  - ${line}`).join("\n")}`
  })
}

const describe = (path: string, messages: ReadonlyArray<string>): string => {
  if (messages.includes(unknownKey)) {
    const suggestion = nearestKey(path)
    return suggestion === undefined ? "unknown key" : `unknown key (did you mean "${suggestion}"?)`
  }
  return messages.map(withActual).join("; ")
}

const nearestKey = (key: string): string | undefined => {
  let best: string | undefined
  let bestDistance = 3
  for (const candidate of Object.keys(Settings.fields)) {
    const distance = editDistance(key, candidate)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      )
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/**
 * The defaults.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Settings = Schema.decodeUnknownSync(Settings)({})

// No setting nests deeper than a few levels (model_prices is the deepest, at three). A value
// nested thousands deep would overflow the stack inside Schema's decoder or its error formatter,
// so the depth is checked first, with a loop, never recursion.
const MAX_DEPTH = 16

const depthExceeds = (input: unknown, limit: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[input, 0]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next
    if (typeof value !== "object" || value === null) continue
    if (depth >= limit) return true
    for (const child of Object.values(value)) pending.push([child, depth + 1])
  }
  return false
}

const decodeSettings = SchemaParser.decodeUnknownResult(Settings, parseOptions)

/**
 * Synchronous `decode`, returning a `Result`.
 *
 * @since 0.4.0
 * @category decoding
 */
export const decodeResult = (input: unknown, source = "settings"): Result.Result<Settings, SettingsError> => {
  if (depthExceeds(input, MAX_DEPTH))
    return Result.fail(
      new SettingsError({
        source,
        issues: [`(root): nested deeper than ${MAX_DEPTH} levels`],
        message: `invalid settings in ${source}: a value is nested deeper than ${MAX_DEPTH} levels`
      })
    )
  return Result.mapError(decodeSettings(input), (issue) => fromIssue(source, issue))
}

/**
 * Decodes settings from an unknown value, listing every bad field and every
 * unknown key in one error.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (input: unknown, source = "settings"): Effect.Effect<Settings, SettingsError> =>
  Effect.suspend(() => Effect.fromResult(decodeResult(input, source)))

const parseJson = (text: string, source: string): Effect.Effect<unknown, SettingsError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (cause) => {
      const reason = cause instanceof Error ? cause.message : String(cause)
      return new SettingsError({
        source,
        issues: [`not valid JSON: ${reason}`],
        message: `invalid settings in ${source}: not valid JSON (${reason})`
      })
    }
  })

/**
 * Decodes settings from a JSON text.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromJson = (text: string, source = "settings"): Effect.Effect<Settings, SettingsError> =>
  Effect.flatMap(parseJson(text, source), (json) => decode(json, source))

/**
 * Reads a JSON settings file as a plain object, without decoding it, so that
 * callers can layer it between other sources before one `decode`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const readFile = (path: string): Effect.Effect<Record<string, unknown>, SettingsError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError(
        (error) =>
          new SettingsError({
            source: path,
            issues: [`cannot read: ${error.message}`],
            message: `cannot read settings file ${path}: ${error.message}`
          })
      )
    )
    const json = yield* parseJson(text, path)
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      return yield* new SettingsError({
        source: path,
        issues: ["(root): expected a JSON object of settings keys"],
        message: `invalid settings in ${path}: expected a JSON object of settings keys`
      })
    }
    return { ...json }
  })

/**
 * Reads and decodes a JSON settings file.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromFile = (path: string): Effect.Effect<Settings, SettingsError, FileSystem.FileSystem> =>
  Effect.flatMap(readFile(path), (json) => decode(json, path))

/**
 * Applies overrides on top of a base, re-validating the result.
 *
 * @since 0.1.0
 * @category combinators
 */
export const override = (
  base: Settings,
  overrides: Partial<SettingsInput>,
  source = "overrides"
): Effect.Effect<Settings, SettingsError> =>
  Effect.flatMap(encode(base), (encoded) => decode({ ...encoded, ...overrides }, source))

const encode = (settings: Settings) => Effect.orDie(Schema.encodeEffect(Settings)(settings))

// Names every object answers to: assigning `__proto__` would set the prototype and lose the value.
const objectKeys: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

/**
 * Parses `key=value` overrides, as given on a command line. Values are read as
 * JSON where they parse (numbers, arrays, objects) and as strings otherwise.
 * Other keys are checked when the result is decoded; `__proto__`,
 * `constructor` and `prototype` are refused here as unknown keys, as a
 * settings file refuses them.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parseAssignments = (
  assignments: ReadonlyArray<string>
): Result.Result<Record<string, unknown>, SettingsError> => {
  const result: Record<string, unknown> = {}
  const problems: Array<string> = []
  for (const assignment of assignments) {
    const eq = assignment.indexOf("=")
    if (eq <= 0) {
      problems.push(`"${assignment}": expected key=value`)
      continue
    }
    const key = assignment.slice(0, eq).trim()
    if (objectKeys.has(key)) {
      problems.push(`${key}: unknown key`)
      continue
    }
    result[key] = parseScalar(assignment.slice(eq + 1))
  }
  return problems.length === 0
    ? Result.succeed(result)
    : Result.fail(
        new SettingsError({
          source: "--set",
          issues: problems,
          message: `invalid settings in --set:\n${problems.map((line) => `  - ${line}`).join("\n")}`
        })
      )
}

const parseScalar = (raw: string): unknown => {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/**
 * Settings from Effect `Config`: each key read as a string under its own name
 * (nested with `Config.nested`; for the environment, through
 * `ConfigProvider.constantCase`), then decoded together so every bad field is
 * listed at once.
 *
 * An empty value is an error naming its key only where the provider keeps
 * empty values (`ConfigProvider.fromEnv({ preserveEmptyStrings: true })`):
 * Effect's providers read an empty value as unset by default, and the key
 * then keeps its default.
 *
 * @example
 * ```ts
 * import { Settings } from "@agent-kernel/kernel"
 * import { Config, Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const settings = yield* Settings.config.pipe(Config.nested("agent_kernel"))
 *   return settings.base_delay_ms
 * })
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const config: Config.Config<Settings> = Config.all(
  Record.fromEntries(keys.map((key) => [key, Config.option(Config.String(key))] as const))
).pipe(
  Config.mapEffect((raw) =>
    decode(
      Record.filterMap(raw, (value) =>
        Option.match(value, { onNone: () => Result.failVoid, onSome: (text) => Result.succeed(parseScalar(text)) })
      ),
      "config"
    ).pipe(Effect.mapError(toConfigError))
  )
)

const toConfigError = (error: SettingsError): Config.ConfigError =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message: error.message })))
