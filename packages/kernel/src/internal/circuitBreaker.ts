/** @internal */
export type BreakerStatus = "closed" | "open" | "half_open"

/**
 * When failures open the breaker: an immutable tally that answers each
 * outcome with its next self. `tripped` says why the breaker should open, if
 * it should. Pure, so strategies compose and test without a clock.
 * @internal
 */
export interface Strategy {
  readonly tripped: string | undefined
  readonly counts: Readonly<Record<string, number>>
  readonly success: () => Strategy
  readonly failure: () => Strategy
}

/** @internal */
export const consecutive = (threshold: number, count = 0): Strategy => ({
  tripped: count >= threshold ? `${count} consecutive failures` : undefined,
  counts: { consecutive: count },
  success: () => consecutive(threshold, 0),
  failure: () => consecutive(threshold, count + 1)
})

/**
 * Failures net of successes: each failure adds one, each success takes
 * `refund` off (never below zero). With the default refund of 1 a provider
 * that fails more often than it succeeds trips it sooner or later, one that
 * fails less often never does, and old failures are forgiven by later
 * successes instead of counting for the rest of the session.
 * @internal
 */
export const total = (threshold: number, refund: number, count = 0): Strategy => ({
  tripped:
    count >= threshold
      ? refund === 0
        ? `${formatCount(count)} failures in this session`
        : `${formatCount(count)} failures not offset by successes`
      : undefined,
  counts: { total: count },
  success: () => total(threshold, refund, Math.max(0, count - refund)),
  failure: () => total(threshold, refund, count + 1)
})

const formatCount = (count: number): string => (Number.isInteger(count) ? String(count) : count.toFixed(2))

/**
 * Trips when any of its strategies does; every one hears every outcome.
 * @internal
 */
export const either = (strategies: ReadonlyArray<Strategy>): Strategy => ({
  tripped: strategies.find((strategy) => strategy.tripped !== undefined)?.tripped,
  counts: Object.assign({}, ...strategies.map((strategy) => strategy.counts)),
  success: () => either(strategies.map((strategy) => strategy.success())),
  failure: () => either(strategies.map((strategy) => strategy.failure()))
})

/** @internal */
export interface BreakerConfig {
  /** The tally a closed breaker starts from, again after each recovery. */
  readonly strategy: Strategy
  readonly cooldownMillis: number
}

/** @internal */
export interface BreakerState {
  readonly status: BreakerStatus
  readonly tally: Strategy
  readonly openedAt: number
  readonly probeInFlight: boolean
}

/** @internal */
export interface Transition {
  readonly from: BreakerStatus
  readonly to: BreakerStatus
  readonly reason: string
}

/** @internal */
export type Permit =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Probe" }
  | { readonly _tag: "Rejected"; readonly retryInMillis: number; readonly reason: string }

/** @internal */
export const initial = (config: BreakerConfig): BreakerState => ({
  status: "closed",
  tally: config.strategy,
  openedAt: 0,
  probeInFlight: false
})

/** @internal */
export interface Step<A> {
  readonly value: A
  readonly state: BreakerState
  readonly transition: Transition | undefined
}

const unchanged = (state: BreakerState): Step<void> => ({ value: undefined, state, transition: undefined })

/**
 * An open breaker whose cooldown has elapsed is half-open. Applied lazily on
 * every read, so no timer fiber is needed and TestClock drives it exactly.
 * @internal
 */
export const settle = (state: BreakerState, now: number, config: BreakerConfig): Step<BreakerStatus> =>
  state.status === "open" && now - state.openedAt >= config.cooldownMillis
    ? {
        value: "half_open",
        state: { ...state, status: "half_open", probeInFlight: false },
        transition: { from: "open", to: "half_open", reason: `cooldown of ${config.cooldownMillis} ms elapsed` }
      }
    : { value: state.status, state, transition: undefined }

