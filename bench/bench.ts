/**
 * jpt's benchmarks: `deno task bench` prints a table and writes
 * `bench/RESULTS.md`. Every figure that matters is a ratio or a difference
 * measured side by side in this one run, as a median over repeated runs;
 * absolute times are shown for context only. See bench/README.md.
 *
 * @module
 */

import { join } from "node:path";
import { ConversationStream } from "../src/conversation/stream.ts";
import { newestCandidates } from "../src/summary/candidates.ts";
import { prepareTurns } from "../src/summary/prepared_turn.ts";
import { packNewest } from "../src/summary/packing.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../src/summary/summary_model.ts";
import { writeFileAtomic } from "../src/workspace/atomic_write.ts";
import { FakeLlm } from "../tests/support/fake_llm.ts";
import { generateConversation } from "./generate.ts";
import { median, removeTree, runJpt } from "./run_jpt.ts";
import { isSummaryRequest, quickTurn, slowTurn } from "./turn_server.ts";
import {
  DETACH_DELAYS,
  type DetachRow,
  detachRun,
  detachTable,
} from "./detach_run.ts";
import {
  REQUESTS_HEADING,
  requestsPerLabel,
  type RequestsRow,
  requestsTable,
} from "./requests_per_label.ts";
import { writeResultsSection } from "./results_section.ts";
import { startup, type StartupRow } from "./startup_run.ts";
import { type WatchRow, watchRun } from "./watch_run.ts";
import {
  type BackfillRow,
  backfillRun,
  backfillTable,
} from "./backfill_run.ts";
import {
  type WorkspaceSizeRow,
  workspaceSizeRun,
  workspaceSizeTable,
} from "./workspace_size.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const LOAD_ONCE = join(ROOT, "bench", "load_once.ts");
const decoder = new TextDecoder();

/** Collects garbage before a timed run (with `--v8-flags=--expose-gc`), so one run's garbage does not land in the next. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

/**
 * Medians of each function timed in turn, run by run, so drift on the machine
 * hits all alike. No forced collection in between: a full collection drops
 * the hidden classes of parsed objects and with them the optimized code that
 * reads them, which no real program sees (see README.md).
 */
async function timeAlternately<const F extends ReadonlyArray<() => unknown>>(
  runs: number,
  fns: F,
): Promise<{ [K in keyof F]: number }> {
  for (let i = 0; i < 3; i++) for (const fn of fns) await fn();
  const samples: number[][] = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      samples[k]!.push(performance.now() - start);
    }
  }
  return samples.map(median) as { [K in keyof F]: number };
}

/** Medians of one cold `JSON.parse` and one cold load of `file`, each in a fresh process, alternately. */
async function coldLoads(
  file: string,
  runs: number,
): Promise<[number, number]> {
  const once = async (what: "json" | "load") => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-read", LOAD_ONCE, file, what],
      stdout: "piped",
    }).output();
    if (!output.success) throw new Error(`load_once.ts ${what} failed`);
    return Number(decoder.decode(output.stdout));
  };
  const json: number[] = [];
  const load: number[] = [];
  for (let i = 0; i < runs; i++) {
    json.push(await once("json"));
    load.push(await once("load"));
  }
  return [median(json), median(load)];
}

/** Flushes a file's data to disk. */
async function syncFile(path: string): Promise<void> {
  using file = await Deno.open(path, { write: true });
  await file.sync();
}

