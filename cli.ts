/**
 * The jpt command line for single-file builds (`deno task bundle`,
 * `deno task pack`, the JSR package's entry): `main.ts` with every command
 * module imported where the bundler sees it. Runs from the sources start
 * from `main.ts`, which leaves the command modules out of the start-up graph.
 *
 * @module
 */

import { registerCommandModules } from "./src/cli/command_table.ts";
import { COMMAND_MODULES } from "./src/cli/command_modules.ts";
import { runMain } from "./src/cli/run_main.ts";

/**
 * Runs jpt with every command module registered.
 *
 * @returns The exit code: 0 ok, 1 failure, 2 usage error, 130 interrupted.
 */
export async function runCliBundled(): Promise<number> {
  registerCommandModules(COMMAND_MODULES);
  return await runMain();
}

if (import.meta.main) {
  Deno.exitCode = await runCliBundled();
}
