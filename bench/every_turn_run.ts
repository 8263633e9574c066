/**
 * Every turn summarized when the summary model is slower than the turns:
 * `n` back-to-back `jpt query` runs (the installed form, `main.ts` with
 * jpt's permissions) against a loopback model whose reply streams for T and
 * whose summary request takes S. Measured: how long after the last query
 * returns every earlier turn has its summary, in multiples of S, and how
 * often each turn was asked for. Detached workers, as by default.
 *
 * `deno run -A bench/every_turn_run.ts [--quick]` prints the table.
 *
 * @module
 */

import { join } from "node:path";
import { ConversationStream } from "../src/conversation/stream.ts";
import { JPT_PERMISSIONS } from "../src/cli/jpt_permissions.ts";
import {
  FakeLlm,
  requestedTurnIds,
  summaryResponder,
} from "../tests/support/fake_llm.ts";
import { isSummaryRequest } from "./turn_server.ts";
import { MAIN, removeTree, runToEnd } from "./run_jpt.ts";

/** One scenario's outcome. */
export interface EveryTurnRow {
  /** Queries run back to back. */
  queries: number;
  /** The reply's duration (ms). */
  turnMs: number;
  /** The summary request's duration (ms). */
  summaryMs: number;
  /** Earlier turns (all but the last query's) summarized at the end. */
  summarized: number;
  /** From the last query's return until every earlier turn had its summary (ms), or `undefined` if some did not within 6 × S + 10 s. */
  afterLastMs: number | undefined;
  /** The most times one turn was asked for. */
  mostAsks: number;
}

/**
 * Runs one scenario.
 *
 * @param queries How many queries.
 * @param turnMs How long each reply streams.
 * @param summaryMs How long each summary request takes.
 * @returns What happened.
 */
export async function everyTurnRun(
  queries: number,
  turnMs: number,
  summaryMs: number,
): Promise<EveryTurnRow> {
  const pieces = 10;
  await using llm = FakeLlm.start(async (request) => {
    if (request.body?.stream) {
      return {
        stream: {
          pieces: Array(pieces).fill("word "),
          pieceDelayMs: turnMs / pieces,
        },
      };
    }
    if (!isSummaryRequest(request)) return { json: { choices: [] } };
    await new Promise((resolve) => setTimeout(resolve, summaryMs));
    return summaryResponder()(request);
  });
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-every-" });
  try {
    await Deno.mkdir(join(root, ".jp", "conversations"), { recursive: true });
    await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchet\n");
    await Deno.writeTextFile(
      join(root, ".jp", "config.toml"),
      `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n[conversation.title.generate]\nauto = false\n`,
    );
    const env = {
      ...Deno.env.toObject(),
      NO_COLOR: "1",
      JPT_DATA_DIR: join(root, "data"),
      JPT_CONFIG_DIR: join(root, "config"),
      XDG_DATA_HOME: join(root, "xdg"),
    };
    const query = (...words: string[]) =>
      runToEnd(
        [
          Deno.execPath(),
          "run",
          "--quiet",
          ...JPT_PERMISSIONS,
          MAIN,
          "query",
          ...words,
        ],
        root,
        env,
      );
    await query("--new", "question 1");
    for (let n = 2; n <= queries; n++) await query(`question ${n}`);
    const returned = performance.now();
    const [name] = [...Deno.readDirSync(join(root, ".jp", "conversations"))]
      .map((entry) => entry.name);
    const events = join(root, ".jp", "conversations", name!, "events.json");
    const earlierSummarized = async () =>
      ConversationStream.parse(await Deno.readFile(events)).turns()
        .slice(0, queries - 1).filter((turn) => turn.summary !== undefined)
        .length;
    // Until every earlier turn has its summary, or 6 × S (and 10 s) passed.
    let afterLastMs: number | undefined;
    while (performance.now() - returned < 6 * summaryMs + 10_000) {
      if (await earlierSummarized() === queries - 1) {
        afterLastMs = performance.now() - returned;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const asks = new Map<string, number>();
    for (const request of llm.chatRequests.filter(isSummaryRequest)) {
      for (const id of requestedTurnIds(request)) {
        asks.set(id, (asks.get(id) ?? 0) + 1);
      }
    }
    return {
      queries,
      turnMs,
      summaryMs,
      summarized: await earlierSummarized(),
      afterLastMs,
      mostAsks: Math.max(0, ...asks.values()),
    };
  } finally {
    await removeTree(root);
  }
}

/**
 * The table as Markdown lines.
 *
 * @param rows The rows.
 * @returns The lines.
 */
export function everyTurnTable(rows: EveryTurnRow[]): string[] {
  return [
    "| queries | T (ms) | S (ms) | earlier turns summarized | every earlier turn summarized after the last query returned | the most asks for one turn |",
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((row) =>
      `| ${row.queries} | ${row.turnMs} | ${row.summaryMs} | ${row.summarized} of ${
        row.queries - 1
      } | ${
        row.afterLastMs === undefined
          ? "not within 6 × S + 10 s"
          : `${(row.afterLastMs / 1000).toFixed(1)} s (${
            (row.afterLastMs / row.summaryMs).toFixed(2)
          } × S)`
      } | ${row.mostAsks} |`
    ),
  ];
}

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const scenarios: Array<[number, number, number]> = quick
    ? [[5, 300, 1000]]
    : [[5, 300, 3000], [5, 1000, 3000], [10, 300, 8000]];
  const rows: EveryTurnRow[] = [];
  for (const [queries, turnMs, summaryMs] of scenarios) {
    rows.push(await everyTurnRun(queries, turnMs, summaryMs));
  }
  console.log(everyTurnTable(rows).join("\n"));
}
