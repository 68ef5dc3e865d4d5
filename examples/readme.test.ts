import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")

describe("README", () => {
  it("the embedding example runs and completes after honouring the retry-after", async () => {
    // Asynchronous, so the test worker's event loop stays free while tsx runs.
    const output = await new Promise<string>((resolve, reject) =>
      execFile(path.join(root, "node_modules/.bin/tsx"), ["examples/embed.ts"], { cwd: root }, (error, stdout) =>
        error === null ? resolve(stdout) : reject(error)
      )
    )
    assert.include(output, "retry in 1000 ms")
    assert.include(output, "completed: Hi! (1 retry)")
  })
})

describe("README: Install in your app", () => {
  it("installs every peer at the range the packages declare, and every package's tarball", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("## Install in your app"), readme.indexOf("## The agent CLI"))
    const command = /npm install ([\s\S]*?)\n(?!\s)/.exec(section.replace(/\\\n\s*/g, ""))?.[1] ?? ""
    const words = command.split(/\s+/).filter((word) => word !== "")
    const peers = new Map<string, string>()
    for (const pkg of fs.readdirSync(path.join(root, "packages"))) {
      const manifest = JSON.parse(fs.readFileSync(path.join(root, "packages", pkg, "package.json"), "utf8"))
      for (const [name, range] of Object.entries<string>(manifest.peerDependencies ?? {}))
        if (!name.startsWith("@agent-kernel/")) peers.set(name, range)
      assert.include(words.join(" "), `agent-kernel-${pkg}-${manifest.version}.tgz`)
    }
    const installed = new Map(
      words
        .filter((word) => !word.endsWith(".tgz"))
        .map((word) => [word.slice(0, word.lastIndexOf("@")), word.slice(word.lastIndexOf("@") + 1)])
    )
    assert.deepStrictEqual(Object.fromEntries(installed), Object.fromEntries(peers))
  })
})
