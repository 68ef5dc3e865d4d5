/**
 * Type tests, checked by `tsc` (this file is type-checked, never run): a
 * session's required service shows in its `R`, and a service provided under
 * another service's tag is a type error.
 */
import { ContextProvider, EventBus, ModelProvider, RetryBudget, Session, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

const provider = ModelProvider.fromGenerate("p", () => Effect.succeed(ScriptedModel.text("hi")))
const make = Session.make({ model: "m" })

/** A session without a model provider is a visible missing requirement. */
export const modelProviderIsRequired = () => {
  // @ts-expect-error ModelProvider is required, and says so in R
  const unprovided: Effect.Effect<Session.Service> = make
  const provided: Effect.Effect<Session.Service> = make.pipe(
    Effect.provideService(ModelProvider.ModelProvider, provider)
  )
  return [unprovided, provided]
}

/** A provider under another tag of the same shape does not satisfy it. */
export const anotherTagOfTheSameShapeIsNotIt = () => {
  class Impostor extends Context.Service<Impostor, ModelProvider.Service>()("Impostor") {}
  const wrong = make.pipe(Effect.provideService(Impostor, provider))
  // @ts-expect-error the session still requires ModelProvider
  const run: Effect.Effect<Session.Service> = wrong
  return run
}

/** A service under the wrong tag is a type error. */
export const servicesUnderTheWrongTag = () => [
  // @ts-expect-error a toolbox is not a context provider
  make.pipe(Effect.provideService(ContextProvider.ContextProvider, Toolbox.empty)),
  // @ts-expect-error a model provider is not a toolbox
  make.pipe(Effect.provideService(Toolbox.Toolbox, provider)),
  // @ts-expect-error an observer list is not a bus
  make.pipe(Effect.provideService(EventBus.EventBus, [{ onEvent: () => Effect.void }])),
  // @ts-expect-error a budget is provided as a function of the settings, not as a budget
  make.pipe(Effect.provideService(RetryBudget.RetryBudget, RetryBudget.fixed(3)))
]
