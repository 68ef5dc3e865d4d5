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
 * With `adaptive`, it also paces each model at a rate it learns from the
 * provider's answers (`AdaptiveRate`), keyed by provider and model: a 429
 * or 529 cuts the rate and holds every send for its retry-after hint (at
 * most the policy's `maxHold`), a success grows it back. It needs no limit to be set, and works alongside
 * static ones.
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
import { type ModelError, ModelProvider, TokenEstimate } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as AdaptiveRate from "./AdaptiveRate.js"
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
  /**
   * Paces each model at a rate learnt from the provider's 429s and 529s
   * (`true`: `AdaptiveRate.defaults`).
   */
  readonly adaptive?: true | AdaptiveRate.Policy | undefined
}

/**
 * An adaptive grant: the model it was for and the generation to report the
 * attempt's outcome with. `undefined` when the store could not be reached.
 *
 * @since 0.2.0
 * @category models
 */
export interface Grant {
  readonly model: string
  readonly generation: number
}

/**
 * What an attempt taught the adaptive rate: the provider accepted it, or
 * throttled it (with its retry-after hint).
 *
 * @since 0.2.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Accepted" }
  | { readonly _tag: "Throttled"; readonly retryAfterMs?: number | undefined }

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
  /** Adaptive limiters: waits for the model's learnt rate to allow one send. */
  readonly pace?: ((model: string) => Effect.Effect<Grant | undefined>) | undefined
  /** Adaptive limiters: reports what the provider answered to a paced send. */
  readonly learn?: ((grant: Grant, outcome: Outcome) => Effect.Effect<void>) | undefined
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

/** A caller told to come back spreads its return over the horizon, so the waiters do not all return at once. */
const comeBack = (wait: number, horizon: number) =>
  Effect.flatMap(Random.nextBetween(0, Math.max(1, horizon)), (spread) => Effect.sleep(Duration.millis(wait + spread)))

/**
 * The adaptive pacing of one account: a state per model in the store. In a
 * process, one caller per model asks the store at a time and the others queue
 * behind it in order, so the store sees a request per grant and a return per
 * process, not one from every waiting caller.
 */
const adaptive = (store: StateStore.Service, key: string, policy: AdaptiveRate.Policy) =>
  Effect.map(Ref.make<ReadonlyMap<string, Semaphore.Semaphore>>(new Map()), (gates) => {
    const gateOf = (model: string) =>
      Ref.modify(gates, (all): readonly [Semaphore.Semaphore, ReadonlyMap<string, Semaphore.Semaphore>] => {
        const found = all.get(model)
        if (found !== undefined) return [found, all]
        const made = Semaphore.makeUnsafe(1)
        return [made, new Map(all).set(model, made)]
      })
    const update = <A>(
      model: string,
      f: (state: AdaptiveRate.State, now: number) => readonly [A, AdaptiveRate.State]
    ) =>
      store.modify({
        key: `limiter/${key}/adaptive/${model}`,
        schema: AdaptiveRate.State,
        initial: AdaptiveRate.initial(policy),
        f
      })
    /** Asks the store until it grants a send: the grant's wait and generation. */
    const reserve = (model: string) =>
      Effect.gen(function* () {
        while (true) {
          const decision = yield* update(model, (state, now) => AdaptiveRate.reserve(policy, state, now))
          if (decision._tag === "Send") return decision
          yield* comeBack(decision.wait, policy.horizon)
        }
      })
    const pace = (model: string): Effect.Effect<Grant | undefined> =>
      Effect.gen(function* () {
        const gate = yield* gateOf(model)
        // The next caller asks as soon as this one holds a grant; the grant's own wait is outside the gate.
        const decision = yield* gate.withPermit(reserve(model))
        if (decision.wait > 0) yield* Effect.sleep(Duration.millis(decision.wait))
        return { model, generation: decision.generation }
      }).pipe(failOpen<Grant | undefined>(undefined))
    const learn = (grant: Grant, outcome: Outcome): Effect.Effect<void> =>
      update(grant.model, (state, now) => [
        undefined,
        outcome._tag === "Accepted"
          ? AdaptiveRate.onSuccess(policy, state, now)
          : AdaptiveRate.onThrottle(policy, state, now, {
              generation: grant.generation,
              retryAfterMs: outcome.retryAfterMs
            })
      ]).pipe(failOpen(undefined))
    return { pace, learn }
  })

