/**
 * Start-up of the form users run: `main.ts` as `deno task install`'s shim
 * runs it, beside a Deno hello world run with the same flags.
 * `deno run -A bench/startup_run.ts [rounds]` prints the table.
 *
 * @module
 */

import { join } from "node:path";
import { JPT_PERMISSIONS } from "../src/cli/jpt_permissions.ts";
import { MAIN, median } from "./run_jpt.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** A command's start-up beside hello world, each run as the install's shim runs jpt. */
export interface StartupRow {
  /** What ran. */
  name: string;
  /** Its median wall time (ms). */
  ms: number;
}

/**
 * Start-up of the shipped form (`main.ts` run with the clone's config and
 * jpt's permissions, as `deno task install`'s shim runs it) against a Deno
 * hello world run the same way, alternated run by run, medians.
 *
 * @param runs Rounds after the warm-up round.
 * @returns Hello world first, then each command.
 */
export async function startup(runs: number): Promise<StartupRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "jpt-bench-startup-" });
  try {
    const hello = join(dir, "hello.ts");
    await Deno.writeTextFile(hello, 'console.log("hello");\n');
    const workspace = join(ROOT, "testdata", "workspace");
    const config = join(ROOT, "deno.json");
    const shim = (entry: string, args: string[]) => [
      "run",
      "--quiet",
      "--config",
      config,
      ...JPT_PERMISSIONS,
      entry,
      ...args,
    ];
    const commands: Array<[string, string[]]> = [
      ["hello world (deno run, the shim's flags)", shim(hello, [])],
      ["jpt --version", shim(MAIN, ["--version"])],
      ["jpt turns (3 turns)", shim(MAIN, ["turns"])],
      ["jpt check (1 conversation)", shim(MAIN, ["check", "."])],
    ];
    const samples = commands.map(() => [] as number[]);
    for (let round = 0; round <= runs; round++) {
      for (const [i, [, args]] of commands.entries()) {
        const started = performance.now();
        const output = await new Deno.Command(Deno.execPath(), {
          args,
          cwd: workspace,
          env: { NO_COLOR: "1" },
          stdout: "null",
          stderr: "null",
        }).output();
        if (output.code > 1) throw new Error(`${args.join(" ")} failed`);
        // The first round warms the caches.
        if (round > 0) samples[i]!.push(performance.now() - started);
      }
    }
    return commands.map(([name], i) => ({ name, ms: median(samples[i]!) }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const rows = await startup(Number(Deno.args[0] ?? "21"));
  const hello = rows[0]!.ms;
  console.log("| command | ms | / hello world |\n| --- | ---: | ---: |");
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.ms.toFixed(1)} | ${(row.ms / hello).toFixed(2)} |`,
    );
  }
}
