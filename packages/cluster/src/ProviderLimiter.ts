/**
 * One rate limit for a provider account, shared by every session of every
 * process: requests per window and tokens per window, as providers meter
 * them (per minute, for the whole account).
 *
 * The limiter is a `RateBucket` per metered quantity, kept in a
 * `StateStore`: in memory for one process (`layerMemory`), in Postgres for
 * many (`layer` over `StateStore.layerPostgres`). `provider` applies it to
 * the `ModelProvider` in context, so the turn loop is untouched: before each
 * attempt it reserves one request and the request's estimated tokens and
 * waits its turn; after the attempt it corrects the token reservation with
 * the usage the provider reported (an attempt that failed without usage
 * gives its tokens back).
 *
 * The wait happens inside the attempt, so it counts towards
 * `model_attempt_timeout_ms`. A store that cannot be reached does not stop
 * the calls: the limiter logs a warning and lets the call through, and the
 * provider's own 429s, retried under the session budget, remain the
 * backstop.
 *
 * @example
 * ```ts
 * import { ProviderLimiter } from "@agent-kernel/cluster"
 * import { Anthropic } from "@agent-kernel/providers"
 * import * as Layer from "effect/Layer"
 *
 * const limited = ProviderLimiter.provider.pipe(
 *   Layer.provide(Anthropic.layer()),
 *   Layer.provide(ProviderLimiter.layerMemory({ key: "anthropic", requests: { limit: 50, window: "1 minute" } }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { ModelProvider, TokenEstimate } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as RateBucket from "./RateBucket.js"
import * as StateStore from "./StateStore.js"

/**
 * A metered quantity's limit: `limit` per `window`, with a bucket of `burst`
 * (default `limit`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Limit {
  readonly limit: number
  readonly window: Duration.Input
  readonly burst?: number | undefined
}

/**
 * Options of a limiter.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The account: limiters with the same key share one budget. */
  readonly key: string
  /** Requests per window. */
  readonly requests?: Limit | undefined
  /** Tokens (input and output) per window. */
  readonly tokens?: Limit | undefined
}

/**
 * What a limiter does.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Reserves one request and `tokens` tokens, and waits until the limits allow them. */
  readonly acquire: (tokens: number) => Effect.Effect<void>
  /** Corrects the token reservation by `delta` (spent minus reserved; negative gives back). */
  readonly settle: (delta: number) => Effect.Effect<void>
}

/**
 * The limiter service.
 *
 * @since 0.1.0
 * @category tags
 */
export class ProviderLimiter extends Context.Service<ProviderLimiter, Service>()(
  "@agent-kernel/cluster/ProviderLimiter"
) {}

/** A store error lets the call through: the limiter must never be the reason a run fails. */
const failOpen = <A>(fallback: A) =>
  Effect.catch((error: StateStore.StateStoreError) =>
    Effect.as(Effect.logWarning(`provider limiter: ${error.message}; the call goes ahead unmetered`), fallback)
  )

/**
 * A limiter over the `StateStore` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, never, StateStore.StateStore> =>
  Effect.map(StateStore.StateStore, (store) => {
    const meter = (name: string, limit: Limit | undefined) => {
      if (limit === undefined) return undefined
      const rate = RateBucket.rate(limit)
      const key = `limiter/${options.key}/${name}`
      return {
        reserve: (cost: number) =>
          store.modify({
            key,
            schema: RateBucket.Bucket,
            initial: RateBucket.full(rate),
            f: (bucket, now) => RateBucket.reserve(bucket, rate, now, cost)
          }),
        adjust: (delta: number) =>
          store.modify({
            key,
            schema: RateBucket.Bucket,
            initial: RateBucket.full(rate),
            f: (bucket, now) => [undefined, RateBucket.adjust(bucket, rate, now, delta)] as const
          })
      }
    }
    const requests = meter("requests", options.requests)
    const tokens = meter("tokens", options.tokens)
    return {
      acquire: (estimate) =>
        Effect.gen(function* () {
          const waits = yield* Effect.all(
            [requests?.reserve(1) ?? Effect.succeed(0), tokens?.reserve(estimate) ?? Effect.succeed(0)],
            {
              concurrency: 2
            }
          ).pipe(failOpen([0, 0]))
          const wait = Math.max(...waits)
          if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
        }),
      settle: (delta) =>
        tokens === undefined || delta === 0 ? Effect.void : tokens.adjust(delta).pipe(failOpen(undefined))
    }
  })

/**
 * A limiter over the `StateStore` in context (`StateStore.layerPostgres` to
 * share it between processes).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<ProviderLimiter, never, StateStore.StateStore> =>
  Layer.effect(ProviderLimiter, make(options))

/**
 * A limiter for this process alone.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options: Options): Layer.Layer<ProviderLimiter> =>
  layer(options).pipe(Layer.provide(StateStore.layerMemory))

/**
 * The tokens a request is expected to cost: its estimated input, and its
 * output ceiling when it sets one.
 *
 * @since 0.1.0
 * @category estimates
 */
export const estimate = (request: ModelProvider.ModelRequest): number =>
  TokenEstimate.request(request) + (request.max_output_tokens ?? 0)

/**
 * A provider whose every attempt goes through the limiter: it reserves one
 * request and the request's estimated tokens before the attempt, and settles
 * the tokens with the usage the attempt reported (the last `usage` part of a
 * stream, or a failure's `usage`) when the attempt ends, however it ends. An
 * attempt that reported no usage gives its whole reservation back.
 *
 * @since 0.1.0
 * @category combinators
 */
export const limit = (provider: ModelProvider.Service, limiter: Service): ModelProvider.Service => {
  const settle = (reserved: number, usage: ModelProvider.Usage | undefined) =>
    limiter.settle(usage === undefined ? -reserved : usage.input_tokens + usage.output_tokens - reserved)
  const stream = (request: ModelProvider.ModelRequest) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const reserved = estimate(request)
        yield* limiter.acquire(reserved)
        const reported = yield* Ref.make<ModelProvider.Usage | undefined>(undefined)
        yield* Effect.addFinalizer(() => Effect.flatMap(Ref.get(reported), (usage) => settle(reserved, usage)))
        return provider.stream(request).pipe(
          Stream.tap((part) => (part.type === "usage" ? Ref.set(reported, part.usage) : Effect.void)),
          Stream.tapError((error) => (error.usage === undefined ? Effect.void : Ref.set(reported, error.usage)))
        )
      })
    )
  const generate = provider.generate
  if (generate === undefined) return ModelProvider.make(provider.name, stream)
  return {
    name: provider.name,
    stream,
    generate: (request) => {
      const reserved = estimate(request)
      return Effect.andThen(
        limiter.acquire(reserved),
        Effect.onExit(generate(request), (exit) =>
          settle(
            reserved,
            Exit.isSuccess(exit)
              ? exit.value.usage
              : Option.getOrUndefined(Option.flatMapNullishOr(Exit.findErrorOption(exit), (error) => error.usage))
          )
        )
      )
    }
  }
}

/**
 * The `ModelProvider` in context, limited by the `ProviderLimiter` in
 * context.
 *
 * @since 0.1.0
 * @category layers
 */
export const provider: Layer.Layer<ModelProvider.ModelProvider, never, ModelProvider.ModelProvider | ProviderLimiter> =
  Layer.effect(
    ModelProvider.ModelProvider,
    Effect.zipWith(ModelProvider.ModelProvider, ProviderLimiter, (inner, limiter) => limit(inner, limiter))
  )
