/**
 * `jpt check` over 1,000 real-shaped conversations (3 short turns each, no
 * `base_config.json`: the config as the stream's first entry, as older jp
 * conversations keep it) against a script that parses
 * every `events.json` and `metadata.json`, each in a fresh process,
 * alternated run by run; with `--before DIR`, another checkout's `main.ts`
 * beside this one. Medians of 11 rounds (3 with `--quick`).
 *
 * `deno run -A bench/check_small_run.ts [--before DIR] [--quick]` prints the rows.
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import { MAIN, median, removeTree } from "./run_jpt.ts";

const quick = Deno.args.includes("--quick");
const before = Deno.args.includes("--before")
  ? join(Deno.args[Deno.args.indexOf("--before") + 1]!, "main.ts")
  : undefined;
const ROUNDS = quick ? 3 : 11;
const CONVERSATIONS = 1000;

async function timed(args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", ...args],
    cwd,
    env: { NO_COLOR: "1", JPT_DATA_DIR: join(cwd, "data") },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(new TextDecoder().decode(output.stderr));
  }
  return performance.now() - started;
}

const root = await Deno.makeTempDir({ prefix: "jpt-bench-check-" });
try {
  const conversations = join(root, ".jp", "conversations");
  await Deno.mkdir(conversations, { recursive: true });
  await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchck\n");
  for (let c = 0; c < CONVERSATIONS; c++) {
    const dir = join(conversations, String(17800000000 + c));
    await Deno.mkdir(dir);
    // jp's older layout, as many real conversations have it: the config as
    // the stream's first entry, no base_config.json.
    const entries = JSON.parse(
      new TextDecoder().decode(generateConversation(3, 200, c + 1, 3)),
    );
    entries.unshift({
      type: "config_delta",
      timestamp: "2026-01-01 00:00:00.0",
      delta: {},
    });
    await Deno.writeTextFile(
      join(dir, "events.json"),
      JSON.stringify(entries, null, 2) + "\n",
    );
    await Deno.writeTextFile(
      join(dir, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
  }
  const script = join(root, "parse.ts");
  await Deno.writeTextFile(
    script,
    `const root = Deno.args[0]; let n = 0;
for (const d of Deno.readDirSync(root)) {
  n += JSON.parse(Deno.readTextFileSync(root + "/" + d.name + "/events.json")).length;
  JSON.parse(Deno.readTextFileSync(root + "/" + d.name + "/metadata.json"));
}
console.log(n);
`,
  );
  const contenders: Record<string, () => Promise<number>> = {
    parse: () => timed([script, conversations], root),
    after: () => timed([MAIN, "check"], root),
    ...(before === undefined
      ? {}
      : { before: () => timed([before, "check"], root) }),
  };
  const times: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(contenders)) {
      (times[name] ??= []).push(await run());
    }
  }
  const m = Object.fromEntries(
    Object.entries(times).map(([name, values]) => [name, median(values)]),
  );
  const spread = (name: string) => {
    const values = times[name]!.map((t) => t / m.parse!).sort((a, b) => a - b);
    return `${values[0]!.toFixed(2)}–${values.at(-1)!.toFixed(2)}`;
  };
  console.log(
    `| \`jpt check\`, ${CONVERSATIONS} conversations × 3 short turns, no stored config / parsing every file (${
      m.parse!.toFixed(0)
    } ms) | ${
      before === undefined
        ? "–"
        : `${(m.before! / m.parse!).toFixed(2)}× (${spread("before")})`
    } | ${(m.after! / m.parse!).toFixed(2)}× (${spread("after")}) | ≤ 2.5× |`,
  );
} finally {
  await removeTree(root);
}
