/**
 * `jpt serve` on 10,000-turn conversations of two shapes (short tool
 * results: 26 MB; the bench's heavier ones: 91 MB): time to the first byte
 * and to the complete page of the conversation page (the outline and the
 * first 100 turns) on a load after a save (the file replaced by a copy, as
 * a save replaces it) and on the load after that, against `jpt turns` on
 * the same conversation in a fresh process, alternated run by run; and the
 * server's resident memory (VmRSS) when it has just started and after the
 * loads, against the file's size, beside a bare `Deno.serve` that streams
 * the same page as many times in 64 KiB pieces (what the runtime keeps for
 * streaming alone). Medians of 11 rounds (3 with `--quick`). Linux (memory
 * from /proc).
 *
 * `deno run -A bench/serve_run.ts [--entry FILE] [--quick]` prints the
 * rows (`--entry`: another checkout's `main.ts` serves).
 *
 * @module
 */

import { join } from "node:path";
import { generateConversation } from "./generate.ts";
import {
  firstLine,
  MAIN,
  median,
  optionValue,
  removeTree,
  runJpt,
} from "./run_jpt.ts";
import { writeConversation } from "../tests/support/workspace.ts";

const quick = Deno.args.includes("--quick");
/** `--entry FILE`: another checkout's `main.ts` serves (default this one's). */
const ENTRY = optionValue("--entry") ?? MAIN;
const ROUNDS = quick ? 3 : 11;
const TURNS = 10_000;

/** The server's resident memory (MB). */
async function residentMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/**
 * The resident memory of a bare `Deno.serve` after streaming `page` to
 * `loads` requests in 64 KiB pieces.
 */
async function bareServerMb(
  page: Uint8Array,
  loads: number,
  dir: string,
): Promise<number> {
  const file = join(dir, "page.html");
  await Deno.writeFile(file, page);
  const script = join(dir, "bare_server.ts");
  await Deno.writeTextFile(
    script,
    `const page = Deno.readFileSync(${JSON.stringify(file)});
Deno.serve({ port: 0, onListen: ({ port }) => console.log(port) }, () => {
  let at = 0;
  return new Response(new ReadableStream({ pull(c) {
    if (at >= page.length) return c.close();
    c.enqueue(page.slice(at, at + 65536));
    at += 65536;
  } }));
});
`,
  );
  const bare = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", script],
    stdout: "piped",
  }).spawn();
  try {
    const port = await firstLine(bare);
    for (let i = 0; i < loads; i++) {
      await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer();
    }
    return await residentMb(bare.pid);
  } finally {
    bare.kill();
    await bare.status;
    await bare.stdout.cancel().catch(() => {});
  }
}

/** Serves a workspace holding one conversation of the shape and loads its page. */
async function measure(toolBytes: number): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-serve-" });
  const env = { JPT_DATA_DIR: join(root, "data"), NO_COLOR: "1" };
  let server: Deno.ChildProcess | undefined;
  try {
    const events = generateConversation(TURNS, toolBytes, 7, TURNS / 2);
    const dir = await writeConversation(
      join(root, ".jp", "conversations"),
      "17800000000",
      events,
    );
    await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
    await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchsv\n");
    server = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", ENTRY, "serve"],
      cwd: root,
      env,
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const url = await firstLine(server);
    const startedMb = await residentMb(server.pid);
    const page = `${url}c/17800000000`;
    const times = {
      first: [] as number[],
      whole: [] as number[],
      again: [] as number[],
      turns: [] as number[],
    };
    const load = async () => {
      const started = performance.now();
      const body = (await fetch(page)).body!.getReader();
      await body.read();
      const first = performance.now() - started;
      while (!(await body.read()).done) {
        // Read to the end.
      }
      return { first, whole: performance.now() - started };
    };
    for (let round = 0; round < ROUNDS; round++) {
      // The same bytes in a new file, as a save leaves it: read again.
      await Deno.writeFile(join(dir, "events.json.new"), events);
      await Deno.rename(
        join(dir, "events.json.new"),
        join(dir, "events.json"),
      );
      const first = await load();
      times.first.push(first.first);
      times.whole.push(first.whole);
      times.again.push((await load()).first);
      times.turns.push(
        (await runJpt(["turns", "17800000000"], { cwd: root, env })).wall,
      );
    }
    const rssMb = await residentMb(server.pid);
    const pageBytes = new Uint8Array(await (await fetch(page)).arrayBuffer());
    const bareMb = await bareServerMb(pageBytes, 2 * ROUNDS + 1, root);
    const fileMb = events.length / 1024 / 1024;
    const m = {
      first: median(times.first),
      whole: median(times.whole),
      again: median(times.again),
      turns: median(times.turns),
    };
    const shape = `${TURNS.toLocaleString("en")}-turn conversation (${
      fileMb.toFixed(0)
    } MB)`;
    const ratio = (ms: number) =>
      `${(ms / m.turns).toFixed(2)}× (${ms.toFixed(0)} ms)`;
    console.log(
      `| \`jpt serve\`, ${shape}, load after a save: first byte / \`jpt turns\` on it (${
        m.turns.toFixed(0)
      } ms) | ${ratio(m.first)} | ≤ 2× |`,
    );
    console.log(
      `| the same, load after a save: complete page (outline and 100 turns) / \`jpt turns\` | ${
        ratio(m.whole)
      } | |`,
    );
    console.log(
      `| the same, the load after (the same file): first byte / \`jpt turns\` | ${
        ratio(m.again)
      } | |`,
    );
    console.log(
      `| the same: server resident memory after ${
        2 * ROUNDS
      } loads / file size | ${(rssMb / fileMb).toFixed(2)}× (${
        rssMb.toFixed(0)
      } MB; ${
        startedMb.toFixed(0)
      } MB when started; a bare Deno.serve streaming the page as often: ${
        bareMb.toFixed(0)
      } MB) | ≤ 3× |`,
    );
  } finally {
    if (server !== undefined) {
      server.kill("SIGINT");
      await server.status;
    }
    await removeTree(root);
  }
}

for (const toolBytes of [300, 3000]) await measure(toolBytes);