/** Median milliseconds of `fn` over `runs` runs after one warm-up run, garbage collected before each, with an untimed `setup` before each run whose result `fn` gets. */
async function timeWith<T>(
  runs: number,
  setup: () => T | Promise<T>,
  fn: (value: T) => unknown,
): Promise<number> {
  await fn(await setup());
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const value = await setup();
    collect();
    const start = performance.now();
    await fn(value);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const fmt = (ms: number) => ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
const ratio = (a: number, b: number) => (a / b).toFixed(2);

// ---------------------------------------------------------------- scale
interface ScaleRow {
  turns: number;
  mb: number;
  jsonParse: number;
  load: number;
  coldJsonParse: number;
  coldLoad: number;
  loadBefore: number;
  scan: number;
  writeOne: number;
  writeSynced: number;
  copy: number;
  writeMemory: number;
  copyMemory: number;
  turnsCli: number;
  checkCli: number;
}

async function scale(sizes: number[]): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  const dir = await Deno.makeTempDir({ prefix: "jpt-bench-", dir: ROOT });
  const memory = await Deno.makeTempDir({
    prefix: "jpt-bench-",
    dir: "/dev/shm",
  }).catch(() => undefined);
  try {
    for (const turns of sizes) {
      const runs = turns >= 10000 ? 3 : turns >= 1000 ? 7 : 15;
      const bytes = generateConversation(turns);
      const conversation = join(dir, `${turns}`);
      await Deno.mkdir(conversation, { recursive: true });
      const events = join(conversation, "events.json");
      await Deno.writeFile(events, bytes);
      await Deno.writeTextFile(
        join(conversation, "metadata.json"),
        '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
      );
      await Deno.writeTextFile(join(conversation, "base_config.json"), "{}\n");
      // Before profiling, every load went through the full tokenizer; it is
      // still the fallback for files not laid out as jp writes them.
      const [jsonParse, load, loadBefore] = await timeAlternately(
        turns >= 10000 ? 7 : turns >= 1000 ? 31 : 61,
        [
          () => JSON.parse(decoder.decode(bytes)),
          () => ConversationStream.parse(bytes),
          () => ConversationStream.parse(bytes, { fastPath: false }),
        ],
      );
      const [coldJsonParse, coldLoad] = await coldLoads(
        events,
        turns >= 10000 ? 5 : 9,
      );
      // Each run gets a freshly loaded stream, so nothing is cached from the previous run.
      const fresh = () => ConversationStream.parse(bytes);
      // What the summary task does: candidates newest first, packed into one
      // batch of 5 with transcripts, token estimates and fingerprints.
      const scan = await timeWith(
        runs,
        fresh,
        (stream) =>
          packNewest(newestCandidates(stream), {
            contextWindow: 8192,
            batchSize: 5,
          }),
      );
      const lastId = fresh().turns().at(-1)!.id!;
      let n = 0;
      // Writing one summary into the file as it was (restored untimed before
      // each run and flushed, like a conversation saved a while ago), on disk
      // and in memory (tmpfs); on disk also with an fsync of the new file added,
      // as jpt wrote before it followed jp's writer.
      const writeIn = (folder: string, synced: boolean) => {
        const target = join(folder, `${turns}-write.json`);
        const original = async () => {
          await Deno.writeFile(target, bytes);
          await syncFile(target);
          return fresh();
        };
        return timeWith(runs, original, async (stream) => {
          stream.setTurnSummary(lastId, `Summary number ${n++}`);
          await writeFileAtomic(target, stream.serializeParts());
          if (synced) await syncFile(target);
        });
      };
      // Copying the file over the same kind of target: an existing, flushed
      // file of the same size, so both replace a file's contents.
      const copyIn = (folder: string) => {
        const target = join(folder, `${turns}-copy.json`);
        return timeWith(
          runs,
          async () => {
            await Deno.writeFile(target, bytes);
            await syncFile(target);
          },
          () => Deno.copyFile(events, target),
        );
      };
      const writeOne = await writeIn(dir, false);
      const writeSynced = await writeIn(dir, true);
      const copy = await copyIn(dir);
      const writeMemory = memory === undefined
        ? NaN
        : await writeIn(memory, false);
      const copyMemory = memory === undefined ? NaN : await copyIn(memory);
      const cliRuns = turns >= 10000 ? 2 : 3;
      const cliMedian = async (command: string) => {
        const samples: number[] = [];
        for (let i = 0; i < cliRuns; i++) {
          samples.push((await runJpt([command, conversation])).wall);
        }
        return median(samples);
      };
      const turnsCli = await cliMedian("turns");
      const checkCli = await cliMedian("check");
      rows.push({
        turns,
        mb: bytes.length / 1e6,
        jsonParse,
        load,
        coldJsonParse,
        coldLoad,
        loadBefore,
        scan,
        writeOne,
        writeSynced,
        copy,
        writeMemory,
        copyMemory,
        turnsCli,
        checkCli,
      });
      console.error(`scale: ${turns} turns done`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
    if (memory !== undefined) await Deno.remove(memory, { recursive: true });
  }
  return rows;
}

// ---------------------------------------------------------------- overlap
interface OverlapRow {
  summaryMs: number;
  wallOn: number;
  wallOff: number;
  deadOn: number;
  deadOff: number;
  deadBaseline: number;
}

const TURN_PIECES = 20;
const TURN_PIECE_MS = 100; // T = 2 s streamed

async function overlap(
  summaryDelays: number[],
  runs: number,
): Promise<OverlapRow[]> {
  const rows: OverlapRow[] = [];
  for (const delay of summaryDelays) {
    const turnResponder = slowTurn(TURN_PIECES, TURN_PIECE_MS, delay);
    await using server = FakeLlm.start(turnResponder);
    const samples = {
      wallOn: [] as number[],
      wallOff: [] as number[],
      deadOn: [] as number[],
      deadOff: [] as number[],
      deadBaseline: [] as number[],
    };
    for (let i = 0; i < runs; i++) {
      for (const auto of [true, false]) {
        const ws = await Deno.makeTempDir({ prefix: "jpt-bench-overlap-" });
        await Deno.mkdir(join(ws, ".jp", "conversations"), { recursive: true });
        await Deno.writeTextFile(
          join(ws, ".jp", "config.toml"),
          `[assistant.model]\nid = "ollama/tiny"\ncontext_window = 8192\n[providers.llm.ollama]\nbase_url = "${server.url}"\n` +
            `[conversation.turn_summary.generate]\nauto = ${auto}\n`,
        );
        const env = {
          JP_USER_DATA_DIR: join(ws, "user"),
          JP_GLOBAL_CONFIG_DIR: join(ws, "global"),
        };
        server.respond(quickTurn);
        await runJpt(["query", "--no-title", "first question"], {
          cwd: ws,
          env,
        });
        server.respond(turnResponder);
        const before = server.requests.length;
        const run = await runJpt(["query", "second question"], {
          cwd: ws,
          env,
        });
        const chat = server.requests.slice(before).find((request) =>
          request.body?.stream === true
        )!;
        const dead = run.exitedAt - chat.answeredAt!;
        (auto ? samples.wallOn : samples.wallOff).push(run.wall);
        (auto ? samples.deadOn : samples.deadOff).push(dead);
        if (!auto) {
          // The rejected alternative: the summary requested after the reply, before exit.
          const config = {
            assistant: { model: { id: "ollama/tiny", context_window: 8192 } },
            providers: { llm: { ollama: { base_url: server.url } } },
          };
          const resolved = await resolveSummaryModel(config, () => undefined, {
            offline: true,
          });
          const stream = ConversationStream.parse(
            await Deno.readFile(
              join(
                ws,
                ".jp",
                "conversations",
                (await Array.fromAsync(
                  Deno.readDir(join(ws, ".jp", "conversations")),
                ))[0]!.name,
                "events.json",
              ),
            ),
          );
          const prepared = await prepareTurns([{ turn: stream.turns()[0]! }]);
          // The client exists already in a post-turn design: the turn used one.
          const summarizer = await createSummarizer(resolved, () => undefined);
          const start = performance.now();
          await summarizer.summarize(prepared, new AbortController().signal);
          samples.deadBaseline.push(dead + (performance.now() - start));
        } else if (!server.requests.slice(before).some(isSummaryRequest)) {
          throw new Error("no summary request was made with auto = true");
        }
        await removeTree(ws);
      }
    }
    rows.push({
      summaryMs: delay,
      wallOn: median(samples.wallOn),
      wallOff: median(samples.wallOff),
      deadOn: median(samples.deadOn),
      deadOff: median(samples.deadOff),
      deadBaseline: median(samples.deadBaseline),
    });
    console.error(`overlap: S = ${delay} ms done`);
  }
  return rows;
}

// ---------------------------------------------------------------- start-up
// ---------------------------------------------------------------- report
const DETACH_HEADING = "## Exit right after the reply: the detached worker";
const DETACH_TEXT =
  "`jpt query` streams a 1 s reply while the catch-up label of the turn before takes S. " +
  "Dead time (reply's last byte to exit, median) with `detach = true` (work handed to a detached worker), " +
  "`detach = false` (the query waits for it, up to its budget) and `auto = false` (no summaries: the floor); " +
  "kept counts runs whose label was on the turn in `events.json` within S + 3 s of the query's start. " +
  "Alone: `deno run -A bench/detach_run.ts`.";

function report(
  scaleRows: ScaleRow[],
  overlapRows: OverlapRow[],
  startupRows: StartupRow[],
  watchRow: WatchRow | undefined,
  detachRows: DetachRow[],
  sizeRows: WorkspaceSizeRow[],
  backfillRows: BackfillRow[],
  seconds: number,
): string {
  const lines: string[] = [];
  const cpu = (() => {
    try {
      return Deno.readTextFileSync("/proc/cpuinfo").match(
        /model name\s*:\s*(.*)/,
      )?.[1] ?? "unknown CPU";
    } catch {
      return "unknown CPU";
    }
  })();
  lines.push("# jpt benchmark results", "");
  lines.push(
    `Machine: ${cpu}, ${navigator.hardwareConcurrency} cores, ${Deno.build.os}/${Deno.build.arch}. Deno ${Deno.version.deno} (V8 ${Deno.version.v8}).`,
  );
  lines.push(
    `Run on ${
      new Date().toISOString().slice(0, 10)
    } with \`deno task bench\` in ${
      seconds.toFixed(0)
    } s. Figures are medians; ratios are measured side by side in this run.`,
    "",
  );
  lines.push("## Overlap: is the summary hidden behind the turn?", "");
  lines.push(
    `The turn streams for T = ${
      (TURN_PIECES * TURN_PIECE_MS / 1000).toFixed(1)
    } s from a loopback server; the summary request takes S. Dead time = process exit minus the end of the reply.`,
    "",
  );
  lines.push(
    "| S (ms) | wall, summaries on (ms) | wall, auto = false (ms) | wall difference | dead time on (ms) | dead time off (ms) | on − off (ms) | dead time, synchronous post-turn baseline (ms) |",
  );
  lines.push("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of overlapRows) {
    const diff = ((row.wallOn - row.wallOff) / row.wallOff * 100).toFixed(1);
    lines.push(
      `| ${row.summaryMs} | ${fmt(row.wallOn)} | ${
        fmt(row.wallOff)
      } | ${diff} % | ${fmt(row.deadOn)} | ${fmt(row.deadOff)} | ${
        fmt(row.deadOn - row.deadOff)
      } | ${fmt(row.deadBaseline)} |`,
    );
  }
  lines.push(
    "",
    "## Scale: large conversations against the cost of reading the file",
    "",
  );
  lines.push(
    "Loading (decode the file, cut it into entries, check every entry with `JSON.parse`, read the keys turn structure needs) against a bare `JSON.parse` of the same bytes, in a warm process (alternated run by run) and cold (one load in a fresh process, as `jpt` does it):",
    "",
  );
  lines.push(
    "| turns | MB | JSON.parse, warm (ms) | load, warm (ms) | load / JSON.parse, warm | JSON.parse, cold (ms) | load, cold (ms) | load / JSON.parse, cold |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const row of scaleRows) {
    lines.push(
      `| ${row.turns} | ${row.mb.toFixed(1)} | ${fmt(row.jsonParse)} | ${
        fmt(row.load)
      } | ${ratio(row.load, row.jsonParse)} | ${fmt(row.coldJsonParse)} | ${
        fmt(row.coldLoad)
      } | ${ratio(row.coldLoad, row.coldJsonParse)} |`,
    );
  }
  lines.push(
    "",
    "What the summary task does for one batch (newest candidates, transcripts, token estimates, fingerprints) against the warm load, and the commands per MB:",
    "",
    "| turns | scan + transcripts + fingerprints, one batch (ms) | scan / load | `jpt turns` (ms/MB) | `jpt check` (ms/MB) |",
    "| ---: | ---: | ---: | ---: | ---: |",
  );
  for (const row of scaleRows) {
    lines.push(
      `| ${row.turns} | ${fmt(row.scan)} | ${
        (row.scan / row.load * 100).toFixed(1)
      } % | ${fmt(row.turnsCli / row.mb)} | ${fmt(row.checkCli / row.mb)} |`,
    );
  }
  lines.push(
    "",
    "`jpt turns` and `jpt check` include process start-up; their per-MB cost is meaningful on the large files. `check` re-parses every entry into an order-keeping tree and re-serializes it to compare with jp's writer byte for byte.",
    "",
  );
  lines.push(
    "Writing one summary (set it, serialize, atomic write: temporary file renamed over the target, as jp writes) against copying the file over an existing copy (`cp`); both targets start flushed to disk. On disk also with an fsync of the new file added, as jpt wrote before:",
    "",
  );
  lines.push(
    "| turns | write, disk (ms) | copy, disk (ms) | write / copy | write + fsync, disk (ms) | (write + fsync) / copy | write, tmpfs (ms) | copy, tmpfs (ms) | write / copy, tmpfs |",
  );
  lines.push(
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const row of scaleRows) {
    lines.push(
      `| ${row.turns} | ${fmt(row.writeOne)} | ${fmt(row.copy)} | ${
        ratio(row.writeOne, row.copy)
      } | ${fmt(row.writeSynced)} | ${ratio(row.writeSynced, row.copy)} | ${
        fmt(row.writeMemory)
      } | ${fmt(row.copyMemory)} | ${ratio(row.writeMemory, row.copyMemory)} |`,
    );
  }
  lines.push("", "## Profiled and made faster: loading", "");
  lines.push(
    "A CPU profile of loading put nearly all of it in the byte-by-byte tokenizer. Loading now cuts jp's canonical layout apart with native string searches and checks each entry with `JSON.parse` (proved right entry by entry, with the tokenizer as the fallback for hand-edited files); candidates are found newest first and only the packed turns are transcribed; a summary write splices the changed entry into the original bytes. A second profile, of that fast path, found the rest in per-entry work after `JSON.parse`: every entry kept its parsed object graph alive, and type tags were interned through a map lookup that hashed each freshly parsed string. Entries now keep only their text and the keys turn structure needs (a payload is parsed again when something reads it) and tags are interned by comparison.",
    "",
  );
  lines.push(
    "| turns | load before: full tokenizer (ms) | load after (ms) | before / after |",
    "| ---: | ---: | ---: | ---: |",
  );
  for (const row of scaleRows) {
    lines.push(
      `| ${row.turns} | ${fmt(row.loadBefore)} | ${fmt(row.load)} | ${
        ratio(row.loadBefore, row.load)
      } |`,
    );
  }
  lines.push("", "## Start-up of the shipped form", "");
  lines.push(
    "`main.ts` run as `deno task install`'s shim runs it (the clone's config and lock, jpt's permissions), beside a Deno hello world run with the same flags, alternated, medians.",
    "",
    "| command | ms | / hello world |",
    "| --- | ---: | ---: |",
  );
  const hello = startupRows[0]!.ms;
  for (const row of startupRows) {
    lines.push(`| ${row.name} | ${fmt(row.ms)} | ${ratio(row.ms, hello)} |`);
  }
  if (watchRow !== undefined) {
    lines.push("", "## `jpt watch` over a long run", "");
    lines.push(
      `A jp emulator adds ${watchRow.changes} turns, one per change (jp's lock, a pre-RFD re-save), to one conversation while one watcher labels them (${
        watchRow.seconds.toFixed(1)
      } s). Resident memory of the watcher after its start and after each quarter of the changes, and the CPU time it used while idle afterwards:`,
      "",
      `| after start (MB) | ${
        watchRow.rssMb.slice(1).map((_, i) => `after ${(i + 1) * 25} % (MB)`)
          .join(" | ")
      } | idle CPU over ${watchRow.idleSeconds} s (ms) |`,
      `| ---: | ${
        watchRow.rssMb.slice(1).map(() => "---:").join(" | ")
      } | ---: |`,
      `| ${
        watchRow.rssMb.map((mb) => mb.toFixed(1)).join(" | ")
      } | ${watchRow.idleCpuMs} |`,
    );
  }
  lines.push(
    "",
    DETACH_HEADING,
    "",
    DETACH_TEXT,
    "",
    ...detachTable(detachRows),
  );
  lines.push(
    "",
    "## Workspace size",
    "",
    "`jpt config show` and `jpt turns <id>` of one conversation in workspaces of 1, 100 and 1,000 conversations (3 turns each); config loading walks only the directories its `extends` patterns name. Alone, beside another checkout: `deno run -A bench/workspace_size.ts --before DIR`.",
    "",
    ...workspaceSizeTable(sizeRows),
  );
  lines.push(
    "",
    BACKFILL_HEADING,
    "",
    BACKFILL_TEXT,
    "",
    ...backfillTable(backfillRows),
  );
  lines.push(
    "",
    "## Reproduce",
    "",
    "```sh",
    "deno task bench            # or: npx -y deno@2.9.6 task bench",
    "```",
    "",
  );
  return lines.join("\n");
}

const BACKFILL_HEADING = "## Backfill at scale: `summarize --all --jobs N`";
const BACKFILL_TEXT =
  "200 conversations × 3 turns (texts of their own, so the label store restores nothing), one request per conversation (batch size 5), against a loopback model that answers each summary request after 300 ms. Ideal = requests × 0.3 s / jobs; most in flight is read from the server's log. Alone: `deno run -A bench/backfill_run.ts`.";
if (import.meta.main) {
  const started = performance.now();
  const quick = Deno.args.includes("--quick");
  const overlapRows = await overlap(
    quick ? [500] : [500, 1500, 3000],
    quick ? 1 : 3,
  );
  const scaleRows = await scale(quick ? [100, 1000] : [100, 1000, 10000]);
  const startupRows = await startup(quick ? 3 : 11);
  const watchRow = Deno.build.os === "linux"
    ? await watchRun(quick ? 100 : 1000, quick ? 3 : 10)
    : undefined;
  const detachRows = await detachRun(
    quick ? DETACH_DELAYS.quick : DETACH_DELAYS.full,
    quick ? 1 : 3,
  );
  const sizeRows = await workspaceSizeRun(
    quick ? [1, 100] : [1, 100, 1000],
    quick ? 2 : 9,
  );
  const backfillRows = await backfillRun(
    quick ? [8] : [1, 8, 32],
    quick ? 50 : 200,
    300,
  );
  const text = report(
    scaleRows,
    overlapRows,
    startupRows,
    watchRow,
    detachRows,
    sizeRows,
    backfillRows,
    (performance.now() - started) / 1000,
  );
  console.log(text);
  if (!quick) {
    const results = join(ROOT, "bench", "RESULTS.md");
    // Sections other runs write (find, round 3) are kept as they were.
    const previous = await Deno.readTextFile(results).catch(() => "");
    const kept = previous.split(/\n(?=## )/).filter((section) =>
      section.startsWith("## ") &&
      !text.includes(`\n${section.split("\n")[0]}\n`)
    );
    await Deno.writeTextFile(
      results,
      [text.trimEnd(), ...kept.map((section) => section.trimEnd())].join(
        "\n\n",
      ) + "\n",
    );
    // Committed as `deno fmt` lays it out, so CI's format check stays green.
    await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--quiet", results],
      cwd: ROOT,
    }).output();
    const requestRows: RequestsRow[] = [];
    for (const ms of [300, 3000, 8000]) {
      requestRows.push(await requestsPerLabel(ms));
    }
    await writeResultsSection(REQUESTS_HEADING, requestsTable(requestRows));
  }
}
