/**
 * The jpt command line for single-file builds (`deno task bundle`,
 * `deno task pack`, the JSR package's entry): `main.ts` with every lazily
 * loaded module (each command's, each flow's) imported where the bundler
 * sees it. Runs from the sources start from `main.ts`, which leaves those
 * modules out of the start-up graph.
 *
 * @module
 */

import { registerLazyModules } from "./src/platform/lazy_import.ts";
import { LAZY_MODULES } from "./lazy_modules.ts";
import { runMain } from "./src/cli/run_main.ts";

/**
 * Runs jpt with every lazily loaded module registered.
 *
 * @returns The exit code: 0 ok, 1 failure, 2 usage error, 130 interrupted.
 */
export async function runCliBundled(): Promise<number> {
  registerLazyModules(LAZY_MODULES);
  return await runMain();
}

if (import.meta.main) {
  Deno.exitCode = await runCliBundled();
}
