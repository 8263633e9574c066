/**
 * `jpt serve` on a 10,000-turn conversation: time to the first byte and to
 * the complete page of its conversation page (the outline and the first 100
 * turns) on the first load and on later ones (the view kept while the files
 * are unchanged), against `jpt turns` on the same conversation in a fresh
 * process, alternated run by run; and the server's resident memory (VmRSS)
 * after the runs against the file's size. Medians of 11 rounds (3 with `--quick`).
 * Linux (memory from /proc).
 *
 * `deno run -A bench/serve_run.ts [--quick]` prints the rows.
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import { MAIN, median, removeTree, runJpt } from "./run_jpt.ts";

const quick = Deno.args.includes("--quick");
const ROUNDS = quick ? 3 : 11;
const TURNS = 10_000;

const root = await Deno.makeTempDir({ prefix: "jpt-bench-serve-" });
const env = { JPT_DATA_DIR: join(root, "data"), NO_COLOR: "1" };
let server: Deno.ChildProcess | undefined;
try {
  const dir = join(root, ".jp", "conversations", "17800000000");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchsv\n");
  const events = generateConversation(TURNS, 300, 7, TURNS / 2);
  await Deno.writeFile(join(dir, "events.json"), events);
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  await Deno.writeTextFile(
    join(dir, "metadata.json"),
    '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
  );
  server = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "serve"],
    cwd: root,
    env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = server.stdout.pipeThrough(
    new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
  ).getReader();
  let url = "";
  while (!url.includes("\n")) url += (await reader.read()).value ?? "";
  url = url.trim();
  const page = `${url}c/17800000000`;
  const times = {
    first: [] as number[],
    whole: [] as number[],
    turns: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const response = await fetch(page);
    const body = response.body!.getReader();
    await body.read();
    times.first.push(performance.now() - started);
    while (!(await body.read()).done) {
      // Read to the end.
    }
    times.whole.push(performance.now() - started);
    times.turns.push(
      (await runJpt(["turns", "17800000000"], { cwd: root, env })).wall,
    );
  }
  const status = await Deno.readTextFile(`/proc/${server.pid}/status`);
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  const fileMb = events.length / 1024 / 1024;
  // The first load reads the conversation; later ones find it kept.
  const m = {
    first: times.first[0]!,
    whole: times.whole[0]!,
    again: median(times.first.slice(1)),
    turns: median(times.turns),
  };
  console.log(
    `| \`jpt serve\`, ${TURNS.toLocaleString("en")}-turn conversation (${
      fileMb.toFixed(0)
    } MB), first load: first byte / \`jpt turns\` on it (${
      m.turns.toFixed(0)
    } ms) | ${(m.first / m.turns).toFixed(2)}× (${
      m.first.toFixed(0)
    } ms) | ≤ 2× |`,
  );
  console.log(
    `| the same, first load: complete page (outline and 100 turns) / \`jpt turns\` | ${
      (m.whole / m.turns).toFixed(2)
    }× (${m.whole.toFixed(0)} ms) | |`,
  );
  console.log(
    `| the same, later loads (kept while the files are unchanged): first byte / \`jpt turns\` | ${
      (m.again / m.turns).toFixed(2)
    }× (${m.again.toFixed(0)} ms) | |`,
  );
  console.log(
    `| the same: server resident memory / file size | ${
      (rssMb / fileMb).toFixed(2)
    }× (${rssMb.toFixed(0)} MB) | ≤ 3× |`,
  );
} finally {
  if (server !== undefined) {
    server.kill("SIGINT");
    await server.status;
  }
  await removeTree(root);
}
