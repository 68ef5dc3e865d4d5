// @ts-check
/**
 * Bundles the agent command line and the demo into examples/dist with
 * esbuild: one ES module each, run by plain node, so a command starts in a
 * fraction of a second instead of loading tsx and compiling on every call.
 * The workspace packages are bundled from their sources, like every
 * dependency. Each file is written whole and renamed into place, so a
 * command (or a test) starting during a build runs the old bundle or the new
 * one, never half of one.
 *
 * Usage: node scripts/build-cli.mjs [--if-stale]
 *   --if-stale  do nothing when no input changed since the last build (the
 *               metafile of that build lists every input).
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const outdir = path.join(root, "examples/dist")
const metafile = path.join(outdir, "meta.json")
const entryPoints = { agent: "examples/cli/main.ts", demo: "examples/demo.ts" }

/** Whether the last build is older than one of its inputs, this script, or the lockfile. */
const stale = () => {
  if (!fs.existsSync(metafile)) return true
  /** @type {esbuild.Metafile} */
  const meta = JSON.parse(fs.readFileSync(metafile, "utf8"))
  const outputs = Object.keys(meta.outputs).map((file) => path.join(root, file))
  if (!outputs.every((file) => fs.existsSync(file))) return true
  const built = Math.min(...outputs.map((file) => fs.statSync(file).mtimeMs))
  const inputs = [...Object.keys(meta.inputs), "scripts/build-cli.mjs", "pnpm-lock.yaml"]
  return inputs.some((file) => {
    const full = path.join(root, file)
    return !fs.existsSync(full) || fs.statSync(full).mtimeMs > built
  })
}

if (process.argv.includes("--if-stale") && !stale()) process.exit(0)

/**
 * Leaves a package with a native addon (libsql, the durable session store's SQLite) out of the bundle,
 * loaded with `require` when the module that imports it first runs. An ESM import of an external would
 * be hoisted to the top of the bundle and load the addon at every start; this way only a command that
 * keeps a session (examples/cli/durable.ts, imported on demand) loads it.
 * @param {string} name
 * @returns {import("esbuild").Plugin}
 */
const lazyNative = (name) => ({
  name: `lazy-native-${name}`,
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${name}$`) }, (args) =>
      args.namespace === "lazy-native" ? { path: name, external: true } : { path: name, namespace: "lazy-native" }
    )
    build.onLoad({ filter: /.*/, namespace: "lazy-native" }, () => ({
      contents: `module.exports = require(${JSON.stringify(name)})`,
      loader: "js"
    }))
  }
})

const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints,
  outdir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  sourcesContent: false,
  metafile: true,
  logLevel: "warning",
  // CommonJS dependencies bundled into an ES module (the durable store's @libsql/client and ws)
  // require node's built-ins: give them a `require`.
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __createRequire } from "node:module"\nconst require = __createRequire(import.meta.url)'
  },
  // Left out of the bundle: the optional OpenTelemetry packages of `agent --otel`, imported only when it is
  // given (examples/cli/otel.ts), so a command without --otel loads none of them and an install without them
  // still runs.
  external: ["@effect/opentelemetry", "@opentelemetry/*"],
  plugins: [lazyNative("libsql")],
  write: false
})

/** Writes `contents` to `file` through a temporary file and a rename. @param {string} file @param {Uint8Array | string} contents */
const replace = (file, contents) => {
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, contents, { mode: file.endsWith(".mjs") ? 0o755 : 0o644 })
  fs.renameSync(temporary, file)
}
fs.mkdirSync(outdir, { recursive: true })
for (const output of result.outputFiles) replace(output.path, output.contents)
replace(metafile, JSON.stringify(result.metafile))
