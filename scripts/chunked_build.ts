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
 * Every function of every file is then put in parentheses
 * (`scripts/eager_functions.ts`): V8 compiles it with its file, and Deno's
 * code cache holds it, instead of every process compiling each function it
 * calls.
 *
 * Usage: `deno task build [--out DIR]` (default `dist/build`).
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eagerFunctions } from "./eager_functions.ts";

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

/** A file's static imports of other files of the build (`from "./x.js"`). */
const STATIC_IMPORT = /(?:\bfrom|\bimport)\s*"\.\/([\w.-]+\.js)"/g;

/**
 * A cycle of static imports between the files of a build, if there is one.
 * The build has none (esbuild puts code reached from the same entry points
 * in one chunk), and {@linkcode buildChunked} relies on it: once its
 * functions are `let`s (`scripts/eager_functions.ts`), a file cannot call
 * into one whose code has not run yet.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importCycle } from "./chunked_build.ts";
 * const files = new Map([
 *   ["a.js", 'import{x}from"./b.js";'],
 *   ["b.js", 'import"./c.js";'],
 *   ["c.js", 'import{y}from"./a.js";'],
 * ]);
 * assert.deepEqual(importCycle(files), ["a.js", "b.js", "c.js", "a.js"]);
 * files.delete("c.js");
 * assert.equal(importCycle(files), undefined);
 * ```
 *
 * @param sources Each file's text, by name.
 * @returns The files of one cycle, the first repeated at the end.
 */
export function importCycle(
  sources: ReadonlyMap<string, string>,
): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const at = path.indexOf(name);
    if (at >= 0) return [...path.slice(at), name];
    if (done.has(name) || !sources.has(name)) return undefined;
    path.push(name);
    for (const [, imported] of sources.get(name)!.matchAll(STATIC_IMPORT)) {
      const cycle = visit(imported!);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    done.add(name);
    return undefined;
  };
  for (const name of sources.keys()) {
    const cycle = visit(name);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/**
 * Bundles `cli.ts` with code splitting into an empty directory, defers
 * every lazily loaded chunk (see {@linkcode deferChunkImports}) and has V8
 * compile every function with its file (`scripts/eager_functions.ts`).
 *
 * @param outDir Where the files go (`cli.js` is the entry).
 * @returns The names of the files written.
 * @throws When the bundler fails, a chunk that a file imports is missing,
 *   the files import in a cycle, or a file does not parse.
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
  const sources = new Map<string, string>();
  for (const name of files.filter((file) => file.endsWith(".js"))) {
    sources.set(name, await Deno.readTextFile(join(outDir, name)));
  }
  const cycle = importCycle(sources);
  if (cycle !== undefined) {
    throw new Error(
      `the bundle's files import in a cycle: ${cycle.join(" → ")}`,
    );
  }
  for (const [name, text] of sources) {
    const path = join(outDir, name);
    const { source, chunks } = deferChunkImports(text);
    const missing = chunks.filter((chunk) => !files.includes(chunk.slice(2)));
    if (missing.length > 0) {
      throw new Error(`${name} imports missing chunks: ${missing.join(", ")}`);
    }
    let eager: string;
    try {
      eager = eagerFunctions(source);
    } catch (error) {
      throw new Error(
        `cannot put the functions of ${name} in parentheses: ${
          (error as Error).message
        }`,
      );
    }
    await Deno.writeTextFile(path, eager);
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
