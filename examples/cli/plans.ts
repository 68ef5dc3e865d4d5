/**
 * Fault plans for the fake provider, by name or from a file: one way to find
 * a plan for `agent --scenario` and `agent fake-server --plan`. A name is one
 * of the providers' bundled chaos plans (`ChaosPlans`); anything else is read
 * as a fault-plan file (JSON, at most 1 MiB, within 5 s).
 */
import { ChaosPlans, FaultPlan } from "@agent-kernel/providers/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readTextFile } from "./boundedRead.js"
import { UsageError } from "./usage.js"

/**
 * The plan named `nameOrFile`, or the one in that file. `notFound` says what
 * to do when it is neither a name nor a file, in the words of the option that
 * was given.
 */
export const load = (nameOrFile: string, notFound: () => string): Effect.Effect<FaultPlan.FaultPlan, UsageError> =>
  Option.match(ChaosPlans.byName(nameOrFile), {
    onSome: Effect.succeed,
    onNone: () =>
      readTextFile(nameOrFile).pipe(
        Effect.mapError(
          (error) =>
            new UsageError({
              message:
                error.reason._tag === "NotFound"
                  ? notFound()
                  : `cannot read the fault plan ${nameOrFile}: ${error.reason.description ?? error.reason._tag}`
            })
        ),
        Effect.flatMap((text) =>
          FaultPlan.fromJson(text).pipe(
            Effect.mapError(
              (error) => new UsageError({ message: `invalid fault plan in ${nameOrFile}:\n${error.message}` })
            )
          )
        )
      )
  })
