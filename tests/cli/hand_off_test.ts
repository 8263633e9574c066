import assert from "node:assert/strict";
import { workerArgs } from "../../src/cli/hand_off.ts";

Deno.test("a worker's command line carries no --cfg value (a password in a base URL stays off it)", () => {
  const args = workerArgs({
    env: () => undefined,
    cwd: "/w",
    workspaceDir: undefined,
    cfg: [
      "providers.llm.openai.base_url=https://me:s3cret-pw@proxy.example/v1",
    ],
    model: "openai/gpt-5-mini",
    envVariables: {},
  }, {
    conversation: "17800000000",
    workspace: "/w",
    title: true,
    maxTurns: 5,
    turnsBefore: 3,
  });
  assert.ok(!args.join(" ").includes("s3cret"), args.join(" "));
  assert.ok(!args.includes("--cfg"));
  assert.deepEqual(args, [
    "--workspace",
    "/w",
    "--model",
    "openai/gpt-5-mini",
    "worker",
    "--id",
    "17800000000",
    "--max-turns",
    "5",
    "--before",
    "3",
    "--title",
  ]);
});
