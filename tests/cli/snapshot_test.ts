/**
 * Snapshots of what the CLI prints (stdout, stderr and exit code together)
 * on the sample workspace in `testdata/`, with `NO_COLOR`, `TZ=UTC` and a
 * user config and data directory that are empty. None of these commands
 * reads the clock. Update on purpose only: `deno test -A -u tests/cli/snapshot_test.ts`,
 * then review the `.snap` diff like code.
 *
 * @module
 */

import { join } from "node:path";
import { commandPaths } from "../../src/cli/program.ts";
import { runJpt } from "../support/cli.ts";
import { testdata } from "../support/paths.ts";

const WORKSPACE = testdata("workspace");
/** Connection refused at once: the context window falls back to its default. */
const NO_OLLAMA = "providers.llm.ollama.base_url=http://127.0.0.1:9";

const COMMANDS: string[][] = [
  ["--help"],
  ["turns"],
  ["turns", "--json"],
  ["check"],
  ["check", "--json"],
  ["summarize", "--dry-run"],
  ["config", "show"],
  ["--cfg", NO_OLLAMA, "models"],
  ["conversation", "ls"],
  ["conversation", "ls", "--json"],
  ["turns", "--all"],
  ["turns", "--all", "--json"],
  ["find", "warning"],
  ["find", "--json", "retry"],
  ["show", "--turn", "2"],
  ["outline"],
  ["outline", "--format", "json"],
];

/** `--help` of every command, from the command tree (none can be forgotten). */
const HELP: string[][] = [
  ...(await commandPaths()).map((path) => [...path, "--help"]),
];

Deno.test("jpt output on the sample workspace", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "jpt-snap-" });
  try {
    const env = {
      JP_USER_DATA_DIR: join(home, "data"),
      JP_GLOBAL_CONFIG_DIR: join(home, "config"),
    };
    for (const args of [...COMMANDS, ...HELP]) {
      await t.step(`jpt ${args.join(" ")}`, async (t) => {
        const { code, stdout, stderr } = await runJpt(args, {
          cwd: WORKSPACE,
          env,
        });
        await t.assertSnapshot({
          code,
          stdout: stdout.replaceAll(WORKSPACE, "<workspace>"),
          stderr: stderr.replaceAll(WORKSPACE, "<workspace>"),
        });
      });
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
