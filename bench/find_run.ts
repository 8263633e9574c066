/**
 * `jpt find` at scale, against the cost of reading the files: a plain
 * script (a fresh Deno process) that parses every events.json with
 * JSON.parse, side by side with `jpt find <word>` (a fresh jpt process), in
 * alternation, median of 5: at 1,000 conversations of 10 turns, and at one
 * conversation of 50,000 turns. Goal: find ≤ 2× the plain script.
 *
 * Run with `deno run -A bench/find_run.ts` (writes its section of
 * bench/RESULTS.md; `--quick` prints only).
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import { writeResultsSection } from "./results_section.ts";
import { median, removeTree, runJpt } from "./run_jpt.ts";

/** One size's medians. */
export interface FindRow {
  /** What was searched. */
  shape: string;
  /** Bytes of events.json in all. */
  bytes: number;
  /** Median wall time of the plain parse script (ms). */
  parseMs: number;
  /** Median wall time of `jpt find` (ms). */
  findMs: number;
}

const PARSE_SCRIPT = `
const root = Deno.args[0];
let turns = 0;
for (const dir of Deno.readDirSync(root)) {
  const entries = JSON.parse(Deno.readTextFileSync(root + "/" + dir.name + "/events.json"));
  turns += entries.filter((e) => e.type === "turn_start").length;
}
console.log(turns);
`;

async function workspaceOf(
  conversations: number,
  turns: number,
): Promise<{ root: string; bytes: number }> {
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-find-" });
  const dir = join(root, ".jp", "conversations");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchfind\n");
  let bytes = 0;
  for (let c = 0; c < conversations; c++) {
    const conversation = join(dir, `${17800000000 + c}`);
    await Deno.mkdir(conversation);
    const events = generateConversation(turns, 300, c + 1, turns);
    bytes += events.length;
    await Deno.writeFile(join(conversation, "events.json"), events);
    await Deno.writeTextFile(
      join(conversation, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
  }
  return { root, bytes };
}

/**
 * Measures one shape.
 *
 * @param conversations How many conversations.
 * @param turns Turns each.
 * @param runs Runs of each side.
 * @returns The medians.
 */
export async function findRun(
  conversations: number,
  turns: number,
  runs: number,
): Promise<FindRow> {
  const { root, bytes } = await workspaceOf(conversations, turns);
  const script = join(root, "parse.ts");
  await Deno.writeTextFile(script, PARSE_SCRIPT);
  const env = { JPT_DATA_DIR: join(root, ".jpt-data") };
  const parse: number[] = [];
  const find: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          script,
          join(root, ".jp", "conversations"),
        ],
        stdout: "null",
      }).output();
      if (!output.success) throw new Error("the parse script failed");
      parse.push(performance.now() - started);
      // "budget" occurs in the generated prose: many turns match.
      find.push(
        (await runJpt(["find", "--json", "budget"], { cwd: root, env })).wall,
      );
    }
  } finally {
    await removeTree(root);
  }
  return {
    shape: `${conversations} × ${turns} turns`,
    bytes,
    parseMs: median(parse),
    findMs: median(find),
  };
}

/**
 * The section's table.
 *
 * @param rows The rows.
 * @returns Markdown.
 */
export function findTable(rows: readonly FindRow[]): string {
  return [
    "`jpt find budget --json` (a word of the generated prose: most turns match) against a plain Deno script that parses every events.json with JSON.parse, each a fresh process, alternated, median of 5. Goal: find ≤ 2× parse.",
    "",
    "| workspace | events.json MB | parse (ms) | find (ms) | find / parse |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows.map((row) =>
      `| ${row.shape} | ${(row.bytes / 1e6).toFixed(1)} | ${
        Math.round(row.parseMs)
      } | ${Math.round(row.findMs)} | ${
        (row.findMs / row.parseMs).toFixed(2)
      } |`
    ),
    "",
    "Where find's time goes (a CPU profile at 20,000 turns): loading the conversation, the text views of every turn (its request and reply parsed to search them), and the JSON of the matches (most turns match this word: 11 MB at 20,000 turns), each about a third; the parse script does only the first.",
  ].join("\n");
}

/** The section's heading in RESULTS.md. */
export const FIND_HEADING = "## Finding turns at scale: `jpt find`";

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const rows = [
    await findRun(quick ? 100 : 1000, 10, quick ? 2 : 5),
    await findRun(1, quick ? 5000 : 50000, quick ? 2 : 5),
  ];
  const table = findTable(rows);
  console.log(table);
  if (!quick) await writeResultsSection(FIND_HEADING, table);
}
