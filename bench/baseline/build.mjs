// @ts-check
/**
 * Builds effect3-kernel.mjs: agent-kernel on Effect 3 with effect 3.22 inside, one ES module. Run it at the
 * last commit on Effect 3 (see README.md here), where the workspace still resolves effect 3:
 *   git worktree add /tmp/effect3 <the last commit on Effect 3> && cd /tmp/effect3 && npx -y pnpm@12.4.2 install &&
 *   node bench/baseline/build.mjs
 */
import * as esbuild from "esbuild"
import * as path from "node:path"

const here = import.meta.dirname
await esbuild.build({
  entryPoints: [path.join(here, "entry.ts")],
  outfile: path.join(here, "effect3-kernel.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning"
})
