/**
 * Exit right after the reply: `jpt query` with a 1 s streamed turn while the
 * catch-up label of the turn before takes S, once with the detached worker
 * (`detach = true`), once waiting for it (`detach = false`), and once with
 * summaries off (`auto = false`, the floor). Dead time is the time from the
 * reply's last byte to the process exit; "kept" says whether the label was
 * on the turn in `events.json` within S + 3 s of the query's start.
 *
 * Run alone with `deno run -A bench/detach_run.ts` (prints the table), or
 * through `bench/bench.ts`.
 *
 * @module
 */

import { join } from "node:path";
import { ConversationStream } from "../src/conversation/stream.ts";
import { FakeLlm, type Responder } from "../tests/support/fake_llm.ts";
import { median, removeTree, runJpt } from "./run_jpt.ts";
import { isSummaryRequest, quickTurn, slowTurn } from "./turn_server.ts";

const TURN_PIECES = 10;
const TURN_PIECE_MS = 100; // T = 1 s streamed
const LANDING_SLACK_MS = 3000;

/** S values (ms) measured: full run, then `--quick`. */
export const DETACH_DELAYS = {
  full: [300, 1500, 3000, 4000, 8000, 15000],
  quick: [300, 4000],
};

/** The three ways a query can end. */
export type DetachMode = "detach" | "wait" | "off";

/** Medians for one summary latency S. */
export interface DetachRow {
  /** S: how long the summary request takes (ms). */
  summaryMs: number;
  /** Median dead time per mode (ms). */
  dead: Record<DetachMode, number>;
  /** Runs whose label landed within S + 3 s, per mode, of `runs`. */
  kept: Record<DetachMode, number>;
  /** Median time from the query's start to the label on disk, detached (ms). */
  landedDetached: number;
  /** Runs per mode. */
  runs: number;
}

async function firstTurnSummary(ws: string): Promise<string | undefined> {
  const conversations = join(ws, ".jp", "conversations");
  const [entry] = await Array.fromAsync(Deno.readDir(conversations));
  const bytes = await Deno.readFile(
    join(conversations, entry!.name, "events.json"),
  );
  return ConversationStream.parse(bytes).turns()[0]?.summary;
}

/** Waits until the first turn has a label or `until` passes; the landing time or undefined. */
async function landing(
  ws: string,
  until: number,
): Promise<number | undefined> {
  while (performance.now() < until) {
    if (await firstTurnSummary(ws) !== undefined) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return undefined;
}

async function oneRun(
  server: FakeLlm,
  turnResponder: Responder,
  summaryMs: number,
  mode: DetachMode,
) {
  const ws = await Deno.makeTempDir({ prefix: "jpt-bench-detach-" });
  await Deno.mkdir(join(ws, ".jp", "conversations"), { recursive: true });
  await Deno.writeTextFile(
    join(ws, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\ncontext_window = 8192\n[providers.llm.ollama]\nbase_url = "${server.url}"\n` +
      `[conversation.turn_summary.generate]\nauto = ${mode !== "off"}\n`,
  );
  const env = {
    JP_USER_DATA_DIR: join(ws, "user"),
    JP_GLOBAL_CONFIG_DIR: join(ws, "global"),
    JPT_CONFIG_DIR: join(ws, "jpt-config"),
    JPT_DATA_DIR: join(ws, "jpt-data"),
    JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: String(
      mode === "detach",
    ),
  };
  server.respond(quickTurn);

  await runJpt(["query", "--no-title", "first question"], { cwd: ws, env });
  server.respond(turnResponder);
  const before = server.requests.length;
  const run = await runJpt(["query", "second question"], { cwd: ws, env });
  const chat = server.requests.slice(before).find((request) =>
    request.body?.stream === true
  )!;
  const dead = run.exitedAt - chat.answeredAt!;
  const landedAt = mode === "off"
    ? undefined
    : await landing(ws, run.started + summaryMs + LANDING_SLACK_MS);
  if (mode !== "off" && !server.requests.slice(before).some(isSummaryRequest)) {
    throw new Error("no summary request was made with auto = true");
  }
  if (mode === "detach" && landedAt === undefined) {
    // Let a late worker finish before its workspace goes away.
    await landing(ws, performance.now() + summaryMs + 10_000);
  }
  await removeTree(ws);
  return {
    dead,
    landed: landedAt === undefined ? undefined : landedAt - run.started,
  };
}

/** Measures dead time and whether the label is kept for each S. */
export async function detachRun(
  summaryDelays: number[],
  runs: number,
): Promise<DetachRow[]> {
  const rows: DetachRow[] = [];
  for (const summaryMs of summaryDelays) {
    const turnResponder = slowTurn(TURN_PIECES, TURN_PIECE_MS, summaryMs);
    await using server = FakeLlm.start(turnResponder);
    const dead: Record<DetachMode, number[]> = {
      detach: [],
      wait: [],
      off: [],
    };
    const kept: Record<DetachMode, number> = { detach: 0, wait: 0, off: 0 };
    const landedDetached: number[] = [];
    for (let i = 0; i < runs; i++) {
      for (const mode of ["detach", "wait", "off"] as const) {
        const result = await oneRun(server, turnResponder, summaryMs, mode);
        dead[mode].push(result.dead);
        if (result.landed !== undefined) kept[mode]++;
        if (mode === "detach" && result.landed !== undefined) {
          landedDetached.push(result.landed);
        }
      }
    }
    rows.push({
      summaryMs,
      dead: {
        detach: median(dead.detach),
        wait: median(dead.wait),
        off: median(dead.off),
      },
      kept,
      landedDetached: landedDetached.length ? median(landedDetached) : NaN,
      runs,
    });
    console.error(`detach: S = ${summaryMs} ms done`);
  }
  return rows;
}

/** The table as Markdown lines. */
export function detachTable(rows: DetachRow[]): string[] {
  const f = (ms: number) =>
    Number.isNaN(ms) ? "—" : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
  const lines = [
    "| S (ms) | dead, detach (ms) | dead, wait (ms) | dead, auto = false (ms) | detach − off (ms) | kept, detach | kept, wait | label on disk after start, detach (ms) |",
    "| -----: | ----------------: | --------------: | ----------------------: | ----------------: | -----------: | ---------: | -------------------------------------: |",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.summaryMs} | ${f(row.dead.detach)} | ${f(row.dead.wait)} | ${
        f(row.dead.off)
      } | ${
        f(row.dead.detach - row.dead.off)
      } | ${row.kept.detach}/${row.runs} | ${row.kept.wait}/${row.runs} | ${
        f(row.landedDetached)
      } |`,
    );
  }
  return lines;
}

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const rows = await detachRun(
    quick ? DETACH_DELAYS.quick : DETACH_DELAYS.full,
    quick ? 1 : 3,
  );
  console.log(detachTable(rows).join("\n"));
}
