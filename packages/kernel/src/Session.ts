/**
 * A session: a long-lived scope that owns the retry budget, the working
 * context and the history, and runs user inputs through the turn loop one at
 * a time.
 *
 * A run takes one input through the loop: assemble context, call the model
 * (retrying transient errors under the policy and the session budget, falling
 * back along `fallback_models`, reducing context on overflow), run the tools
 * it asks for, append the results, and repeat until the model ends its turn
 * or a bound trips. A run never fails: every ending is a `RunOutcome` status.
 *
 * Services are taken from context when present: `ModelProvider` (required),
 * `Toolbox` (default: no tools), `ContextProvider` (default: truncate tool
 * results, then drop the oldest turns), `EventBus` (default: a new one), and
 * `RetryBudget` (default: `max_session_retries` for the session).
 *
 * @example
 * ```ts
 * import { ModelProvider, Session, Settings } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * declare const provider: ModelProvider.ModelProvider["Type"]
 *
 * const program = Effect.gen(function* () {
 *   const session = yield* Session.make({ model: "claude-sonnet-4-5", settings: Settings.defaults })
 *   const outcome = yield* session.run("What is in README.md?")
 *   console.log(outcome.status, outcome.final_text)
 * }).pipe(Effect.provideService(ModelProvider.ModelProvider, provider))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Content from "./Content.js"
import * as internal from "./internal/session.js"
import type * as KernelEvent from "./KernelEvent.js"
import type * as ModelProvider from "./ModelProvider.js"
import type * as RetryBudget from "./RetryBudget.js"
import type * as RetryPolicy from "./RetryPolicy.js"
import type * as RunOutcome from "./RunOutcome.js"
import type * as Settings from "./Settings.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The first model of the routing chain; `settings.fallback_models` follow it. */
  readonly model: string
  readonly system?: string | undefined
  /** Default: `Settings.defaults`. */
  readonly settings?: Settings.Settings | undefined
  /** Default: `RetryPolicy.fromSettings(settings)`. */
  readonly policy?: RetryPolicy.RetryPolicy | undefined
  readonly id?: string | undefined
  /** A history to resume from. */
  readonly history?: Content.History | undefined
  /** How many tool calls of one turn run at once. Default 1 (in order). */
  readonly toolConcurrency?: number | undefined
  readonly maxOutputTokens?: number | undefined
  /** Update the kernel's global metrics. Default true; simulations turn it off. */
  readonly metrics?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Session {
  readonly id: string
  readonly settings: Settings.Settings
  /** Takes one input through the loop. Runs of one session are serialised. */
  readonly run: (input: string | Content.Message) => Effect.Effect<RunOutcome.RunOutcome>
  /** The full history, never reduced. */
  readonly history: Effect.Effect<Content.History>
  /** The working context that requests are built from. */
  readonly context: Effect.Effect<Content.History>
  /** Every event published after the stream starts running. */
  readonly events: Stream.Stream<KernelEvent.KernelEvent>
  /** Subscribes now, for the life of the scope: no later event is missed. */
  readonly subscribe: Effect.Effect<Stream.Stream<KernelEvent.KernelEvent>, never, Scope.Scope>
  readonly retryBudget: Effect.Effect<RetryBudget.Snapshot>
}

/**
 * Makes a session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options: Options) => Effect.Effect<Session, never, ModelProvider.ModelProvider> = internal.make

/**
 * The session as a service, for programs that build it with a layer.
 *
 * @since 0.1.0
 * @category tags
 */
export class Tag extends Context.Tag("@agent-kernel/kernel/Session")<Tag, Session>() {}

/**
 * A layer that makes a session from the services in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Tag, never, ModelProvider.ModelProvider> =>
  Layer.effect(Tag, make(options))
