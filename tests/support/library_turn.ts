/**
 * A library user's script: imports the package by its name and runs one
 * turn whose background summary is still pending when the reply ends. Run
 * with `--deny-run`: starting any process would fail it.
 *
 * Arguments: the workspace root, then a JSON object of environment variables.
 *
 * @module
 */

import { runTurn } from "@jpt/cli/unstable";

const [root, envJson] = Deno.args;
const variables = JSON.parse(envJson!) as Record<string, string>;
const outcome = await runTurn({
  env: (name) => variables[name],
  cwd: root!,
  workspaceDir: root!,
  cfg: [],
  model: undefined,
  envVariables: variables,
}, {
  message: "a library question",
  newConversation: false,
  persist: true,
  signal: new AbortController().signal,
  detach: true,
  drainBudgetMs: 200,
  drainGraceMs: 100,
}, { text: () => {}, reasoning: () => {}, log: () => {} });
console.log(
  JSON.stringify({
    status: outcome.status,
    drain: outcome.drain,
    worker: outcome.worker,
  }),
);
