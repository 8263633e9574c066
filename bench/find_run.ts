/**
 * `jpt find` at scale, against the cost of reading the files: a plain
 * script (a fresh Deno process) that parses every events.json with
 * JSON.parse, side by side with `jpt find --json <word>` (a fresh jpt
 * process), in alternation, median of 5 rounds (`--runs N`): at 1,000
 * conversations of 10 turns for a word in the first request of one
 * conversation in a hundred (a search) and for a word in nearly every turn
 * (every turn found: 5 MB of JSON), and at one conversation of 50,000 turns.
 *
 * Run with `deno run -A bench/find_run.ts` (writes its section of
 * bench/RESULTS.md; `--quick` prints only; `--runs N` for N rounds;
 * `--before DIR` prints the rows only, with another checkout's `jpt find`
 * run beside this one's in each round).
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import { writeResultsSection } from "./results_section.ts";
import {
  beforeMain,
  median,
  optionValue,
  removeTree,
  runJpt,
} from "./run_jpt.ts";
import { mapBounded } from "../src/platform/map_bounded.ts";
import {
  readRegularFile,
  readRegularFileSync,
} from "../src/workspace/read_bounded.ts";

/** One search's medians. */
export interface FindRow {
  /** What was searched. */
  shape: string;
  /** The word looked for. */
  word: string;
  /** Turns found. */
  found: number;
  /** Bytes of events.json in all. */
  bytes: number;
  /** Median wall time of the plain parse script (ms). */
  parseMs: number;
  /** Median wall time of `jpt find` (ms). */
  findMs: number;
  /** Median wall time of `--before`'s checkout's `jpt find` (ms), when run. */
  beforeMs?: number;
  /** The lowest and highest per-round find / parse. */
  spread: [number, number];
  /** The same for `--before`'s checkout, when run. */
  beforeSpread?: [number, number];
}

/** The lowest and highest of per-round ratios. */
function spreadOf(times: number[], bases: number[]): [number, number] {
  const ratios = times.map((time, i) => time / bases[i]!);
  return [Math.min(...ratios), Math.max(...ratios)];
}

/** The baseline: a script that parses every events.json of a workspace. */
export const PARSE_SCRIPT = `
const root = Deno.args[0];
let turns = 0;
for (const dir of Deno.readDirSync(root)) {
  const entries = JSON.parse(Deno.readTextFileSync(root + "/" + dir.name + "/events.json"));
  turns += entries.filter((e) => e.type === "turn_start").length;
}
console.log(turns);
`;

/** Reading every events.json of a workspace, in process, both ways (ms). */
export interface ReadWays {
  /** One blocking read after another. */
  blocking: number;
  /** 32 awaited reads in flight. */
  inFlight: number;
}

/**
 * Times reading every events.json with blocking reads and with 32 awaited
 * reads in flight, alternated, medians of 5 (the files are in the page
 * cache: both read the same bytes).
 *
 * @param root The conversations directory.
 * @returns The medians.
 */
export async function readWays(root: string): Promise<ReadWays> {
  const files = [...Deno.readDirSync(root)].map((dir) =>
    join(root, dir.name, "events.json")
  );
  const blocking: number[] = [];
  const inFlight: number[] = [];
  for (let i = 0; i < 5; i++) {
    let started = performance.now();
    for (const file of files) readRegularFileSync(file);
    blocking.push(performance.now() - started);
    started = performance.now();
    await mapBounded(files, 32, (file) => readRegularFile(file));
    inFlight.push(performance.now() - started);
  }
  return { blocking: median(blocking), inFlight: median(inFlight) };
}

/** The word put in the first request of one conversation in a hundred. */
const RARE_WORD = "kestrel";

/**
 * A workspace of generated conversations, one in a hundred with
 * {@linkcode RARE_WORD} in its first request.
 *
 * @param conversations How many conversations.
 * @param turns Turns each.
 * @returns Its root and the bytes of its events files.
 */
export async function workspaceOf(
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
    let events = generateConversation(turns, 300, c + 1, turns);
    if (c % 100 === 0) {
      events = new TextEncoder().encode(
        new TextDecoder().decode(events).replace(
          '"content": "',
          `"content": "${RARE_WORD} `,
        ),
      );
    }
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
 * Measures one shape: the parse script and a search for each word, in
 * alternation.
 *
 * @param conversations How many conversations.
 * @param turns Turns each.
 * @param words The words to look for.
 * @param runs Runs of each side.
 * @param before Another checkout's `main.ts`, run beside this one's.
 * @returns One row per word, and how long reading the files takes each way.
 */
export async function findRun(
  conversations: number,
  turns: number,
  words: readonly string[],
  runs: number,
  before?: string,
): Promise<{ rows: FindRow[]; reads: ReadWays }> {
  const { root, bytes } = await workspaceOf(conversations, turns);
  const script = join(root, "parse.ts");
  await Deno.writeTextFile(script, PARSE_SCRIPT);
  const env = { JPT_DATA_DIR: join(root, ".jpt-data") };
  const parse: number[] = [];
  const find = words.map(() => [] as number[]);
  const earlier = words.map(() => [] as number[]);
  const found = words.map(() => 0);
  let reads: ReadWays;
  try {
    reads = await readWays(join(root, ".jp", "conversations"));
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
      for (const [w, word] of words.entries()) {
        const run = await runJpt(["find", "--json", word], { cwd: root, env });
        find[w]!.push(run.wall);
        found[w] = (JSON.parse(run.stdout) as unknown[]).length;
        if (before !== undefined) {
          const old = await runJpt(["find", "--json", word], {
            cwd: root,
            env,
            entry: before,
          });
          earlier[w]!.push(old.wall);
        }
      }
    }
  } finally {
    await removeTree(root);
  }
  const rows = words.map((word, w) => ({
    shape: `${conversations} × ${turns} turns`,
    word,
    found: found[w]!,
    bytes,
    parseMs: median(parse),
    findMs: median(find[w]!),
    spread: spreadOf(find[w]!, parse),
    ...(before === undefined ? {} : {
      beforeMs: median(earlier[w]!),
      beforeSpread: spreadOf(earlier[w]!, parse),
    }),
  }));
  return { rows, reads };
}

