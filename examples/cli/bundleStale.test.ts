/**
 * `scripts/build-cli.mjs --if-stale`, which `pnpm agent` and every CLI test run first: the bundle is
 * rebuilt when one of its inputs changed, and only then. A virtual input (a module an esbuild plugin
 * makes up, listed as `namespace:path`) has no file to compare, so it never makes the bundle stale;
 * an installed package's files are covered by the lockfile, which is checked instead of them.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { isInstalled, isVirtual, staleInputs } from "../../scripts/build-cli.mjs"
import { ensureBundle, entry } from "./testBundle.js"

beforeAll(ensureBundle)

describe("build-cli --if-stale", () => {
  it("a virtual input never makes the bundle stale; a file written after the build, or gone, does", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-build-cli-"))
    const source = path.join(dir, "main.ts")
    fs.writeFileSync(source, "export {}\n")
    const builtAt = fs.statSync(source).mtimeMs + 1_000
    assert.isTrue(isVirtual("lazy-native:libsql"))
    assert.isFalse(isVirtual("examples/cli/main.ts"))
    assert.deepStrictEqual(staleInputs(["main.ts", "lazy-native:libsql"], builtAt, dir), [])
    assert.deepStrictEqual(staleInputs(["main.ts", "gone.ts"], builtAt, dir), ["gone.ts"])
    const installed = "node_modules/.pnpm/effect@4.1.0/node_modules/effect/dist/Effect.js"
    assert.isTrue(isInstalled(installed))
    assert.deepStrictEqual(staleInputs(["main.ts", installed], builtAt, dir), [])
    const later = new Date(builtAt + 1_000)
    fs.utimesSync(source, later, later)
    assert.deepStrictEqual(staleInputs(["main.ts", "lazy-native:libsql"], builtAt, dir), ["main.ts"])
  })

  it("a second --if-stale after a build writes nothing", async () => {
    const built = fs.statSync(entry).mtimeMs
    await ensureBundle()
    assert.strictEqual(fs.statSync(entry).mtimeMs, built)
  })
})
