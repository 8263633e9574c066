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
import {
  beforeMain,
  MAIN,
  removeTree,
  sideBySide,
  timedDeno,
} from "./run_jpt.ts";
import { writeConversation } from "../tests/support/workspace.ts";

const quick = Deno.args.includes("--quick");
const before = beforeMain();
const ROUNDS = quick ? 3 : 11;
const CONVERSATIONS = 1000;

const root = await Deno.makeTempDir({ prefix: "jpt-bench-check-" });
try {
  const conversations = join(root, ".jp", "conversations");
  await Deno.mkdir(conversations, { recursive: true });
  await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchck\n");
  for (let c = 0; c < CONVERSATIONS; c++) {
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
    await writeConversation(
      conversations,
      String(17800000000 + c),
      new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
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
    parse: () => timedDeno([script, conversations], root),
    after: () => timedDeno([MAIN, "check"], root),
    ...(before === undefined
      ? {}
      : { before: () => timedDeno([before, "check"], root) }),
  };
  const measured = await sideBySide(contenders, ROUNDS);
  const m = measured.median;
  const spread = (name: string) => measured.ratio(name, "parse");
  console.log(
    `| \`jpt check\`, ${CONVERSATIONS} conversations × 3 short turns, no stored config / parsing every file (${
      m.parse!.toFixed(0)
    } ms) | ${before === undefined ? "–" : `${spread("before")}`} | ${
      spread("after")
    } | ≤ 2.5× |`,
  );
} finally {
  await removeTree(root);
}
