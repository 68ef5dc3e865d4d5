// @ts-check
/**
 * The consumer check: what an Effect app gets when it installs agent-kernel
 * from tarballs with plain npm.
 *
 * 1. Packs every package under packages/ with pnpm (each `prepack` builds its dist/)
 *    and checks each tarball: no test, bench or fixture file, every `exports`
 *    target present, no `workspace:` or `catalog:` range left.
 * 2. For each version set, `lowest` and `newest`: resolves every `effect` and
 *    `@effect/*` package in reach of the packages' peer ranges (their own peers
 *    and dependencies included) to the lowest or newest version that fits
 *    every range. Into a fresh app it runs the README's `npm install` of the
 *    tarballs and the peers (by range for newest; pinned, with `overrides`
 *    for what is in reach, for lowest), and checks that
 *    - the installed effect packages are that set's versions,
 *    - `npm ls effect` shows exactly one copy,
 *    - `tsc --noEmit` passes on the app (strict, exactOptionalPropertyTypes,
 *      noPropertyAccessFromIndexSignature, erasableSyntaxOnly, skipLibCheck
 *      false: scripts/consumer/tsconfig.json),
 *    - the app, compiled and run with plain `node`, prints `completed` for a
 *      run with an MCP plugin over the Node transport, one over fetch, one
 *      through the adapter of an effect/ai LanguageModel, and one effect/ai
 *      `LanguageModel.generateText` through the kernel's provider as a Layer.
 * 3. An app on Effect 3 gets npm's peer-dependency error at install (ERESOLVE
 *    naming our `effect` peer range), never a crash at run time.
 *
 * Every check is one pass or fail, written to .consumer-check-results.json
 * for .ci/run. Exit code 1 if any failed.
 *
 * Usage: node scripts/consumer-check.mjs [--set lowest|newest] [--keep]
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import semver from "semver"

const root = path.resolve(import.meta.dirname, "..")
const fixture = path.join(root, "scripts/consumer")
const tsc = path.join(root, "node_modules/.bin/tsc")
const resultsFile = path.join(root, ".consumer-check-results.json")
/** Expected output of the consumer program, one line a run. */
const expectedLines = [
  "node transport + MCP plugin: completed",
  "fetch transport: completed",
  "effect/ai adapter: completed",
  "effect/ai LanguageModel: completed"
]
/** Paths that must never be packed. */
const forbidden = /(^|\/)(test|tests|__tests__|bench|fixtures?)\/|\.(test|spec)\.[cm]?[jt]s$|\.tsbuildinfo$/

const args = process.argv.slice(2)
const keep = args.includes("--keep")
const chosenSets = args.flatMap((arg, i) => (arg === "--set" && args[i + 1] !== undefined ? [args[i + 1]] : []))
const sets = /** @type {ReadonlyArray<"lowest" | "newest">} */ (
  ["lowest", "newest"].filter((set) => chosenSets.length === 0 || chosenSets.includes(set))
)

/** @type {Array<{ readonly name: string, readonly ok: boolean }>} */
const checks = []

/**
 * A log for one part of the check; the two version sets run at once, so each
 * keeps its lines and prints them together.
 */
const makeLog = () => {
  /** @type {Array<string>} */
  const lines = []
  return {
    /** @param {string} text */
    line: (text) => {
      lines.push(text)
    },
    /** One pass or fail. @param {string} name @param {boolean} ok @param {string} [detail] */
    record: (name, ok, detail) => {
      checks.push({ name, ok })
      lines.push(`${ok ? "PASS" : "FAIL"} ${name}${detail === undefined ? "" : `\n${detail}`}`)
      return ok
    },
    flush: () => console.log(lines.splice(0).join("\n"))
  }
}

/**
 * Runs a command; its output is returned, never thrown. Commands of the two
 * version sets run at the same time, so this is asynchronous.
 * @param {string} command @param {ReadonlyArray<string>} argv
 * @param {{ cwd?: string, timeout?: number }} [options]
 * @returns {Promise<{ ok: boolean, stdout: string, output: string }>}
 */
