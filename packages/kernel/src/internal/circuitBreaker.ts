/** @internal */
export type BreakerStatus = "closed" | "open" | "half_open"

/** @internal */
export interface BreakerState {
  readonly status: BreakerStatus
  readonly consecutive: number
  readonly total: number
  readonly openedAt: number
  readonly probeInFlight: boolean
}

/** @internal */
export interface BreakerConfig {
  readonly consecutiveFailures: number
  readonly totalFailures: number
  readonly cooldownMillis: number
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
export const initial: BreakerState = { status: "closed", consecutive: 0, total: 0, openedAt: 0, probeInFlight: false }

/** @internal */
export interface Step<A> {
  readonly value: A
  readonly state: BreakerState
  readonly transition: Transition | undefined
}

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
          reason: openReason(s, config)
        },
        state: s,
        transition: undefined
      }
  }
}

const openReason = (s: BreakerState, config: BreakerConfig): string =>
  s.consecutive >= config.consecutiveFailures
    ? `${s.consecutive} consecutive failures`
    : `${s.total} failures in this session`

/**
 * A success closes a half-open breaker and resets the consecutive count. A
 * straggler that succeeds while the breaker is open changes nothing: only the
 * probe may close it.
 * @internal
 */
export const success = (state: BreakerState): Step<void> => {
  switch (state.status) {
    case "open":
      return { value: undefined, state, transition: undefined }
    case "half_open":
      return {
        value: undefined,
        state: { ...state, status: "closed", consecutive: 0, probeInFlight: false },
        transition: { from: "half_open", to: "closed", reason: "recovery probe succeeded" }
      }
    case "closed":
      return { value: undefined, state: { ...state, consecutive: 0 }, transition: undefined }
  }
}

/** @internal */
export const failure = (state: BreakerState, now: number, config: BreakerConfig, reason: string): Step<void> => {
  const counted: BreakerState = { ...state, consecutive: state.consecutive + 1, total: state.total + 1 }
  if (state.status === "half_open") {
    return {
      value: undefined,
      state: { ...counted, status: "open", openedAt: now, probeInFlight: false },
      transition: { from: "half_open", to: "open", reason: `recovery probe failed: ${reason}` }
    }
  }
  if (
    state.status === "closed" &&
    (counted.consecutive >= config.consecutiveFailures || counted.total >= config.totalFailures)
  ) {
    return {
      value: undefined,
      state: { ...counted, status: "open", openedAt: now },
      transition: { from: "closed", to: "open", reason: `${openReason(counted, config)} (last: ${reason})` }
    }
  }
  return { value: undefined, state: counted, transition: undefined }
}
