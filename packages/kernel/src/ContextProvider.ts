/**
 * Context providers: how the messages of the next request are assembled, and
 * how they shrink after a context overflow.
 *
 * The kernel never re-sends a request that overflowed. It calls `reduce` on
 * the next assemble pass, requires the result to be strictly smaller by its
 * own token estimate, and ends the run `context_exhausted` when nothing can
 * shrink further or `max_context_reductions` is reached.
 *
 * Reduction changes only the working context; the session's full history is
 * kept, so no conversation data is lost.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Content from "./Content.js"
import * as internal from "./internal/contextReduction.js"
import * as TokenEstimate from "./TokenEstimate.js"

/**
 * What a reduction is asked for.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReductionRequest {
  /** The kernel's estimate of the messages that overflowed. */
  readonly estimatedTokens: number
  /**
   * The estimate to aim at. When the provider said `N tokens > M maximum`,
   * it is the current estimate scaled by M / N with a safety margin;
   * otherwise three quarters of the current estimate.
   */
  readonly targetTokens: number
}

/**
 * What a context provider does.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * Builds the messages of the next request from the working context.
   * Optional: without it, requests carry the working context as it is, and
   * the kernel never copies it to build one.
   */
  readonly assemble?: ((messages: Content.History) => Effect.Effect<Content.History>) | undefined
  /** Returns a smaller context, or `None` when it cannot shrink further. */
  readonly reduce: (
    messages: Content.History,
    request: ReductionRequest
  ) => Effect.Effect<Option.Option<Content.History>>
}

/**
 * A reducer: the `reduce` half of a context provider, composable with `chain`.
 *
 * @since 0.1.0
 * @category models
 */
export type Reducer = Service["reduce"]

/**
 * Drops the oldest turns until the target is met. It cuts only at a user
 * input, so a `tool_use` never loses its `tool_result` and the request still
 * starts with a user message; it never drops the latest user input. Past that
 * input, it drops whole tool round trips, oldest first, keeping the newest.
 *
 * @since 0.1.0
 * @category reducers
 */
export const dropOldestTurns: Reducer = (messages, request) =>
  Effect.sync(() => internal.dropOldestTurns(messages, request.targetTokens))

/**
 * Truncates the largest tool results, with a visible marker, until the
 * target is met or every result is at `minChars` (default 512).
 *
 * @since 0.1.0
 * @category reducers
 */
export const truncateToolResults =
  (options: { readonly minChars?: number | undefined } = {}): Reducer =>
  (messages, request) =>
    Effect.sync(() => internal.truncateToolResults(messages, request.targetTokens, options.minChars ?? 512))

/**
 * Runs reducers in order, each on the previous one's result, and stops as
 * soon as the target is met. Succeeds when the result is strictly smaller
 * than the input.
 *
 * @since 0.1.0
 * @category combinators
 */
export const chain =
  (...reducers: ReadonlyArray<Reducer>): Reducer =>
  (messages, request) =>
    Effect.gen(function* () {
      const before = TokenEstimate.messages(messages)
      let current = messages
      for (const reducer of reducers) {
        if (TokenEstimate.messages(current) <= request.targetTokens) break
        const next = yield* reducer(current, { ...request, estimatedTokens: TokenEstimate.messages(current) })
        if (Option.isSome(next)) current = next.value
      }
      return TokenEstimate.messages(current) < before ? Option.some(current) : Option.none()
    })

/**
 * A context provider from a reducer; requests carry the working context as it is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (reduce: Reducer): Service => ({ reduce })

/**
 * The default: truncate oversized tool results first (cheap, keeps the
 * conversation's shape), then drop the oldest turns.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultProvider: Service = make(chain(truncateToolResults(), dropOldestTurns))

/**
 * The context provider service. Default: `defaultProvider` (it holds no
 * state, so one value serves every session).
 *
 * @since 0.1.0
 * @category tags
 */
export const ContextProvider: Context.Reference<Service> = Context.Reference<Service>(
  "@agent-kernel/kernel/ContextProvider",
  {
    defaultValue: () => defaultProvider
  }
)

/**
 * The identifier of a layer that provides `ContextProvider`: `never`, as for every
 * `Context.Reference`, which always has a value.
 *
 * @since 0.1.0
 * @category tags
 */
export type ContextProvider = Context.Service.Identifier<typeof ContextProvider>

/**
 * A layer with this context provider.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (provider: Service): Layer.Layer<ContextProvider> => Layer.succeed(ContextProvider, provider)

/**
 * A layer with the default provider.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefault: Layer.Layer<ContextProvider> = layer(defaultProvider)

/**
 * The target for a reduction: scaled by the provider's own counts when it
 * gave them (`prompt is too long: N tokens > M maximum`), with a 10 % margin.
 *
 * @since 0.1.0
 * @category targets
 */
export const targetFor = (
  estimatedTokens: number,
  counts: { readonly promptTokens?: number | undefined; readonly maxTokens?: number | undefined }
): number =>
  counts.promptTokens !== undefined && counts.maxTokens !== undefined && counts.promptTokens > 0
    ? Math.floor(estimatedTokens * (counts.maxTokens / counts.promptTokens) * 0.9)
    : Math.floor(estimatedTokens * 0.75)
