/**
 * Every command, run once as a person runs it: in a pseudo-terminal with
 * colour on (no `NO_COLOR`, `TERM=xterm-256color`), against the entry point
 * under test (`$JPT_ENTRY` in CI: the bundled single file). A command that
 * loads its colours, its flow or its dependencies wrongly in one of jpt's
 * forms crashes here, where a piped run would not show it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/command_table.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import { testdata } from "../support/paths.ts";
import { HAS_SCRIPT, runInPty } from "../support/pty.ts";
import { copyConversation, tempWorkspace } from "../support/workspace.ts";

const ESC = "\u001b";

/** One run per command (by its first name), and what its output must show. */
const RUNS: Record<string, { line: string; shows: RegExp; colour?: true }> = {
  init: { line: "jpt init fresh", shows: /\.jp/ },
  conversation: { line: "jpt conversation ls", shows: /17800000000/ },
  turns: { line: "jpt turns", shows: /Add retry backoff/, colour: true },
  find: { line: "jpt find retry", shows: /retry/i, colour: true },
  show: { line: "PAGER=cat jpt show", shows: /Turn 1/ },
  outline: { line: "jpt outline", shows: /Add retry backoff/ },
  // Driven with keystrokes in tests/cli/picker_test.ts.
  pick: { line: "jpt pick --help", shows: /Usage: jpt pick/ },
  check: { line: "jpt check .", shows: /1 ok/, colour: true },
  query: { line: "jpt query -n 'Say hi'", shows: /Hello there\./ },
  edit: { line: "JP_EDITOR=true jpt edit -i", shows: /./ },
  summarize: { line: "jpt summarize --dry-run", shows: /batch 1/ },
  completions: { line: "jpt completions bash", shows: /complete/ },
  config: { line: "jpt config show assistant.model.id", shows: /ollama/ },
  models: { line: "jpt models", shows: /context:/ },
  watch: { line: "jpt watch --once", shows: /./ },
  // Runs until stopped: driven in a browser by tests/cli/serve_test.ts.
  serve: { line: "jpt serve --help", shows: /Usage: jpt serve/ },
  worker: { line: "jpt worker --help", shows: /Usage: jpt worker/ },
  log: { line: "jpt log", shows: /./ },
  usage: { line: "jpt usage", shows: /./ },
  plugin: { line: "jpt plugin list --dir plugins", shows: /jp-turns/ },
  man: { line: "PAGER=cat jpt man", shows: /\.TH/ },
};

Deno.test("the per-command runs cover every command of the table", () => {
  assert.deepEqual(
    COMMANDS.map((entry) => entry.names[0]).sort(),
    Object.keys(RUNS).sort(),
  );
});

for (const [name, run] of Object.entries(RUNS)) {
  Deno.test({
    name: `jpt ${name} runs in a coloured terminal: ${run.line}`,
    ignore: !HAS_SCRIPT,
    async fn() {
      await using server = FakeLlm.start((request) =>
        request.body?.stream
          ? { stream: { pieces: ["Hello", " there."] } }
          : { json: chatCompletion(JSON.stringify({ titles: ["Greeting"] })) }
      );
      await using ws = await tempWorkspace();
      await copyConversation(
        testdata(
          "workspace",
          ".jp",
          "conversations",
          "17800000000-add-retry-backoff-to-the-stream-handler",
        ),
        ws.conversations,
      );
      await Deno.writeTextFile(
        join(ws.root, ".jp", "config.toml"),
        `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n[conversation.title.generate]\nauto = false\n`,
      );
      await Deno.writeTextFile(
        join(ws.root, ".jp", "jpt.toml"),
        "[conversation.turn_summary.generate]\nauto = false\n",
      );
      const { code, output } = await runInPty(run.line, {
        cwd: ws.root,
        env: ws.env,
      });
      assert.equal(code, 0, output);
      assert.doesNotMatch(output, /Uncaught|TypeError|stack/i, output);
      assert.match(output, run.shows, output);
      if (run.colour) assert.ok(output.includes(`${ESC}[`), "coloured");
    },
  });
}
