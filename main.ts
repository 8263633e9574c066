/**
 * The jpt command line: `deno run -A main.ts <command> ...`. The only place
 * the process's exit code is decided.
 *
 * @module
 */

import { processIo } from "./src/cli/output.ts";
import { runCli } from "./src/cli/program.ts";

if (import.meta.main) {
  Deno.exitCode = await runCli(Deno.args, {
    io: processIo(),
    env: (name) => Deno.env.get(name),
    cwd: Deno.cwd(),
    envVariables: Deno.env.toObject(),
  });
}
