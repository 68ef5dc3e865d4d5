/**
 * The main entry runs on any platform with an `HttpClient`: no module it
 * loads may import a Node built-in (`node:*`) or @effect/platform-node. Only
 * `./node` (and the test server under `./testing`) may. Checked on the source
 * import graph, which is what the build compiles one-to-one into dist/.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

const src = NodePath.join(import.meta.dirname, "..", "src")

const specifiers = (file: string): ReadonlyArray<string> => {
  const text = NodeFs.readFileSync(file, "utf8")
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`]*?from\s+["']([^"']+)["']/g)].map(
    (match) => match[1] ?? ""
  )
}

/** Every source file the entry loads, following relative imports. */
const graph = (entry: string): ReadonlyMap<string, ReadonlyArray<string>> => {
  const seen = new Map<string, ReadonlyArray<string>>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    const imports = specifiers(file)
    seen.set(file, imports)
    for (const spec of imports) {
      if (spec.startsWith(".")) visit(NodePath.resolve(NodePath.dirname(file), spec.replace(/\.js$/, ".ts")))
    }
  }
  visit(entry)
  return seen
}

describe("platform independence of the main entry", () => {
  it("no module reachable from src/index.ts imports node:* or @effect/platform-node", () => {
    const modules = graph(NodePath.join(src, "index.ts"))
    expect(modules.size).toBeGreaterThan(10)
    const offenders = [...modules.entries()].flatMap(([file, imports]) =>
      imports
        .filter((spec) => spec.startsWith("node:") || spec.startsWith("@effect/platform-node"))
        .map((spec) => `${NodePath.relative(src, file)} imports ${spec}`)
    )
    expect(offenders).toEqual([])
  })

  it("the check sees a node: import where there is one (./node)", () => {
    const modules = graph(NodePath.join(src, "node", "index.ts"))
    expect([...modules.values()].flat().some((spec) => spec.startsWith("node:"))).toBe(true)
  })
})
