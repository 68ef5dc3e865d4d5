/**
 * The option check that runs before effect/cli, on the agent command's real
 * options: pure, so every case is one call.
 */
import { assert, describe, it } from "@effect/vitest"
import { command } from "./agent.js"
import * as Argv from "./argv.js"
import { simulate } from "./simulate.js"

const spec = Argv.specOfCommand(command, [Argv.specOfCommand(simulate)])

describe("agent option check", () => {
  it("reads names, values and choices from the commands' own usage", () => {
    const provider = spec.options.find((option) => option.names.includes("--provider"))
    assert.deepStrictEqual(provider, {
      names: ["--provider"],
      takesValue: true,
      choices: ["fake", "anthropic", "openai"]
    })
    assert.deepInclude(spec.options, { names: ["--json"], takesValue: false, choices: undefined })
    assert.isDefined(spec.options.find((option) => option.names.includes("-h")))
    assert.deepStrictEqual(
      spec.subcommands.map((sub) => sub.name),
      ["simulate"]
    )
  })

  it("accepts a valid command line, values that look like options included", () => {
    assert.isUndefined(Argv.check(["--prompt", "--not-an-option", "--set", "base_delay_ms=-1", "--json"], spec))
    assert.isUndefined(Argv.check(["--provider=openai", "--model", "m", "-h"], spec))
    assert.isUndefined(Argv.check(["--json", "simulate", "--faults", "429", "--runs", "3"], spec))
  })

  it("names the option and suggests the nearest name", () => {
    assert.strictEqual(Argv.check(["--promt", "hi"], spec), "unknown option --promt; did you mean --prompt?")
    assert.strictEqual(Argv.check(["--scenari", "happy"], spec), "unknown option --scenari; did you mean --scenario?")
    assert.strictEqual(Argv.check(["--frobnicate"], spec), "unknown option --frobnicate (see agent --help)")
  })

  it("checks the options after a subcommand's name against the subcommand", () => {
    assert.strictEqual(Argv.check(["simulate", "--runz", "3"], spec), "unknown option --runz; did you mean --runs?")
    assert.strictEqual(
      Argv.check(["simulate", "--prompt", "x"], spec),
      "unknown option --prompt (see agent simulate --help)"
    )
  })

  it("an invalid choice names its option; a missing value is named too", () => {
    assert.strictEqual(
      Argv.check(["--provider", "nope"], spec),
      '--provider must be one of fake, anthropic, openai, not "nope"'
    )
    assert.strictEqual(Argv.check(["--prompt"], spec), "--prompt needs a value")
    assert.strictEqual(Argv.check(["--prompt="], spec), "--prompt needs a value")
  })

  it("stops at --", () => {
    assert.isUndefined(Argv.check(["--json", "--", "--anything"], spec))
  })
})
