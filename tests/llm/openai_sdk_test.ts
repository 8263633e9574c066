import assert from "node:assert/strict";
import {
  loadChatSdk,
  loadedSdkErrors,
  loadOpenAi,
} from "../../src/llm/openai_sdk.ts";
import { MAIN_TS, REPO_ROOT } from "../support/paths.ts";

interface GraphDependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

Deno.test("the OpenAI SDK is reached only through a dynamic import, so commands that call no model start without it", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", MAIN_TS],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: Array<{ specifier: string; dependencies?: GraphDependency[] }>;
  };
  const runtimeImports = graph.modules.flatMap((module) =>
    (module.dependencies ?? [])
      .filter((dependency) =>
        dependency.code?.specifier.startsWith("npm:openai") ?? false
      )
      .map((dependency) => ({ from: module.specifier, ...dependency }))
  );
  assert.ok(runtimeImports.length > 0, "the SDK is in the graph");
  for (const dependency of runtimeImports) {
    assert.ok(dependency.isDynamic, `${dependency.from} imports it statically`);
  }
});

Deno.test("loadChatSdk() and loadOpenAi() load once each and share the SDK's error classes", async () => {
  const chat = await loadChatSdk();
  assert.equal(await loadChatSdk(), chat);
  assert.equal(typeof chat.Stream.fromSSEResponse, "function");
  assert.equal(loadedSdkErrors()?.APIError, chat.APIError);
  const sdk = await loadOpenAi();
  assert.equal(await loadOpenAi(), sdk);
  // An error the full client throws is an instance of the classes chat
  // completions check against, and the other way round.
  assert.equal(sdk.APIError, chat.APIError);
  assert.equal(sdk.APIConnectionTimeoutError, chat.APIConnectionTimeoutError);
  assert.equal(sdk.APIUserAbortError, chat.APIUserAbortError);
});
