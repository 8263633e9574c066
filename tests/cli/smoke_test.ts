/**
 * Smoke cases for a built jpt. With `JPT_ENTRY` set to the bundled single
 * file (copied away from the sources), they prove the program reads nothing
 * relative to its source files at run time, as a compiled binary requires.
 * Without it they run `main.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import denoConfig from "../../deno.json" with { type: "json" };
import { runJpt } from "../support/cli.ts";
import { FakeLlm } from "../support/fake_llm.ts";
import { testdata } from "../support/paths.ts";
import { tempWorkspace } from "../support/workspace.ts";

const entry = Deno.env.get("JPT_ENTRY");
const workspace = testdata("workspace");
const options = {
  ...(entry === undefined ? {} : { entry }),
  cwd: Deno.makeTempDirSync({ prefix: "jpt-smoke-" }),
};

Deno.test("smoke: --version and --help", async () => {
  const version = await runJpt(["--version"], options);
  assert.equal(version.stdout, `${denoConfig.version}\n`);
  const help = await runJpt(["--help"], options);
  assert.equal(help.code, 0);
  for (
    const command of [
      "turns",
      "check",
      "query",
      "summarize",
      "models",
      "config",
      "completions",
    ]
  ) {
    assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`));
  }
});

Deno.test("smoke: turns, check and summarize --dry-run on test data", async () => {
  const turns = await runJpt(["turns", "-w", workspace], options);
  assert.equal(turns.code, 0, turns.stderr);
  assert.match(
    turns.stdout,
    /^# Turn 1 \(k3m9x2a\): Add retry backoff to stream handler\n/,
  );
  const check = await runJpt(["check", workspace], options);
  assert.equal(check.code, 0, check.stdout);
  const dryRun = await runJpt([
    "summarize",
    "--dry-run",
    "--json",
    "-w",
    workspace,
  ], options);
  assert.equal(dryRun.code, 0, dryRun.stderr);
  assert.equal(
    JSON.parse(dryRun.stdout).conversations[0].batches[0].turns.length,
    2,
  );
  await Deno.remove(options.cwd, { recursive: true });
});

Deno.test("smoke: query streams a reply through the lazily loaded model client", async () => {
  await using server = FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["Hello", " from the bundle."] } }
      : { status: 404 }
  );
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n[conversation.turn_summary.generate]\nauto = false\n`,
  );
  const query = await runJpt(["query", "--no-title", "hi"], {
    ...(entry === undefined ? {} : { entry }),
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(query.code, 0, query.stderr);
  assert.equal(query.stdout, "Hello from the bundle.\n");
  assert.equal(server.chatRequests.length, 1);
});
