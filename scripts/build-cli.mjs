// @ts-check
/**
 * Bundles the agent command line and the demo into examples/dist with
 * esbuild, run by plain node: an ES module each (`agent.mjs`, `demo.mjs`)
 * and the chunks they share or load on demand (`chunks/`), so that a command
 * parses and compiles only the code it runs: `--help` and `--version` load
 * effect and effect/cli, a run loads the kernel, the providers and the
 * plugins, `--session` the durable store. The workspace packages are bundled
 * from their sources, like every dependency.
 *
 * Each file is written whole and renamed into place, the chunks before the
 * entries that import them, and the chunks of the previous build are kept
 * until the next one: a command (or a test) starting during a build runs the
 * old bundle or the new one, never half of one.
 *
 * Usage: node scripts/build-cli.mjs [--if-stale]
 *   --if-stale  do nothing when no input changed since the last build (the
 *               metafile of that build lists every input).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(import.meta.dirname, "..")
const outdir = path.join(root, "examples/dist")
const metafile = path.join(outdir, "meta.json")
const chunks = path.join(outdir, "chunks")
const entryPoints = { agent: "examples/cli/bin.ts", demo: "examples/demo.ts" }

/**
 * Whether a metafile input is a module a plugin made up (`namespace:path`), with no file behind it to
 * compare: esbuild names every input outside its `file` namespace that way.
 * @param {string} input
 */
export const isVirtual = (input) => /^[^/\\]+:/.test(input) && !input.startsWith("file:")

/**
 * Whether a metafile input is an installed package's file. pnpm installs each package version once, at a
 * path of its own, and a different version or a patch changes the lockfile, which is checked instead.
 * @param {string} input
 */
export const isInstalled = (input) => input.includes("node_modules/")

/**
 * The inputs of a build that make it stale: a file written after `builtAt` (ms), or one no longer there.
 * Virtual inputs are no files and never make a build stale; installed packages' files are covered by the
 * lockfile (see `isInstalled`).
 * @param {ReadonlyArray<string>} inputs paths relative to `base`, as a metafile lists them
 * @param {number} builtAt
 * @param {string} base
 * @returns {ReadonlyArray<string>}
 */
export const staleInputs = (inputs, builtAt, base) =>
  inputs.filter((input) => {
    if (isVirtual(input) || isInstalled(input)) return false
    const full = path.join(base, input)
    return !fs.existsSync(full) || fs.statSync(full).mtimeMs > builtAt
  })

/** Whether the last build is older than one of its inputs, this script, or the lockfile. */
const stale = () => {
  if (!fs.existsSync(metafile)) return true
  /** @type {import("esbuild").Metafile} */
  const meta = JSON.parse(fs.readFileSync(metafile, "utf8"))
  const outputs = outputsOf(meta)
  if (!outputs.every((file) => fs.existsSync(file))) return true
  const built = Math.min(...outputs.map((file) => fs.statSync(file).mtimeMs))
  const inputs = [...Object.keys(meta.inputs), "scripts/build-cli.mjs", "pnpm-lock.yaml"]
  return staleInputs(inputs, built, root).length > 0
}

/** Writes `contents` to `file` through a temporary file and a rename. @param {string} file @param {Uint8Array | string} contents */
const replace = (file, contents) => {
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, contents, { mode: file.endsWith(".mjs") ? 0o755 : 0o644 })
  fs.renameSync(temporary, file)
}

const build = async () => {
  // Loaded only to build: a fresh bundle is checked without it.
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    outExtension: { ".js": ".mjs" },
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    sourcemap: "linked",
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
    // CommonJS dependencies bundled into an ES module require node's built-ins: give them a `require`.
    banner: {
      js: '#!/usr/bin/env node\nimport { createRequire as __createRequire } from "node:module"\nconst require = __createRequire(import.meta.url)'
    },
    // Left out of the bundle: the optional OpenTelemetry packages of `agent --otel`, imported only when it is
    // given (examples/cli/otel.ts), so a command without --otel loads none of them and an install without them
    // still runs.
    external: ["@effect/opentelemetry", "@opentelemetry/*"],
    write: false
  })
  const previous = fs.existsSync(metafile) ? outputsOf(JSON.parse(fs.readFileSync(metafile, "utf8"))) : []
  fs.mkdirSync(chunks, { recursive: true })
  const [chunkFiles, entryFiles] = partition(result.outputFiles, (output) => path.dirname(output.path) === chunks)
  for (const output of [...chunkFiles, ...entryFiles]) replace(output.path, output.contents)
  replace(metafile, JSON.stringify(result.metafile))
  const kept = new Set([...previous, ...outputsOf(result.metafile)])
  for (const file of fs.readdirSync(chunks).map((name) => path.join(chunks, name))) {
    if (!kept.has(file)) fs.rmSync(file, { force: true })
  }
}

/** The files a build wrote, as absolute paths. @param {import("esbuild").Metafile} meta */
const outputsOf = (meta) => Object.keys(meta.outputs).map((file) => path.join(root, file))

/**
 * The items that pass and those that do not.
 * @template A
 * @param {ReadonlyArray<A>} items
 * @param {(item: A) => boolean} test
 * @returns {[Array<A>, Array<A>]}
 */
const partition = (items, test) => [items.filter(test), items.filter((item) => !test(item))]

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!(process.argv.includes("--if-stale") && !stale())) await build()
}