/**
 * The section's table.
 *
 * @param rows The rows.
 * @param reads Reading the many-conversation workspace's files both ways.
 * @returns Markdown.
 */
export function findTable(
  rows: readonly FindRow[],
  reads: ReadWays,
  runs: number,
): string {
  return [
    `\`jpt find --json WORD\` against a plain Deno script that parses every events.json with JSON.parse, each a fresh process, alternated, median of ${runs} (the spread: the lowest and highest per-round find / parse): \`${RARE_WORD}\` is in the first request of one conversation in a hundred (a search), \`budget\` in nearly every turn of the generated prose (every turn found, 5 MB of JSON printed). Goals: ≤ 2× parse for a search and for one large conversation, ≤ 3× where every turn is found.`,
    "",
    "| workspace | word | turns found | events.json MB | parse (ms) | find (ms) | find / parse | spread |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((row) =>
      `| ${row.shape} | \`${row.word}\` | ${row.found} | ${
        (row.bytes / 1e6).toFixed(1)
      } | ${Math.round(row.parseMs)} | ${Math.round(row.findMs)} | ${
        (row.findMs / row.parseMs).toFixed(2)
      } | ${range(row.spread)} |`
    ),
    "",
    `How it gets there: a plain-text search first looks at each file's whole text (one native search) and passes over a conversation its text rules out, unparsed (a word JSON writes as it is can only be in a request, a response or a label if it is in the file; not for regular expressions, \`--tools\`, patterns with characters JSON escapes, files that escape others, or a conversation whose label record holds labels); a conversation without a label record is read for its summaries and chat with the native \`JSON.parse\` (of the whole file, or of each entry of a file from 512 KB, whose values then die young), walked turn by turn as the stream's turns and \`readEvent\` read it (\`turnChats\`: no entry or turn object per event; a file the native parse does not take as the stream would, \`--tools\` and a conversation with a label record go through the stream, which keeps only the payloads the search reads); each conversation is dropped after its turns were looked at; files are read with blocking reads: reading every events.json of the 1,000 takes about as long either way (${
      Math.round(reads.blocking)
    } ms one after another, ${
      Math.round(reads.inFlight)
    } ms with 32 awaited reads in flight, in process), but each awaited read costs the search a round trip to the I/O threads (\`find --json kestrel\` measured side by side, median of 9: 152 ms with blocking reads, 175 ms with reads in flight). Where a word is in every turn, printing 10,000 matches (5 MB of JSON, \`JSON.stringify\` with indentation) takes a quarter of the run; a snippet whose whitespace is single spaces is kept as it is (folding it made one string per word, for the JSON writer to flatten again: a tenth of such a run).`,
  ].join("\n");
}

/** A spread of ratios as `a–b`. */
function range([low, high]: [number, number]): string {
  return `${low.toFixed(2)}–${high.toFixed(2)}`;
}

/** The section's heading in RESULTS.md. */
export const FIND_HEADING = "## Finding turns at scale: `jpt find`";

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const runs = Number(optionValue("--runs") ?? (quick ? 2 : 5));
  const before = beforeMain();
  const many = await findRun(
    quick ? 100 : 1000,
    10,
    [RARE_WORD, "budget"],
    runs,
    before,
  );
  const long = await findRun(
    1,
    quick ? 5000 : 50000,
    ["budget"],
    runs,
    before,
  );
  if (before !== undefined) {
    // The rows side by side with the checkout before (not written).
    for (const row of [...many.rows, ...long.rows]) {
      console.log(
        `| ${row.shape} | \`${row.word}\` | ${row.found} | parse ${
          Math.round(row.parseMs)
        } ms | before ${Math.round(row.beforeMs!)} ms (${
          (row.beforeMs! / row.parseMs).toFixed(2)
        }×, ${range(row.beforeSpread!)}) | after ${
          Math.round(row.findMs)
        } ms (${(row.findMs / row.parseMs).toFixed(2)}×, ${
          range(row.spread)
        }) | ${runs} rounds |`,
      );
    }
  } else {
    const table = findTable([...many.rows, ...long.rows], many.reads, runs);
    console.log(table);
    if (!quick) await writeResultsSection(FIND_HEADING, table);
  }
}
