/**
 * The label store at its bound: one-request `jpt summarize` runs (each on a
 * conversation of its own, so each creates a record) with a store holding
 * 100,000 records and counted at its bound, against the same runs with an
 * empty store, alternated run by run. The first run past the bound walks the
 * store and keeps nine tenths of it; the runs after it only count. Reported:
 * the median ratio over the runs, and that one walking run alone.
 *
 * `deno run -A bench/store_bound_run.ts [--quick]` prints the table.
 *
 * @module
 */

import { join } from "node:path";
import { FakeLlm, summaryResponder } from "../tests/support/fake_llm.ts";
import { generateConversation } from "./generate.ts";
import { median, removeTree, runJpt } from "./run_jpt.ts";

const quick = Deno.args.includes("--quick");
const RECORDS = 100_000;
const RUNS = quick ? 3 : 9;

/** The outcome: medians (ms) and the walking run. */
export interface StoreBoundRow {
  /** Records in the full store before the runs. */
  records: number;
  /** Median wall time with the full store, the walking run excluded. */
  fullMs: number;
  /** Median wall time with an empty store. */
  emptyMs: number;
  /** The first run with the full store (the one that walks). */
  walkMs: number;
  /** Records left after the runs. */
  left: number;
}

/**
 * Measures the bound.
 *
 * @returns The row.
 */
export async function storeBoundRun(): Promise<StoreBoundRow> {
  await using server = FakeLlm.start(summaryResponder());
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-store-" });
  try {
    await Deno.mkdir(join(root, ".jp", "conversations"), { recursive: true });
    await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchst\n");
    await Deno.writeTextFile(
      join(root, ".jp", "config.toml"),
      `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
    );
    const full = join(root, "full");
    const empty = join(root, "empty");
    const records = join(full, "labels-v2");
    await Deno.mkdir(records, { recursive: true });
    const old = new Date(2020, 0, 1);
    for (let i = 0; i < RECORDS; i++) {
      const path = join(records, `${i.toString(16).padStart(64, "0")}.json`);
      Deno.writeTextFileSync(path, "{}");
      Deno.utimeSync(path, old, old);
    }
    Deno.writeTextFileSync(join(records, ".count"), `${RECORDS}\n`);
    let next = 17800000000;
    const once = async (store: string) => {
      const id = next++;
      const dir = join(root, ".jp", "conversations", String(id));
      await Deno.mkdir(dir);
      await Deno.writeFile(
        join(dir, "events.json"),
        generateConversation(3, 300, id, 0),
      );
      await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
      await Deno.writeTextFile(
        join(dir, "metadata.json"),
        '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
      );
      const run = await runJpt(["summarize", dir], {
        cwd: root,
        env: { JPT_DATA_DIR: store },
      });
      return run.wall;
    };
    await once(empty); // the empty store's first run creates its directory
    const walkMs = await once(full);
    const times = { full: [] as number[], empty: [] as number[] };
    for (let round = 0; round < RUNS; round++) {
      times.full.push(await once(full));
      times.empty.push(await once(empty));
    }
    let left = 0;
    for await (const item of Deno.readDir(records)) {
      if (item.name.endsWith(".json")) left++;
    }
    return {
      records: RECORDS,
      fullMs: median(times.full),
      emptyMs: median(times.empty),
      walkMs,
      left,
    };
  } finally {
    await removeTree(root);
  }
}

if (import.meta.main) {
  const row = await storeBoundRun();
  console.log(
    `| one-request \`summarize\`, ${
      row.records.toLocaleString("en")
    } records at the bound / empty store | ${
      (row.fullMs / row.emptyMs).toFixed(2)
    }× (${row.fullMs.toFixed(0)} / ${
      row.emptyMs.toFixed(0)
    } ms) | the one walking run: ${row.walkMs.toFixed(0)} ms | records left: ${
      row.left.toLocaleString("en")
    } |`,
  );
}
