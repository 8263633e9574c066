import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { FakeLlm } from "../support/fake_llm.ts";
import { REPO_ROOT } from "../support/paths.ts";
import { testSession, useFakeModel } from "../support/session.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

Deno.test("a script that imports the package and runs a turn with summaries pending starts no process", async () => {
  await using ws = await tempWorkspace();
  let release: () => void = () => {};
  const slow = new Promise<void>((resolve) => release = resolve);
  await using llm = FakeLlm.start(async (request) => {
    if (JSON.stringify(request.body).includes("summaries")) await slow;
    return { stream: { pieces: ["library reply"] } };
  });
  await useFakeModel(ws, llm.url);
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("t0", 2),
  );
  const variables = testSession(ws).envVariables;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--deny-run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      "--allow-sys",
      join(REPO_ROOT, "tests", "support", "library_turn.ts"),
      ws.root,
      JSON.stringify(variables),
    ],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  release();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.doesNotMatch(stderr, /run access|Requires run/i);
  const result = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(result.status, "ok");
  // Drained (aborted at the budget): no worker.
  assert.equal(result.worker, undefined);
  assert.deepEqual(result.drain.aborted, ["turn summaries of jp-c17800000000"]);
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  assert.equal(stream.turns().length, 3);
});
