import assert from "node:assert/strict";
import { jptCommand, workerArgs } from "../../src/cli/hand_off.ts";
import { JPT_PERMISSIONS } from "../../src/cli/jpt_permissions.ts";

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

Deno.test("the worker runs with jpt's permissions, not -A, whatever the query was given", () => {
  assert.deepEqual(jptCommand("/usr/bin/deno", "file:///opt/jpt/cli.js"), [
    "/usr/bin/deno",
    "run",
    "--quiet",
    ...JPT_PERMISSIONS,
    "file:///opt/jpt/cli.js",
  ]);
  assert.ok(
    !JPT_PERMISSIONS.some((flag) => flag === "-A" || flag === "--allow-all"),
  );
  assert.ok(!JPT_PERMISSIONS.includes("--allow-ffi"));
  // A compiled binary carries its own permissions.
  assert.deepEqual(jptCommand("/usr/local/bin/jpt", "file:///ignored"), [
    "/usr/local/bin/jpt",
  ]);
});