/** @internal */
export const acquire = (state: BreakerState, now: number, config: BreakerConfig): Step<Permit> => {
  const settled = settle(state, now, config)
  const s = settled.state
  switch (s.status) {
    case "closed":
      return { value: { _tag: "Allowed" }, state: s, transition: settled.transition }
    case "half_open":
      return s.probeInFlight
        ? {
            value: { _tag: "Rejected", retryInMillis: 0, reason: "a recovery probe is in flight" },
            state: s,
            transition: settled.transition
          }
        : { value: { _tag: "Probe" }, state: { ...s, probeInFlight: true }, transition: settled.transition }
    case "open":
      return {
        value: {
          _tag: "Rejected",
          retryInMillis: Math.max(0, s.openedAt + config.cooldownMillis - now),
          reason: s.tally.tripped ?? "opened"
        },
        state: s,
        transition: undefined
      }
  }
}

/**
 * A success closes a half-open breaker, and the tally starts afresh: the
 * provider has recovered. A straggler that succeeds while the breaker is
 * open changes nothing: only the probe may close it.
 * @internal
 */
export const success = (state: BreakerState, config: BreakerConfig): Step<void> => {
  switch (state.status) {
    case "open":
      return unchanged(state)
    case "half_open":
      return {
        value: undefined,
        state: { ...state, status: "closed", tally: config.strategy, probeInFlight: false },
        transition: { from: "half_open", to: "closed", reason: "recovery probe succeeded" }
      }
    case "closed":
      return { value: undefined, state: { ...state, tally: state.tally.success() }, transition: undefined }
  }
}

/**
 * A failure is counted; a closed breaker opens when its strategy trips, and
 * a failed probe reopens it for another full cooldown.
 * @internal
 */
export const failure = (state: BreakerState, now: number, reason: string): Step<void> => {
  const counted: BreakerState = { ...state, tally: state.tally.failure() }
  if (state.status === "half_open") {
    return {
      value: undefined,
      state: { ...counted, status: "open", openedAt: now, probeInFlight: false },
      transition: { from: "half_open", to: "open", reason: `recovery probe failed: ${reason}` }
    }
  }
  const tripped = counted.tally.tripped
  if (state.status === "closed" && tripped !== undefined) {
    return {
      value: undefined,
      state: { ...counted, status: "open", openedAt: now },
      transition: { from: "closed", to: "open", reason: `${tripped} (last: ${reason})` }
    }
  }
  return unchanged(counted)
}

/**
 * A probe that ended without an outcome (it was interrupted) says nothing
 * about the provider: its slot is released and the next call probes.
 * @internal
 */
export const abandon = (state: BreakerState): Step<void> =>
  state.status === "half_open" && state.probeInFlight ? unchanged({ ...state, probeInFlight: false }) : unchanged(state)

/**
 * How a protected call ended, as far as the breaker cares: it succeeded, it
 * failed in a way that counts, it failed in a way that does not (a caller's
 * mistake says nothing against the provider), or it was interrupted.
 * @internal
 */
export type Outcome =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "Excused" }
  | { readonly _tag: "Interrupted" }

/**
 * What a permit's outcome does to the breaker.
 *
 * A probe is always resolved: one that answered at all (even with an
 * excused failure) shows the provider alive and closes the breaker; one
 * that failed reopens it; one that was interrupted is abandoned, never
 * counted as a failed probe.
 *
 * An ordinary call counts only while the breaker is closed. One that
 * finishes after the breaker opened is a straggler: counting its failure
 * would change nothing, and counting its success would close the breaker
 * without a probe.
 * @internal
 */
export const complete = (
  state: BreakerState,
  now: number,
  config: BreakerConfig,
  permit: Exclude<Permit, { readonly _tag: "Rejected" }>,
  outcome: Outcome
): Step<void> => {
  if (permit._tag === "Allowed" && state.status !== "closed") return unchanged(state)
  switch (outcome._tag) {
    case "Succeeded":
      return success(state, config)
    case "Failed":
      return failure(state, now, outcome.reason)
    case "Excused":
      return permit._tag === "Probe" ? success(state, config) : unchanged(state)
    case "Interrupted":
      return permit._tag === "Probe" ? abandon(state) : unchanged(state)
  }
}
