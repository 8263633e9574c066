/**
 * The jpt command line: `deno run -A main.ts <command> ...`. The only place
 * the process's exit code is decided.
 *
 * @module
 */

import { runMain } from "./src/cli/run_main.ts";

if (import.meta.main) {
  Deno.exitCode = await runMain();
}
