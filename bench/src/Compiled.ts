/**
 * Runs a benchmark as compiled JavaScript, the way the packages ship: the
 * workspace's TypeScript (the benchmark and the `@agent-kernel/*` packages it
 * imports) bundled by esbuild into `bench/dist/`, every installed package
 * left external, then run by a new `node --expose-gc`.
 *
 * Why not straight from the sources: `tsx` compiles with esbuild's
 * `keepNames`, which wraps every function the code creates in a `__name`
 * call, and registers source maps. The kernel would pay that on every step
 * while everything it is compared with (the Effect 3 kernel's bundle, effect,
 * the AI SDK) runs as plain JavaScript.
 *
 * @since 0.1.0
 */
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import * as path from "node:path"

const here = import.meta.dirname

/** Installed packages stay external; relative imports and the workspace's own packages are bundled. */
const installedPackagesExternal: esbuild.Plugin = {
  name: "installed-packages-external",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith("@agent-kernel/") ? undefined : { path: args.path, external: true }
    )
  }
}

/**
 * Bundles `entry` (a module of `bench/src`) into `bench/dist/`; returns the
 * bundle's path.
 *
 * @since 0.1.0
 * @category building
 */
export const build = async (entry: string): Promise<string> => {
  const outfile = path.join(here, "..", "dist", `${path.basename(entry, ".ts")}.mjs`)
  await esbuild.build({
    entryPoints: [path.join(here, entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: `node${process.versions.node}`,
    plugins: [installedPackagesExternal],
    logLevel: "warning"
  })
  return outfile
}

/**
 * Bundles `entry` and runs it in a new node process with `args`, its output
 * on this process's; resolves to its exit code.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (entry: string, args: ReadonlyArray<string>): Promise<number> => {
  const bundle = await build(entry)
  const child = spawn(process.execPath, ["--expose-gc", bundle, ...args], { stdio: "inherit" })
  return new Promise((resolve, reject) => {
    child.on("error", reject)
    child.on("exit", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })
}
