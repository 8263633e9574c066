/**
 * `jpt check` over 1,000 real-shaped conversations (3 short turns each, no
 * `base_config.json`: the config as the stream's first entry, as older jp
 * conversations keep it) against a script that parses
 * every `events.json` and `metadata.json`, each in a fresh process,
 * alternated run by run; with `--before DIR`, another checkout's `main.ts`
 * beside this one. Medians of 11 rounds (3 with `--quick`). Beside them,
 * the row's floor: jpt's start-up (`jpt check` of one conversation, less a
 * Deno hello world) plus a script doing only the file work a check must
 * (each directory listed for stray temporary files, each file looked at
 * and read, the events parsed and proven laid out as jp writes them, the
 * metadata parsed).
 *
 * `deno run -A bench/check_small_run.ts [--before DIR] [--quick]` prints the rows.
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import {
  beforeMain,
  floorContenders,
  floorText,
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
    await writeConversation(
      conversations,
      String(17800000000 + c),
      olderLayout(3, c + 1),
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
  const proof = join(root, "proof.ts");
  await Deno.writeTextFile(
    proof,
    `const root = Deno.args[0]; let n = 0;
for (const name of [...Deno.readDirSync(root)].map((d) => d.name).sort()) {
  const dir = root + "/" + name;
  for (const item of Deno.readDirSync(dir)) n += item.name.endsWith(".tmp") ? 1 : 0;
  Deno.statSync(dir + "/events.json");
  const text = new TextDecoder().decode(Deno.readFileSync(dir + "/events.json"));
  const values = JSON.parse(text);
  n += JSON.stringify(values, null, 2) + "\\n" === text ? values.length : 0;
  Deno.statSync(dir + "/metadata.json");
  JSON.parse(new TextDecoder().decode(Deno.readFileSync(dir + "/metadata.json")));
}
console.log(n);
`,
  );
  const one = join(root, "one");
  await writeConversation(
    join(one, ".jp", "conversations"),
    "17800000000",
    olderLayout(1, 1),
  );
  await Deno.writeTextFile(join(one, ".jp", ".id"), "x\nbenchc1\n");
  const contenders: Record<string, () => Promise<number>> = {
    parse: () => timedDeno([script, conversations], root),
    proof: () => timedDeno([proof, conversations], root),
    after: () => timedDeno([MAIN, "check"], root),
    ...await floorContenders(root, () => timedDeno([MAIN, "check"], one)),
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
    } | ≤ 2.5× (${
      floorText(m, "proof", "parse")
    }, the file work a check must do ${spread("proof")}) |`,
  );
} finally {
  await removeTree(root);
}

/**
 * A conversation in jp's older layout, as many real ones have it: the config
 * as the stream's first entry, no `base_config.json`.
 */
function olderLayout(turns: number, seed: number): Uint8Array {
  const entries = JSON.parse(
    new TextDecoder().decode(generateConversation(turns, 200, seed, turns)),
  );
  entries.unshift({
    type: "config_delta",
    timestamp: "2026-01-01 00:00:00.0",
    delta: {},
  });
  return new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n");
}
