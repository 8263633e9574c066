/**
 * Loading jpt's own modules on first use. A dynamic `import("./x.ts")` with
 * a string literal makes Deno read and analyse x.ts and everything it
 * imports as soon as the importing module loads, before any code runs: a
 * command module naming its flow that way paid for the flow's whole module
 * graph twice (about 4 ms of `jpt turns`). {@linkcode importLazily} takes
 * the path as a value, which Deno does not follow ahead of time.
 *
 * A single-file build (the bundle, `deno compile`, `cli.ts`) cannot load a
 * file by its path: `cli.ts` registers every module where the bundler sees
 * it (`lazy_modules.ts`, {@linkcode registerLazyModules}), and
 * `tests/platform/lazy_modules_test.ts` keeps that list equal to the paths
 * the sources ask for. `deno task imports` refuses a literal dynamic import
 * of a file of `src/`.
 *
 * @module
 */

import type { LazyModules } from "../../lazy_modules.ts";

/** Loaders of modules by their path under `src/` (`app/list_turns.ts`). */
export type ModuleLoaders = Readonly<Record<string, () => Promise<unknown>>>;

/**
 * The path of every lazily loaded module (the keys of `lazy_modules.ts`,
 * read as a type only: this floor imports no code above it).
 */
export type LazyPath = keyof LazyModules;

/** The namespace of the lazily loaded module at `P`. */
export type LazyModule<P extends LazyPath> = LazyModules[P];

let registered: ModuleLoaders | undefined;
/** Each module's load, once asked for: a loop asking again waits for nothing. */
const loads = new Map<string, Promise<unknown>>();

/**
 * Makes {@linkcode importLazily} load from `loaders` instead of by path, as a
 * single-file build must.
 *
 * @param loaders Every lazily loaded module by its path under `src/`, or `undefined` to load by path again.
 */
export function registerLazyModules(loaders: ModuleLoaders | undefined): void {
  registered = loaders;
  loads.clear();
}

/**
 * Imports a module of `src/` when it is first needed.
 *
 * @example
 * ```ts ignore
 * const { listTurns } = await importLazily("app/read/list_turns.ts");
 * ```
 *
 * @param path The module's path under `src/` (a key of `lazy_modules.ts`,
 *   which types the namespace).
 * @returns The module's namespace.
 */
export async function importLazily<P extends LazyPath>(
  path: P,
): Promise<LazyModule<P>> {
  let loading = loads.get(path);
  if (loading === undefined) {
    const load = registered?.[path];
    loading = load !== undefined
      ? load()
      : import(new URL(`../${path}`, import.meta.url).href);
    loads.set(path, loading);
    // A failed load is not remembered: the next caller tries again.
    loading.catch(() => loads.delete(path));
  }
  return await loading as LazyModule<P>;
}
