/**
 * Scale-out for agent-kernel: a provider-wide rate limit (static, or
 * adaptive: learnt from the provider's 429s) and retry quota shared by
 * every process through a state store (in memory or Postgres).
 *
 * @since 0.1.0
 */
export * as AdaptiveRate from "./AdaptiveRate.js"
export * as ProviderLimiter from "./ProviderLimiter.js"
export * as RateBucket from "./RateBucket.js"
export * as Runner from "./Runner.js"
export * as SharedRetryQuota from "./SharedRetryQuota.js"
export * as StateStore from "./StateStore.js"
