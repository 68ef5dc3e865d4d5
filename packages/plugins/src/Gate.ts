/**
 * The permission gate: decides, before a tool runs, whether it may.
 *
 * A denial is not a fault: the model receives an `is_error` tool_result that
 * says why, and the denial counts toward the provider's circuit breaker, the
 * same one crashes trip, so a denial storm ends like a crash loop does.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * What the gate is asked about.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly provider: string
  readonly tool: string
  readonly input: unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export type Decision = { readonly _tag: "Allow" } | { readonly _tag: "Deny"; readonly reason: string }

/**
 * @since 0.1.0
 * @category constructors
 */
export const allow: Decision = { _tag: "Allow" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const deny = (reason: string): Decision => ({ _tag: "Deny", reason })

/**
 * What a gate does: decide one request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly decide: (request: Request) => Effect.Effect<Decision>
}

/**
 * Allows every call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const allowAll: Service = { decide: () => Effect.succeed(allow) }

/**
 * The gate service. `PluginToolbox` uses the one in context; without one,
 * every call is allowed.
 *
 * @since 0.1.0
 * @category tags
 */
export const Gate: Context.Reference<Service> = Context.Reference<Service>("@agent-kernel/plugins/Gate", {
  defaultValue: () => allowAll
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerAllowAll: Layer.Layer<never> = Layer.succeed(Gate, allowAll)

/**
 * One rule. Every field given must match:
 * - `tool`: a tool name, with `*` as a wildcard, or a RegExp;
 * - `provider`: the provider's name, same syntax;
 * - `arguments`: for each argument (a dot path into the input), a RegExp its
 *   value must match; non-string values are matched as JSON.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rule {
  readonly tool?: string | RegExp | undefined
  readonly provider?: string | RegExp | undefined
  readonly arguments?: Readonly<Record<string, RegExp>> | undefined
  /** Told to the model when this rule denies a call. */
  readonly reason?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Rules {
  /** When given, a call must match one of these rules. */
  readonly allow?: ReadonlyArray<Rule> | undefined
  /** A call matching any of these is denied, whatever `allow` says. */
  readonly deny?: ReadonlyArray<Rule> | undefined
}

const globToRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
      .join(".*")}$`
  )

const nameMatches = (pattern: string | RegExp | undefined, value: string): boolean =>
  pattern === undefined || (typeof pattern === "string" ? globToRegExp(pattern) : pattern).test(value)

const lookup = (input: unknown, path: string): { readonly found: boolean; readonly value: unknown } => {
  let current: unknown = input
  for (const key of path.split(".")) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) {
      return { found: false, value: undefined }
    }
    current = Reflect.get(current, key)
  }
  return { found: true, value: current }
}

const argumentsMatch = (patterns: Readonly<Record<string, RegExp>> | undefined, input: unknown): boolean =>
  patterns === undefined ||
  Object.entries(patterns).every(([path, pattern]) => {
    const { found, value } = lookup(input, path)
    return found && pattern.test(typeof value === "string" ? value : (JSON.stringify(value) ?? ""))
  })

/**
 * Whether a rule matches a request.
 *
 * @since 0.1.0
 * @category predicates
 */
export const matches = (rule: Rule, request: Request): boolean =>
  nameMatches(rule.tool, request.tool) &&
  nameMatches(rule.provider, request.provider) &&
  argumentsMatch(rule.arguments, request.input)

const describeRule = (rule: Rule): string => {
  const parts = [
    rule.provider === undefined ? [] : [`provider ${String(rule.provider)}`],
    rule.tool === undefined ? [] : [`tool ${String(rule.tool)}`],
    rule.arguments === undefined
      ? []
      : Object.entries(rule.arguments).map(([path, pattern]) => `argument ${path} ~ ${String(pattern)}`)
  ].flat()
  return parts.length === 0 ? "every call" : parts.join(", ")
}

/**
 * A rule-based gate: deny rules first, then the allow list when there is one.
 *
 * @example
 * ```ts
 * import { Gate } from "@agent-kernel/plugins"
 *
 * const gate = Gate.rules({
 *   deny: [{ tool: "shell", arguments: { command: /\brm\s+-rf\b/ }, reason: "Deleting trees is not allowed." }],
 *   allow: [{ provider: "files" }, { tool: "shell" }]
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const rules = (rules: Rules): Service => ({
  decide: (request) =>
    Effect.sync(() => {
      const denied = rules.deny?.find((rule) => matches(rule, request))
      if (denied !== undefined) {
        return deny(denied.reason ?? `The call matches a deny rule (${describeRule(denied)}).`)
      }
      if (rules.allow !== undefined && !rules.allow.some((rule) => matches(rule, request))) {
        return deny(`Tool "${request.tool}" with these arguments is not on the allow list.`)
      }
      return allow
    })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerRules = (config: Rules): Layer.Layer<never> => Layer.succeed(Gate, rules(config))
