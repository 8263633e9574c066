/**
 * The floor of `jpt find --json budget` over 1,000 conversations of 10
 * turns (nearly every turn found): jpt's start-up (the same search of a
 * one-turn workspace, less a Deno hello world) plus a bare script doing
 * the search's own work with the platform alone (read and `JSON.parse`
 * every file, match the word in each request and message, print each
 * matching turn's record as indented JSON), against the parse script
 * `find_run.ts` measures the row with. Each in a fresh process, alternated,
 * medians of 11 rounds (3 with `--quick`).
 *
 * `deno run -A bench/find_floor_run.ts [--quick]` prints the row.
 *
 * @module
 */

import { join } from "node:path";
import { PARSE_SCRIPT, workspaceOf } from "./find_run.ts";
import { generateConversation } from "./generate.ts";
import {
  floorContenders,
  floorText,
  MAIN,
  removeTree,
  sideBySide,
  timedDeno,
} from "./run_jpt.ts";
import { writeConversation } from "../tests/support/workspace.ts";

const quick = Deno.args.includes("--quick");
const ROUNDS = quick ? 3 : 11;
const WORD = "budget";

/** The search's own work, with nothing but the platform. */
const SEARCH_SCRIPT = `const [root, word] = Deno.args;
const re = new RegExp(word, "iu");
const found = [];
for (const dir of Deno.readDirSync(root)) {
  let turn;
  for (const e of JSON.parse(Deno.readTextFileSync(root + "/" + dir.name + "/events.json"))) {
    if (e.type === "turn_start" || turn === undefined) {
      turn = { conversation: dir.name, event_id: e.event_id ?? null, summary: e.summary ?? null, matches: [] };
      found.push(turn);
    }
    const where = e.type === "chat_request" ? "request" : e.type === "chat_response" ? "response" : undefined;
    const text = where === "request" ? e.content : e.message;
    if (where === undefined || typeof text !== "string") continue;
    const at = re.exec(text);
    if (at === null || turn.matches.some((m) => m.where === where)) continue;
    turn.matches.push({ where, snippet: text.slice(Math.max(0, at.index - 40), at.index + at[0].length + 40) });
  }
}
const out = JSON.stringify(found.filter((t) => t.matches.length > 0), null, 2) + "\\n";
Deno.stdout.writeSync(new TextEncoder().encode(out));
`;

const { root } = await workspaceOf(1000, 10);
try {
  const conversations = join(root, ".jp", "conversations");
  const parse = join(root, "parse.ts");
  const search = join(root, "search.ts");
  await Deno.writeTextFile(parse, PARSE_SCRIPT);
  await Deno.writeTextFile(search, SEARCH_SCRIPT);
  const one = join(root, "one");
  await writeConversation(
    join(one, ".jp", "conversations"),
    "17800000000",
    generateConversation(1, 300, 1, 1),
  );
  await Deno.writeTextFile(join(one, ".jp", ".id"), "x\nbenchf1\n");
  const measured = await sideBySide({
    parse: () => timedDeno([parse, conversations], root),
    search: () => timedDeno([search, conversations, WORD], root),
    after: () => timedDeno([MAIN, "find", "--json", WORD], root),
    ...await floorContenders(
      root,
      () => timedDeno([MAIN, "find", "--json", WORD], one),
    ),
  }, ROUNDS);
  const m = measured.median;
  const ratio = (name: string) => measured.ratio(name, "parse");
  console.log(
    `| \`jpt find --json ${WORD}\`, 1000 × 10 turns / parsing every file (${
      m.parse!.toFixed(0)
    } ms) | ${ratio("after")} | ≤ 3× (${
      floorText(m, "search", "parse")
    }, the search's own work ${ratio("search")}) |`,
  );
} finally {
  await removeTree(root);
}
