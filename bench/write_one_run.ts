/**
 * Writing one summary into a large conversation against a bare `JSON.parse`
 * of its file: each in a fresh process (`write_one.ts`), alternated run by
 * run, the file restored before each write and the disk synced before each
 * process (`sync`); the label store either already holds the file's labels
 * (the steady state after a first catch-up) or is empty (the first
 * catch-up: every label is recorded). Time of the operation and the
 * process's peak resident memory.
 *
 * `deno run -A bench/write_one_run.ts [--quick] [--runs N]` (not part of
 * `deno task bench`). Linux (peak memory from /proc).
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import { median, optionValue } from "./run_jpt.ts";

const SCRIPT = new URL("./write_one.ts", import.meta.url).pathname;

/** One conversation size's medians. */
export interface WriteOneRow {
  /** Turns in the conversation. */
  turns: number;
  /** Whether the label store held the file's labels before the write. */
  primed: boolean;
  /** Size of `events.json` (MB). */
  mb: number;
  /** `JSON.parse` of the file, read included (ms). */
  parseMs: number;
  /** The one-summary catch-up (ms). */
  writeMs: number;
  /** Peak resident memory of the `JSON.parse` process (MB). */
  parsePeakMb: number;
  /** Peak resident memory of the writing process (MB). */
  writePeakMb: number;
  /** Peak resident memory of the same process doing nothing (MB). */
  baselineMb: number;
}

async function once(
  mode: string,
  dir: string,
  store: string,
): Promise<{ ms: number; peakMb: number }> {
  // What the last step wrote (the restored 481 MB file, the last run's
  // save) reaches the disk first: its writeback would otherwise land in
  // whichever process runs next, the parse or the write, as a user's
  // conversation written long ago does not.
  await new Deno.Command("sync").output();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", SCRIPT, mode, dir, store],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`write_one.ts ${mode} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** The store's record files (its top level), by name. */
async function storeFiles(store: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  if (!(await Deno.stat(store).then(() => true, () => false))) return files;
  for await (const item of Deno.readDir(store)) {
    if (item.isFile) {
      files.set(item.name, await Deno.readFile(join(store, item.name)));
    }
  }
  return files;
}

/**
 * Measures each size.
 *
 * @param sizes Turn counts.
 * @param runs Runs of each operation per size.
 * @returns One row per size.
 */
export async function writeOneRun(
  sizes: number[],
  runs: number,
): Promise<WriteOneRow[]> {
  const rows: WriteOneRow[] = [];
  for (const turns of sizes) {
    for (const primed of [true, false]) {
      rows.push(await measureSize(turns, primed, runs));
    }
  }
  return rows;
}

/** One size, with the store primed or empty: medians of `runs`. */
async function measureSize(
  turns: number,
  primed: boolean,
  runs: number,
): Promise<WriteOneRow> {
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-write-" });
  try {
    const dir = join(root, "conversation");
    await Deno.mkdir(dir);
    const bytes = generateConversation(turns, 3000, turns, turns - 1);
    const original = join(root, "events.original.json");
    await Deno.writeFile(original, bytes);
    await Deno.writeTextFile(
      join(dir, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
    await Deno.copyFile(original, join(dir, "events.json"));
    const store = join(root, "store");
    if (primed) await once("prime", dir, store);
    const baseline = await once("baseline", dir, store);
    const kept = await storeFiles(store);
    const parse: Array<{ ms: number; peakMb: number }> = [];
    const write: Array<{ ms: number; peakMb: number }> = [];
    for (let run = 0; run < runs; run++) {
      await Deno.copyFile(original, join(dir, "events.json"));
      // The store as it was before the first write (a record the last run
      // wrote would restore its label instead of asking for it).
      await Deno.remove(store, { recursive: true }).catch(() => {});
      await Deno.mkdir(store, { recursive: true });
      for (const [name, content] of kept) {
        await Deno.writeFile(join(store, name), content);
      }
      write.push(await once("write", dir, store));
      parse.push(await once("parse", dir, store));
    }
    return {
      turns,
      primed,
      mb: bytes.length / 1e6,
      parseMs: median(parse.map((r) => r.ms)),
      writeMs: median(write.map((r) => r.ms)),
      parsePeakMb: median(parse.map((r) => r.peakMb)),
      writePeakMb: median(write.map((r) => r.peakMb)),
      baselineMb: baseline.peakMb,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * The table as Markdown lines.
 *
 * @param rows The rows.
 * @returns The lines.
 */
export function writeOneTable(rows: WriteOneRow[]): string[] {
  return [
    "| turns | label store | MB | `JSON.parse` (ms) | write one summary (ms) | write / parse | peak RSS, parse (MB) | peak RSS, write (MB) | write RSS / file size | start-up RSS (MB) | (write − start-up) / file size |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((row) =>
      `| ${row.turns} | ${row.primed ? "holds the labels" : "empty"} | ${
        row.mb.toFixed(0)
      } | ${row.parseMs.toFixed(0)} | ${row.writeMs.toFixed(0)} | ${
        (row.writeMs / row.parseMs).toFixed(2)
      } | ${row.parsePeakMb.toFixed(0)} | ${row.writePeakMb.toFixed(0)} | ${
        (row.writePeakMb / row.mb).toFixed(2)
      } | ${row.baselineMb.toFixed(0)} | ${
        ((row.writePeakMb - row.baselineMb) / row.mb).toFixed(2)
      } |`
    ),
  ];
}

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const rows = await writeOneRun(
    quick ? [1000] : [10000, 50000],
    Number(optionValue("--runs") ?? (quick ? 1 : 3)),
  );
  console.log(writeOneTable(rows).join("\n"));
}