const run = (command, argv, options = {}) =>
  new Promise((resolve) => {
    const child = spawn(command, argv, { cwd: options.cwd ?? root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk))
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${options.timeout ?? 300_000} ms)`
      child.kill("SIGKILL")
    }, options.timeout ?? 300_000)
    child.on("error", (error) => (stderr += String(error)))
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ ok: code === 0, stdout, output: `${stdout}${stderr}` })
    })
  })

/** The pnpm catalog's range for a package (zod, @types/node: what the workspace itself uses). @param {string} name */
const catalogRange = (name) => {
  const text = fs.readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8")
  const escaped = name.replace(/[/@.]/g, (c) => `\\${c}`)
  const match = new RegExp(`^\\s+"?${escaped}"?:\\s*(\\S+)\\s*$`, "m").exec(text)
  if (match?.[1] === undefined) throw new Error(`${name} is not in the pnpm catalog`)
  return match[1]
}

/** Seconds since `started`, for the log. @param {number} started */
const seconds = (started) => `${((Date.now() - started) / 1000).toFixed(1)} s`

// ---- 1. build and pack --------------------------------------------------------------------------------------------

/**
 * @typedef {{ readonly name: string, readonly tarball: string, readonly manifest: Record<string, any> }} Packed
 */

/**
 * Packs every package as the README's "Install in your app" does (each
 * package's prepack builds its dist/ first), and checks each tarball.
 * @param {string} packs
 */
const pack = async (packs) => {
  const log = makeLog()
  /** @type {Array<Packed>} */
  const packed = []
  const started = Date.now()
  const command = ["-y", "pnpm@12.4.2", "-r", "--filter", "./packages/**", "pack", "--pack-destination", packs]
  log.line(`$ npx ${command.join(" ")}`)
  const result = await run("npx", command)
  if (!log.record("pnpm pack of every package", result.ok, result.ok ? undefined : result.output)) {
    log.flush()
    return packed
  }
  log.line(`(built and packed in ${seconds(started)})`)
  for (const tarball of fs.readdirSync(packs).sort()) {
    const file = path.join(packs, tarball)
    const listing = execFileSync("tar", ["tzvf", file], { encoding: "utf8" }).trim().split("\n")
    const entries = listing.map((line) => {
      const fields = line.split(/\s+/)
      return {
        size: Number(fields[2] ?? 0),
        path: fields
          .slice(5)
          .join(" ")
          .replace(/^package\//, "")
      }
    })
    const files = entries.map((entry) => entry.path)
    const manifest = JSON.parse(execFileSync("tar", ["xzfO", file, "package/package.json"], { encoding: "utf8" }))
    const name = String(manifest["name"])
    packed.push({ name, tarball: file, manifest })

    const unpacked = entries.reduce((sum, entry) => sum + entry.size, 0)
    const kB = (/** @type {number} */ bytes) => `${(bytes / 1024).toFixed(1)} kB`
    log.line(`\n${tarball}: ${files.length} files, ${kB(fs.statSync(file).size)} packed, ${kB(unpacked)} unpacked`)
    for (const entry of entries) log.line(`  ${String(entry.size).padStart(8)}  ${entry.path}`)
    const problems = [
      ...files.filter((f) => forbidden.test(f)).map((f) => `packed a test, bench or fixture file: ${f}`),
      ...Object.entries(manifest["exports"] ?? {}).flatMap(([entry, target]) =>
        (typeof target === "string" ? [target] : Object.values(target))
          .filter((t) => !files.includes(String(t).replace(/^\.\//, "")))
          .map((t) => `exports["${entry}"] points at ${t}, which is not in the tarball`)
      ),
      ...["dependencies", "peerDependencies"].flatMap((field) =>
        Object.entries(manifest[field] ?? {})
          .filter(([, range]) => /^(workspace|catalog):/.test(String(range)))
          .map(([dep, range]) => `${field}.${dep} is still ${range}`)
      )
    ]
    log.record(
      `tarball ${name}: no test/bench/fixture file, every export present, concrete ranges`,
      problems.length === 0,
      problems.join("\n") || undefined
    )
  }
  log.flush()
  return packed
}

// ---- 2. resolve a version set ------------------------------------------------------------------------------------

const isEffect = (/** @type {string} */ name) => name === "effect" || name.startsWith("@effect/")

/**
 * @typedef {{ version: string, dependencies?: Record<string, string>, peerDependencies?: Record<string, string>, peerDependenciesMeta?: Record<string, { optional?: boolean }> }} Published
 */

/** The registry npm is configured with. */
const registry = run("npm", ["config", "get", "registry"]).then((result) =>
  `${(result.ok && result.stdout.trim()) || "https://registry.npmjs.org"}`.replace(/\/?$/, "/")
)

/** @type {Map<string, Promise<ReadonlyArray<Published>>>} */
const packuments = new Map()
/**
 * Every published version of `name` with its dependencies, from the registry's
 * abbreviated metadata: one request a package, where `npm view` would start npm
 * once per range.
 * @param {string} name
 */
const published = (name) => {
  const cached = packuments.get(name)
  if (cached !== undefined) return cached
  const request = registry.then(async (base) => {
    const url = `${base}${name.replace("/", "%2f")}`
    const response = await fetch(url, { headers: { accept: "application/vnd.npm.install-v1+json" } })
    if (!response.ok) throw new Error(`GET ${url}: ${response.status}`)
    const document = /** @type {{ versions?: Record<string, Published> }} */ (await response.json())
    return Object.values(document.versions ?? {})
  })
  packuments.set(name, request)
  return request
}

/**
 * Pins every effect package in reach of `rootRanges` (our peers, then their
 * dependencies and required peers) to the lowest (or newest) version that
 * satisfies every range asking for it, repeating until the pins stop moving.
 * @param {"lowest" | "newest"} set @param {ReadonlyMap<string, string>} rootRanges
 * @returns {Promise<Map<string, string>>}
 */
const resolveSet = async (set, rootRanges) => {
  /** @type {Map<string, string>} */
  let pins = new Map()
  for (let round = 0; round < 10; round++) {
    /** @type {Map<string, Set<string>>} */
    const ranges = new Map([...rootRanges].map(([name, range]) => [name, new Set([range])]))
    const pinned = await Promise.all(
      [...pins].map(async ([name, version]) => (await published(name)).find((entry) => entry.version === version))
    )
    for (const entry of pinned) {
      const optional = entry?.peerDependenciesMeta ?? {}
      for (const [dep, range] of [
        ...Object.entries(entry?.dependencies ?? {}),
        ...Object.entries(entry?.peerDependencies ?? {}).filter(([dep]) => optional[dep]?.optional !== true)
      ]) {
        if (isEffect(dep)) ranges.set(dep, (ranges.get(dep) ?? new Set()).add(range))
      }
    }
    const chosen = await Promise.all(
      [...ranges].map(async ([name, asked]) => {
        const fitting = (await published(name))
          .map((entry) => entry.version)
          .filter((version) => [...asked].every((range) => semver.satisfies(version, range)))
          .sort(semver.compare)
        const version = set === "lowest" ? fitting[0] : fitting.at(-1)
        if (version === undefined) throw new Error(`no version of ${name} satisfies ${[...asked].join(" and ")}`)
        return /** @type {[string, string]} */ ([name, version])
      })
    )
    const next = new Map(chosen)
    const stable = next.size === pins.size && [...next].every(([name, version]) => pins.get(name) === version)
    pins = next
    if (stable) return pins
  }
  throw new Error(`the ${set} version set did not settle`)
}

// ---- 3. install and check one set --------------------------------------------------------------------------------

/**
 * @param {"lowest" | "newest"} set @param {ReadonlyArray<Packed>} packed @param {string} work
 * @param {ReadonlyMap<string, string>} rootRanges
 */
const checkSet = async (set, packed, work, rootRanges) => {
  const log = makeLog()
  const started = Date.now()
  log.line(`\n== ${set} versions`)
  /** @type {Map<string, string>} */
  let pins
  try {
    pins = await resolveSet(set, rootRanges)
  } catch (error) {
    log.record(`${set}: resolve the version set`, false, String(error))
    return log
  }
  const sorted = [...pins].sort(([a], [b]) => (a === "effect" ? -1 : b === "effect" ? 1 : a.localeCompare(b)))
  log.line(sorted.map(([name, version]) => `  ${name}@${version}`).join("\n"))
  log.line(`(resolved in ${seconds(started)})`)

  const app = path.join(work, `app-${set}`)
  fs.cpSync(fixture, app, { recursive: true })
  fs.copyFileSync(path.join(root, "examples/plugins/workspace.mjs"), path.join(app, "workspace.mjs"))
  const sdkRange = packed.find((p) => p.name === "@agent-kernel/plugins")?.manifest["dependencies"]?.[
    "@modelcontextprotocol/sdk"
  ]
  const manifest = {
    name: `agent-kernel-consumer-${set}`,
    private: true,
    type: "module",
    // The app's own: the bundled plugin (workspace.mjs) is an MCP server on the SDK and zod.
    dependencies: { "@modelcontextprotocol/sdk": sdkRange, zod: catalogRange("zod") },
    devDependencies: { "@types/node": catalogRange("@types/node") },
    // The lowest set pins every effect package in reach, also where another package depends on it.
    ...(set === "lowest" ? { overrides: Object.fromEntries(sorted) } : {})
  }
  fs.writeFileSync(path.join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)

  // The README's command: the tarballs and our peers, by range (newest) or at the pinned version (lowest).
  const peers = [...rootRanges].map(([name, range]) => `${name}@${set === "newest" ? range : pins.get(name)}`)
  const install = [
    "install",
    ...packed.map(({ tarball }) => tarball),
    ...peers,
    ...(set === "lowest" ? ["--save-exact"] : []),
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--loglevel=error"
  ]
  log.line(`$ npm ${install.join(" ")}`)
  const installStarted = Date.now()
  const installed = await run("npm", install, { cwd: app })
  log.line(`(npm install took ${seconds(installStarted)})`)
  if (!log.record(`${set}: npm install of the tarballs`, installed.ok, installed.ok ? undefined : installed.output))
    return log
  const versions = sorted.map(([name, version]) => {
    const file = path.join(app, "node_modules", name, "package.json")
    const actual = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8"))["version"] : "missing"
    return { name, version, actual }
  })
  const wrong = versions.filter(({ version, actual }) => version !== actual)
  log.record(
    `${set}: the installed effect packages are the ${set} versions`,
    wrong.length === 0,
    wrong.map(({ name, version, actual }) => `${name}: expected ${version}, installed ${actual}`).join("\n") ||
      undefined
  )

  const [tree, typecheck, emit] = await Promise.all([
    run("npm", ["ls", "effect", "--all"], { cwd: app }),
    run(tsc, ["-p", app, "--noEmit"]),
    run(tsc, ["-p", app, "--noCheck"])
  ])
  // Every line naming effect@VERSION is an installed copy, unless npm marks it deduped.
  const copies = tree.stdout.split("\n").filter((line) => /\beffect@\S+/.test(line) && !line.includes(" deduped"))
  log.line(`$ npm ls effect --all\n${tree.output.trim()}`)
  log.record(`${set}: npm ls effect shows exactly one copy`, tree.ok && copies.length === 1, copies.join("\n"))
  log.record(
    `${set}: tsc --noEmit of the consumer (strict, exactOptionalPropertyTypes, noPropertyAccessFromIndexSignature, erasableSyntaxOnly, skipLibCheck false)`,
    typecheck.ok,
    typecheck.output.trim() || undefined
  )
  const program = emit.ok ? await run(process.execPath, ["build/main.js"], { cwd: app, timeout: 120_000 }) : emit
  const lines = program.stdout.trim().split("\n")
  log.line(`$ node build/main.js\n${program.output.trim()}`)
  log.record(
    `${set}: the consumer on plain node prints completed for each run`,
    program.ok && expectedLines.every((line) => lines.includes(line))
  )
  log.line(`(${set}: ${seconds(started)} in all)`)
  return log
}

// ---- 4. an app on Effect 3 ---------------------------------------------------------------------------------------

/**
 * An app that already depends on effect 3 installs the tarballs: npm must refuse with its peer-dependency
 * error, naming our `effect` range, and install nothing.
 * @param {ReadonlyArray<Packed>} packed @param {string} work @param {string} effectRange
 */
const checkEffect3 = async (packed, work, effectRange) => {
  const log = makeLog()
  const app = path.join(work, "app-effect3")
  fs.mkdirSync(app)
  const manifest = {
    name: "agent-kernel-consumer-effect3",
    private: true,
    type: "module",
    dependencies: { effect: "3.22.4" }
  }
  fs.writeFileSync(path.join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  const install = ["install", ...packed.map(({ tarball }) => tarball), "--no-audit", "--no-fund", "--prefer-offline"]
  log.line(`\n== an app on effect 3.22.4\n$ npm ${install.join(" ")}`)
  const installed = await run("npm", install, { cwd: app })
  const refused =
    !installed.ok && installed.output.includes("ERESOLVE") && installed.output.includes(`effect@"${effectRange}"`)
  log.record(
    `effect 3 app: npm install refuses with the peer error naming effect@"${effectRange}"`,
    refused && !fs.existsSync(path.join(app, "node_modules", "@agent-kernel")),
    refused ? undefined : installed.output.trim().split("\n").slice(0, 20).join("\n")
  )
  return log
}

// ---- main --------------------------------------------------------------------------------------------------------

const main = async () => {
  const started = Date.now()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "agent-kernel-consumer-"))
  const packs = path.join(work, "packs")
  fs.mkdirSync(packs)
  try {
    const packed = await pack(packs)
    if (packed.length === fs.readdirSync(path.join(root, "packages")).length) {
      /** The ranges our packages ask of `effect` and `@effect/*`. */
      const rootRanges = new Map()
      const log = makeLog()
      for (const { name, manifest } of packed) {
        for (const [dep, range] of Object.entries(manifest["peerDependencies"] ?? {})) {
          if (!isEffect(dep)) continue
          const other = rootRanges.get(dep)
          if (other !== undefined && other !== range) {
            log.record(`${dep}: one peer range across the packages`, false, `${name} asks ${range}, another ${other}`)
          }
          rootRanges.set(dep, range)
        }
      }
      log.flush()
      const logs = await Promise.all([
        ...sets.map((set) => checkSet(set, packed, work, rootRanges)),
        checkEffect3(packed, work, rootRanges.get("effect") ?? "")
      ])
      for (const setLog of logs) setLog.flush()
    }
  } finally {
    if (!keep) fs.rmSync(work, { recursive: true, force: true })
  }
  const passed = checks.filter((c) => c.ok).length
  const failed = checks.length - passed
  fs.writeFileSync(resultsFile, `${JSON.stringify({ passed, failed, checks }, null, 2)}\n`)
  const kept = keep ? ` (kept ${work})` : ""
  console.log(`\nconsumer check: ${passed} passed, ${failed} failed in ${seconds(started)}${kept}`)
  process.exitCode = failed === 0 && checks.length > 0 ? 0 : 1
}

await main()