/**
 * A limiter over the `StateStore` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, never, StateStore.StateStore> =>
  Effect.gen(function* () {
    const store = yield* StateStore.StateStore
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
    const learnt =
      options.adaptive === undefined
        ? {}
        : yield* adaptive(store, options.key, options.adaptive === true ? AdaptiveRate.defaults : options.adaptive)
    return {
      ...learnt,
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
 * A limiter over the `StateStore` in context that paces each model at a
 * rate learnt from the provider's answers, with no static limit (`layer`
 * with `adaptive` and `requests` or `tokens` for both).
 *
 * @example
 * ```ts
 * import { AdaptiveRate, ProviderLimiter, StateStore } from "@agent-kernel/cluster"
 * import * as Layer from "effect/Layer"
 *
 * const limiter = ProviderLimiter.layerAdaptive({ key: "anthropic", policy: AdaptiveRate.make({ maxRate: 50 }) }).pipe(
 *   Layer.provide(StateStore.layerMemory)
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerAdaptive = (options: {
  readonly key: string
  readonly policy?: AdaptiveRate.Policy | undefined
}): Layer.Layer<ProviderLimiter, never, StateStore.StateStore> =>
  layer({ key: options.key, adaptive: options.policy ?? true })

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
 * What an attempt's error teaches the adaptive rate: a 429 or 529 is a
 * throttle (with its retry-after hint); any other error teaches nothing.
 *
 * @since 0.2.0
 * @category outcomes
 */
export const outcomeOf = (error: ModelError.ModelError): Outcome | undefined =>
  error.category === "rate_limited" || error.category === "overloaded"
    ? {
        _tag: "Throttled",
        retryAfterMs: error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)
      }
    : undefined

const accepted: Outcome = { _tag: "Accepted" }

/**
 * A provider whose every attempt goes through the limiter: it reserves one
 * request and the request's estimated tokens before the attempt, and settles
 * the tokens with the usage the attempt reported (the last `usage` part of a
 * stream, or a failure's `usage`) when the attempt ends, however it ends. An
 * attempt that reported no usage gives its whole reservation back.
 *
 * An adaptive limiter also paces the attempt at its model's learnt rate, and
 * learns from it: the first part of a stream, or a response, is a success; a
 * 429 or 529 a throttle.
 *
 * @since 0.1.0
 * @category combinators
 */
export const limit = (provider: ModelProvider.Service, limiter: Service): ModelProvider.Service => {
  const settle = (reserved: number, usage: ModelProvider.Usage | undefined) =>
    limiter.settle(usage === undefined ? -reserved : usage.input_tokens + usage.output_tokens - reserved)
  const pace = (model: string) => (limiter.pace === undefined ? Effect.undefined : limiter.pace(model))
  const learn = (grant: Grant | undefined, outcome: Outcome | undefined) =>
    grant === undefined || outcome === undefined || limiter.learn === undefined
      ? Effect.void
      : limiter.learn(grant, outcome)
  const stream = (request: ModelProvider.ModelRequest) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const reserved = estimate(request)
        yield* limiter.acquire(reserved)
        const grant = yield* pace(request.model)
        const reported = yield* Ref.make<ModelProvider.Usage | undefined>(undefined)
        const answered = yield* Ref.make(false)
        yield* Effect.addFinalizer(() => Effect.flatMap(Ref.get(reported), (usage) => settle(reserved, usage)))
        return provider.stream(request).pipe(
          Stream.tap((part) =>
            Effect.andThen(
              Effect.flatMap(Ref.getAndSet(answered, true), (before) =>
                before ? Effect.void : learn(grant, accepted)
              ),
              part.type === "usage" ? Ref.set(reported, part.usage) : Effect.void
            )
          ),
          Stream.tapError((error) =>
            Effect.andThen(
              learn(grant, outcomeOf(error)),
              error.usage === undefined ? Effect.void : Ref.set(reported, error.usage)
            )
          )
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
      return Effect.gen(function* () {
        yield* limiter.acquire(reserved)
        const grant = yield* pace(request.model)
        return yield* Effect.onExit(generate(request), (exit) => {
          const error = Exit.findErrorOption(exit)
          return Effect.andThen(
            learn(
              grant,
              Exit.isSuccess(exit) ? accepted : Option.getOrUndefined(Option.flatMapNullishOr(error, outcomeOf))
            ),
            settle(
              reserved,
              Exit.isSuccess(exit)
                ? exit.value.usage
                : Option.getOrUndefined(Option.flatMapNullishOr(error, (error) => error.usage))
            )
          )
        })
      })
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
