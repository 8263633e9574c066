/**
 * `deno task build`: jpt as a code-split bundle, what `deno task install`
 * runs. `cli.js` holds what every command needs; each command's and each
 * flow's modules are chunks that load when they are first needed, as in a
 * run from the sources. It starts faster than the sources: a handful of
 * local files instead of 40–60 modules, with the npm packages (the OpenAI
 * SDK, smol-toml) among them, so Deno's code cache covers them too.
 *
 * esbuild writes each lazily loaded chunk as `import("./name-HASH.js")`. Deno
 * reads every import with a literal specifier into the module graph before
 * the program starts, all 150 chunks of them; written as
 * `import(new URL("./name-HASH.js", import.meta.url).href)`, a chunk is read
 * only when it is imported.
 *
 * Usage: `deno task build [--out DIR]` (default `dist/build`).
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** `import("./chunk.js")` as esbuild writes a lazily loaded chunk. */
const CHUNK_IMPORT = /\bimport\("(\.\/[\w.-]+\.js)"\)/g;

/**
 * Rewrites a bundle file's lazily loaded chunks so that Deno reads each one
 * only when it is imported.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deferChunkImports } from "./chunked_build.ts";
 * assert.deepEqual(deferChunkImports('f = () => import("./turns-AB12.js");'), {
 *   source: 'f = () => import(new URL("./turns-AB12.js", import.meta.url).href);',
 *   chunks: ["./turns-AB12.js"],
 * });
 * ```
 *
 * @param source One file of the bundle.
 * @returns The rewritten file and the chunks it imports lazily.
 */
export function deferChunkImports(
  source: string,
): { source: string; chunks: string[] } {
  const chunks: string[] = [];
  const rewritten = source.replace(CHUNK_IMPORT, (_, chunk: string) => {
    chunks.push(chunk);
    return `import(new URL("${chunk}", import.meta.url).href)`;
  });
  return { source: rewritten, chunks };
}

/**
 * Bundles `cli.ts` with code splitting into an empty directory and defers
 * every lazily loaded chunk (see {@linkcode deferChunkImports}).
 *
 * @param outDir Where the files go (`cli.js` is the entry).
 * @returns The names of the files written.
 * @throws When the bundler fails, or a chunk that a file imports is missing.
 */
export async function buildChunked(outDir: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--code-splitting",
      "--minify",
      "--keep-names",
      "--outdir",
      outDir,
      "cli.ts",
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno bundle failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const files: string[] = [];
  for await (const entry of Deno.readDir(outDir)) {
    if (entry.isFile) files.push(entry.name);
  }
  for (const name of files.filter((file) => file.endsWith(".js"))) {
    const path = join(outDir, name);
    const { source, chunks } = deferChunkImports(
      await Deno.readTextFile(path),
    );
    const missing = chunks.filter((chunk) => !files.includes(chunk.slice(2)));
    if (missing.length > 0) {
      throw new Error(`${name} imports missing chunks: ${missing.join(", ")}`);
    }
    if (chunks.length > 0) await Deno.writeTextFile(path, source);
  }
  if (!files.includes("cli.js")) throw new Error("the bundle has no cli.js");
  return files.sort();
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--out");
  const outDir = at >= 0 ? Deno.args[at + 1]! : join(ROOT, "dist", "build");
  await Deno.remove(outDir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  const files = await buildChunked(outDir);
  console.log(`${join(outDir, "cli.js")} (${files.length} files)`);
}
