/**
 * Backfill at scale: `jpt summarize --all --jobs J` over C conversations of
 * 3 turns against a loopback model that answers each summary request after
 * S ms. Wall time against the ideal (requests × S / J), the most requests
 * in flight at once, and the turns summarized.
 *
 * Run alone with `deno run -A bench/backfill_run.ts [--quick]`, or through
 * `bench/bench.ts`.
 *
 * @module
 */

import { join } from "node:path";
import {
  FakeLlm,
  peakInFlight,
  summaryResponder,
} from "../tests/support/fake_llm.ts";
import { generateConversation } from "./generate.ts";
import { MAIN } from "./run_jpt.ts";

/** One `--jobs` value's run. */
export interface BackfillRow {
  /** `--jobs`. */
  jobs: number;
  /** Conversations in the workspace. */
  conversations: number;
  /** Summary requests made. */
  requests: number;
  /** Turns summarized (from the report). */
  summarized: number;
  /** Wall time of the command (ms). */
  wall: number;
  /** requests × S / jobs (ms). */
  ideal: number;
  /** The most requests in flight at one moment. */
  peak: number;
}

async function makeWorkspace(conversations: number, url: string) {
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-backfill-" });
  await Deno.mkdir(join(root, ".jp", "conversations"), { recursive: true });
  await Deno.writeTextFile(
    join(root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\ncontext_window = 32768\n` +
      `[providers.llm.ollama]\nbase_url = "${url}"\n`,
  );
  for (let i = 0; i < conversations; i++) {
    // Texts of their own: the label store would restore repeated turns.
    const bytes = generateConversation(3, 300, 1000 + i);
    const dir = join(root, ".jp", "conversations", `${17000000000 + i}`);
    await Deno.mkdir(dir);
    await Deno.writeFile(join(dir, "events.json"), bytes);
    await Deno.writeTextFile(
      join(dir, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
  }
  return root;
}

/**
 * Runs one backfill per `--jobs` value, each in a fresh workspace.
 *
 * @param jobs The `--jobs` values.
 * @param conversations Conversations per workspace.
 * @param summaryMs How long each summary request takes.
 * @returns One row per value.
 */
export async function backfillRun(
  jobs: number[],
  conversations: number,
  summaryMs: number,
): Promise<BackfillRow[]> {
  const rows: BackfillRow[] = [];
  for (const j of jobs) {
    const answer = summaryResponder();
    await using server = FakeLlm.start(async (request) => {
      if (!request.path.endsWith("/chat/completions")) return { status: 404 };
      await new Promise((resolve) => setTimeout(resolve, summaryMs));
      return answer(request);
    });
    const root = await makeWorkspace(conversations, server.url);
    try {
      const started = performance.now();
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          MAIN,
          "summarize",
          "--all",
          "--jobs",
          String(j),
          "--json",
        ],
        cwd: root,
        env: {
          NO_COLOR: "1",
          JP_GLOBAL_CONFIG_DIR: join(root, "global"),
          JP_USER_DATA_DIR: join(root, "user"),
          JPT_CONFIG_DIR: join(root, "jpt-config"),
          JPT_DATA_DIR: join(root, "jpt-data"),
        },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).output();
      const wall = performance.now() - started;
      const report = JSON.parse(new TextDecoder().decode(output.stdout));
      const requests = server.chatRequests.length;
      rows.push({
        jobs: j,
        conversations,
        requests,
        summarized: report.totals.summarized,
        wall,
        ideal: requests * summaryMs / j,
        peak: peakInFlight(server.chatRequests),
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
  return rows;
}

/**
 * The table as Markdown lines.
 *
 * @param rows The rows.
 * @returns The lines.
 */
export function backfillTable(rows: BackfillRow[]): string[] {
  return [
    "| `--jobs` | conversations | requests | turns summarized | wall (s) | ideal (s) | wall / ideal | most in flight |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((row) =>
      `| ${row.jobs} | ${row.conversations} | ${row.requests} | ${row.summarized} | ${
        (row.wall / 1000).toFixed(1)
      } | ${(row.ideal / 1000).toFixed(1)} | ${
        (row.wall / row.ideal).toFixed(2)
      } | ${row.peak} |`
    ),
  ];
}

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const rows = await backfillRun(
    quick ? [8] : [1, 8, 32],
    quick ? 50 : 200,
    300,
  );
  console.log(backfillTable(rows).join("\n"));
}
