import { ProviderLimiter, SharedRetryQuota, StateStore } from "@agent-kernel/cluster"
import { RetryBudget } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

// Every process built with this layer shares, through one Postgres database,
// one rate limit and one retry quota for the account.
export const sharedAccount = (databaseUrl: string, options?: Anthropic.Options) => {
  const store = StateStore.layerPostgres().pipe(Layer.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })))
  const limiter = ProviderLimiter.layer({
    key: "anthropic",
    requests: { limit: 50, window: "1 minute" },
    tokens: { limit: 40_000, window: "1 minute" }
  })
  // The AWS SDK's retry quota: a retry costs 5 tokens, a success gives 1 back.
  const quota = SharedRetryQuota.layer({
    key: "anthropic",
    budget: RetryBudget.tokenBucket({ capacity: 500, retryCost: 5, successRefund: 1 })
  })
  const model = ProviderLimiter.provider.pipe(
    Layer.provide(Anthropic.layer(options).pipe(Layer.provide(NodeTransport.layer()))),
    Layer.provide(limiter)
  )
  return Layer.mergeAll(model, quota).pipe(Layer.provide(store))
}
