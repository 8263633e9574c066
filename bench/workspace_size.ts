/**
 * Workspace size against command cost: `jpt config show` and `jpt turns` of
 * one conversation in workspaces of 1, 100 and 1,000 conversations (3 turns
 * each), timed alternately, median of the runs.
 *
 * Run alone with `deno run -A bench/workspace_size.ts [--before DIR]` (DIR:
 * another checkout, timed side by side), or through `bench/bench.ts`.
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import { beforeMain, MAIN, median, runJpt } from "./run_jpt.ts";

/** One workspace size's medians. */
export interface WorkspaceSizeRow {
  /** Conversations in the workspace. */
  conversations: number;
  /** `jpt config show` (ms). */
  configShow: number;
  /** `jpt turns <id>` (ms). */
  turns: number;
  /** The same two with another checkout's `main.ts`, when one was given. */
  before?: { configShow: number; turns: number };
}

async function makeWorkspace(conversations: number): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-size-" });
  await Deno.mkdir(join(root, ".jp", "conversations"), { recursive: true });
  await Deno.writeTextFile(
    join(root, ".jp", "config.toml"),
    '[assistant.model]\nid = "ollama/tiny"\n',
  );
  const bytes = generateConversation(3);
  for (let i = 0; i < conversations; i++) {
    const dir = join(root, ".jp", "conversations", `${17000000000 + i}`);
    await Deno.mkdir(dir);
    await Deno.writeFile(join(dir, "events.json"), bytes);
    await Deno.writeTextFile(
      join(dir, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
    await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  }
  return root;
}

function timed(
  entry: string,
  args: string[],
  cwd: string,
): Promise<number> {
  return runJpt(args, {
    cwd,
    entry,
    env: {
      JP_GLOBAL_CONFIG_DIR: join(cwd, "global"),
      JP_USER_DATA_DIR: join(cwd, "user"),
      JPT_CONFIG_DIR: join(cwd, "jpt-config"),
      JPT_DATA_DIR: join(cwd, "jpt-data"),
    },
  }).then((run) => run.wall);
}

/**
 * Times both commands in each workspace size, the sizes (and, with
 * `beforeMain`, the two builds) interleaved run by run.
 */
export async function workspaceSizeRun(
  sizes: number[],
  runs: number,
  beforeMain?: string,
): Promise<WorkspaceSizeRow[]> {
  const roots = await Promise.all(sizes.map(makeWorkspace));
  const mains = beforeMain === undefined ? [MAIN] : [MAIN, beforeMain];
  // samples[main][size] = { config, turns }
  const samples = mains.map(() =>
    sizes.map(() => ({ config: [] as number[], turns: [] as number[] }))
  );
  try {
    for (let run = 0; run <= runs; run++) {
      for (const [index, root] of roots.entries()) {
        for (const [which, main] of mains.entries()) {
          const config = await timed(main, ["config", "show"], root);
          const turns = await timed(main, ["turns", "17000000000"], root);
          // The first round warms the module cache and the file cache.
          if (run === 0) continue;
          samples[which]![index]!.config.push(config);
          samples[which]![index]!.turns.push(turns);
        }
      }
    }
  } finally {
    for (const root of roots) await Deno.remove(root, { recursive: true });
  }
  return sizes.map((conversations, index) => {
    const of = (which: number) => ({
      configShow: median(samples[which]![index]!.config),
      turns: median(samples[which]![index]!.turns),
    });
    return {
      conversations,
      ...of(0),
      ...(beforeMain === undefined ? {} : { before: of(1) }),
    };
  });
}

/** The table as Markdown lines (ratios against the first size). */
export function workspaceSizeTable(rows: WorkspaceSizeRow[]): string[] {
  const base = rows[0]!;
  const withBefore = base.before !== undefined;
  const lines = withBefore
    ? [
      "| conversations | `config show`, before (ms) | × vs 1 | `config show` (ms) | × vs 1 | `turns <id>`, before (ms) | × vs 1 | `turns <id>` (ms) | × vs 1 |",
      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    : [
      "| conversations | `config show` (ms) | × vs 1 | `turns <id>` (ms) | × vs 1 |",
      "| ---: | ---: | ---: | ---: | ---: |",
    ];
  const cell = (value: number, first: number) =>
    `${value.toFixed(0)} | ${(value / first).toFixed(2)}`;
  for (const row of rows) {
    const cells = withBefore
      ? [
        cell(row.before!.configShow, base.before!.configShow),
        cell(row.configShow, base.configShow),
        cell(row.before!.turns, base.before!.turns),
        cell(row.turns, base.turns),
      ]
      : [cell(row.configShow, base.configShow), cell(row.turns, base.turns)];
    lines.push(`| ${row.conversations} | ${cells.join(" | ")} |`);
  }
  return lines;
}

if (import.meta.main) {
  // `--before DIR`: also time another checkout (e.g. a worktree of main).
  const rows = await workspaceSizeRun([1, 100, 1000], 9, beforeMain());
  console.log(workspaceSizeTable(rows).join("\n"));
}
