import { AdaptiveRate, ProviderLimiter, StateStore } from "@agent-kernel/cluster"
import * as Layer from "effect/Layer"

// Learns each model's rate from the provider's 429s; never more than 100 requests a second.
export const limiter = ProviderLimiter.layer({ key: "anthropic", adaptive: AdaptiveRate.make({ maxRate: 100 }) }).pipe(
  Layer.provide(StateStore.layerMemory)
)
