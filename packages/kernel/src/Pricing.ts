/**
 * Cost of model calls from provider-reported usage and the settings' `prices`
 * table (US dollars per million tokens).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import type * as Settings from "./Settings.js"
import type * as Usage from "./Usage.js"

/**
 * The cost of one usage at one price.
 *
 * @since 0.1.0
 * @category pricing
 */
export const costOf = (usage: Usage.Usage, price: Settings.ModelPrice): number =>
  (usage.input_tokens * price.input_per_mtok +
    usage.output_tokens * price.output_per_mtok +
    (usage.cache_read_tokens ?? 0) * (price.cache_read_per_mtok ?? price.input_per_mtok) +
    (usage.cache_write_tokens ?? 0) * (price.cache_write_per_mtok ?? price.input_per_mtok)) /
  1_000_000

/**
 * The cost of a call to `model`, or `None` when the table has no price for it.
 *
 * @since 0.1.0
 * @category pricing
 */
export const costFor = (
  prices: Settings.Settings["prices"],
  model: string,
  usage: Usage.Usage
): Option.Option<number> => Option.map(Option.fromUndefinedOr(prices[model]), (price) => costOf(usage, price))
