/**
 * Type tests, checked by `tsc` (this file is type-checked, never run): the
 * agent's settings are typed by the settings' own keys (snake_case, as the
 * settings file writes them), so a typo is a compile error, in a literal and
 * in a value passed by name; its options are camelCase TypeScript; and what
 * the provider Layer needs and may fail with shows in the agent's Layer.
 */
import { Agent, ModelProvider, type Settings } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const provider = Layer.succeed(
  ModelProvider.ModelProvider,
  ModelProvider.fromGenerate("p", () => Effect.succeed(ScriptedModel.text("hi")))
)

/** A settings key in camelCase is no setting. */
export const aTypoInALiteralIsACompileError = () => [
  // @ts-expect-error `maxRetries` is not a setting: the key is `max_retries`
  Agent.layer({ model: "m", provider, settings: { maxRetries: 3 } }),
  // @ts-expect-error an unknown key beside a known one is still an error
  Agent.layer({ model: "m", provider, settings: { max_retries: 3, baseDelayMs: 100 } })
]

/** A value built elsewhere and passed by name is held to the same keys (no excess-property check there). */
export const aTypoInAValuePassedByNameIsACompileError = () => {
  const overrides = { max_retries: 3, maxRetryWaitMs: 1_000 }
  // @ts-expect-error `maxRetryWaitMs` is typed never
  return Agent.layer({ model: "m", provider, settings: overrides })
}

/** A value of the wrong type is a compile error; its bounds are checked when the Layer is built. */
export const aValueOfTheWrongTypeIsACompileError = () => [
  // @ts-expect-error max_retries is a number
  Agent.layer({ model: "m", provider, settings: { max_retries: "3" } }),
  // @ts-expect-error jitter is one of proportional, full, none
  Agent.layer({ model: "m", provider, settings: { jitter: "some" } })
]

/** `Settings.Input` itself rejects a key that is not a setting. */
export const settingsInputHasExactKeys = (): ReadonlyArray<Settings.Input> => [
  { max_retries: 3, jitter: "full", fallback_models: ["m2"], prices: { m: { input_per_mtok: 1, output_per_mtok: 2 } } },
  // @ts-expect-error `maxRetries` is not a setting
  { maxRetries: 3 }
]

/** Options are TypeScript: camelCase. */
export const optionsAreCamelCase = () => [
  Agent.layer({ model: "m", provider, toolConcurrency: 2, maxOutputTokens: 512 }),
  // @ts-expect-error the option is `toolConcurrency`
  Agent.layer({ model: "m", provider, tool_concurrency: 2 })
]

/** Valid settings compile, and the Layer says what building it may fail with. */
export const validSettingsCompile = (): Layer.Layer<Agent.Agent, Settings.SettingsError | Agent.SessionError> =>
  Agent.layer({ model: "m", provider, settings: { max_retries: 3, jitter: "full", tool_timeout_ms: 5_000 } })

/** The provider Layer's error and requirement show in the agent's Layer. */
export const theProvidersNeedsShowInTheAgentsLayer = () => {
  class ApiKey extends Context.Service<ApiKey, string>()("ApiKey") {}
  const needsKey: Layer.Layer<ModelProvider.ModelProvider, Config.ConfigError, ApiKey> = Layer.unwrap(
    Effect.as(Effect.andThen(Effect.service(ApiKey), Config.String("X")), provider)
  )
  const agent = Agent.layer({ model: "m", provider: needsKey })
  // @ts-expect-error ApiKey is required, and ConfigError possible
  const unprovided: Layer.Layer<Agent.Agent, Settings.SettingsError | Agent.SessionError> = agent
  const provided: Layer.Layer<Agent.Agent, Config.ConfigError | Settings.SettingsError | Agent.SessionError> =
    agent.pipe(Layer.provide(Layer.succeed(ApiKey, "k")))
  return [unprovided, provided]
}
