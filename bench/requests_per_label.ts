/**
 * Requests per labelled turn: ten back-to-back `jpt query` turns of T = 1 s
 * (streamed) while each summary request takes S, with the detached worker
 * (the default). Counts the turns asked for (every turn id in every summary
 * request) against the turns labelled once every worker has ended; the goal
 * is 1.0 (each turn asked for once).
 *
 * Run with `deno run -A bench/requests_per_label.ts` (writes its section of
 * bench/RESULTS.md; `--quick` prints only).
 *
 * @module
 */

import { join } from "node:path";
import { ConversationStream } from "../src/conversation/stream.ts";
import { FakeLlm, requestedTurnIds } from "../tests/support/fake_llm.ts";
import { writeResultsSection } from "./results_section.ts";
import { removeTree, runJpt } from "./run_jpt.ts";
import { isSummaryRequest, slowTurn } from "./turn_server.ts";

const QUERIES = 10;

/** One S value's outcome. */
export interface RequestsRow {
  /** S in ms. */
  summaryMs: number;
  /** Turn-asks (turn ids in summary requests). */
  asked: number;
  /** Distinct turns asked for. */
  distinct: number;
  /** Turns labelled at the end. */
  labelled: number;
  /** Completed turns before the last query's (what could be labelled). */
  candidates: number;
}

async function waitForWorkers(log: string): Promise<void> {
  const until = performance.now() + 120_000;
  while (performance.now() < until) {
    const text = await Deno.readTextFile(log).catch(() => "");
    const started = text.match(/\] started/g)?.length ?? 0;
    const ended = text.match(/\] (done|failed)/g)?.length ?? 0;
    if (started === ended) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("workers did not end within 120 s");
}

/**
 * Measures one S.
 *
 * @param summaryMs S in ms.
 * @returns The counts.
 */
export async function requestsPerLabel(
  summaryMs: number,
): Promise<RequestsRow> {
  const base = await Deno.makeTempDir({ prefix: "jpt-bench-rpl-" });
  await using llm = FakeLlm.start(slowTurn(10, 100, summaryMs));
  try {
    const root = join(base, "project");
    await Deno.mkdir(join(root, ".jp", "conversations"), { recursive: true });
    await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchrpl\n");
    await Deno.writeTextFile(
      join(root, ".jp", "config.toml"),
      `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n[conversation.title.generate]\nauto = false\n`,
    );
    const env = {
      JPT_DATA_DIR: join(base, "data"),
      JPT_CONFIG_DIR: join(base, "jpt-config"),
      JP_GLOBAL_CONFIG_DIR: join(base, "jp-config"),
      JP_USER_DATA_DIR: join(base, "user"),
    };
    await runJpt(["query", "--new", "question 0"], { cwd: root, env });
    for (let i = 1; i < QUERIES; i++) {
      await runJpt(["query", `question ${i}`], { cwd: root, env });
    }
    await waitForWorkers(join(env.JPT_DATA_DIR, "worker.log"));
    const [entry] = await Array.fromAsync(
      Deno.readDir(join(root, ".jp", "conversations")),
    );
    const turns = ConversationStream.parse(
      await Deno.readFile(
        join(root, ".jp", "conversations", entry!.name, "events.json"),
      ),
    ).turns();
    const asked = llm.chatRequests.filter(isSummaryRequest).flatMap(
      requestedTurnIds,
    );
    return {
      summaryMs,
      asked: asked.length,
      distinct: new Set(asked).size,
      labelled: turns.filter((turn) => turn.summary !== undefined).length,
      candidates: turns.length - 1,
    };
  } finally {
    await removeTree(base);
  }
}

/**
 * The section's table.
 *
 * @param rows The rows.
 * @returns Markdown.
 */
export function requestsTable(rows: readonly RequestsRow[]): string {
  const lines = [
    `${QUERIES} back-to-back \`jpt query\` turns, T = 1 s streamed, each summary request taking S, detached worker (the default). Turn-asks: turn ids in summary requests; labelled: turns with a label once every worker ended (the last query's own turn is labelled by the next query, so at most ${
      QUERIES - 1
    }). Goal: 1.0 request per labelled turn.`,
    "",
    "| S (ms) | turn-asks | distinct turns asked | labelled | of | asks per labelled turn |",
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.summaryMs} | ${row.asked} | ${row.distinct} | ${row.labelled} | ${row.candidates} | ${
        (row.asked / Math.max(1, row.labelled)).toFixed(2)
      } |`,
    );
  }
  return lines.join("\n");
}

/** The section's heading in RESULTS.md. */
export const REQUESTS_HEADING = "## Requests per labelled turn";

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const rows: RequestsRow[] = [];
  for (const ms of quick ? [300] : [300, 3000, 8000]) {
    rows.push(await requestsPerLabel(ms));
  }
  const table = requestsTable(rows);
  console.log(table);
  if (!quick) await writeResultsSection(REQUESTS_HEADING, table);
}
