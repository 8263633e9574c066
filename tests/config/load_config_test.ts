import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load_config.ts";
import { getPath } from "../../src/config/config_tree.ts";
import { ConfigRangeError } from "../../src/config/validate_values.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { tempWorkspace } from "../support/workspace.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("loadConfig() applies jp's layers in order, later winning, with origins", async () => {
  await using ws = await tempWorkspace("lay01");
  const globalDir = join(ws.userData, "global");
  const silo = join(ws.userData, "data", "workspace", "project-lay01");
  const sub = join(ws.root, "sub", "deeper");
  await Deno.mkdir(globalDir, { recursive: true });
  await Deno.mkdir(silo, { recursive: true });
  await Deno.mkdir(sub, { recursive: true });
  const key = (name: string) => `[probe]\n${name} = "${name}"\n`;
  // Each layer sets its own key and overrides `winner`.
  await Deno.writeTextFile(
    join(globalDir, "config.toml"),
    key("global") + 'winner = "global"\n',
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    key("workspace") + 'winner = "workspace"\n',
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp.toml"),
    key("root_dir") + 'winner = "root_dir"\n',
  );
  await Deno.writeTextFile(
    join(ws.root, "sub", ".jp.json"),
    '{"probe": {"sub_dir": "sub_dir", "winner": "sub_dir"}}',
  );
  await Deno.writeTextFile(
    join(silo, "config.toml"),
    key("user_local") + 'winner = "user_local"\n',
  );
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  const vars = {
    JP_GLOBAL_CONFIG_DIR: globalDir,
    JP_USER_DATA_DIR: join(ws.userData, "data"),
  };
  const workspace = await Workspace.open(ws.root, env(vars));
  const stream = ConversationStream.parse(encode(JSON.stringify([
    {
      type: "config_delta",
      timestamp: "2026-01-01 00:00:00.0",
      delta: { probe: { conversation: "delta" } },
    },
  ])));
  const options = {
    env: env(vars),
    envVariables: {
      ...vars,
      JP_CFG_PROBE_ENV: "env",
      JP_CFG_PROBE_WINNER: "env",
    },
    cwd: sub,
    workspace,
    conversation: {
      id: "17",
      baseConfig: { probe: { base: "base", winner: "conversation" } },
      stream,
    },
  };
  const config = await loadConfig(options);
  const probe = getPath(config.values, ["probe"]);
  assert.deepEqual(probe, {
    global: "global",
    winner: "conversation",
    workspace: "workspace",
    root_dir: "root_dir",
    sub_dir: "sub_dir",
    user_local: "user_local",
    env: "env",
    base: "base",
    conversation: "delta",
  });
  assert.match(
    config.origins.get("probe.global")!,
    /^user-global \(.*global\/config\.toml\)$/,
  );
  assert.match(
    config.origins.get("probe.sub_dir")!,
    /^directory \(.*sub\/\.jp\.json\)$/,
  );
  assert.equal(config.origins.get("probe.env"), "env JP_CFG_PROBE_ENV");
  assert.equal(config.origins.get("probe.winner"), "conversation jp-c17");

  const flagged = await loadConfig({
    ...options,
    cfg: ["probe.winner=flag"],
    model: "ollama/x",
  });
  assert.equal(getPath(flagged.values, ["probe", "winner"]), "flag");
  assert.equal(flagged.origins.get("probe.winner"), "--cfg probe.winner=flag");
  assert.equal(
    getPath(flagged.values, ["assistant", "model", "id"]),
    "ollama/x",
  );
  assert.equal(flagged.origins.get("assistant.model.id"), "--model");
});

Deno.test("loadConfig() starts from RFD 126's defaults", async () => {
  await using ws = await tempWorkspace();
  const config = await loadConfig({
    env: () => undefined,
    envVariables: {},
    cwd: ws.root,
    workspace: undefined,
  });
  assert.deepEqual(
    getPath(config.values, ["conversation", "turn_summary", "generate"]),
    { auto: true, batch_size: 5, detach: true },
  );
  assert.equal(
    config.origins.get("conversation.turn_summary.generate.batch_size"),
    "default",
  );
});

Deno.test("the conversation layer reads legacy deltas, unsets and resets", async () => {
  await using ws = await tempWorkspace();
  const stream = ConversationStream.parse(encode(JSON.stringify([
    {
      type: "config_delta",
      timestamp: "t",
      inherit: true,
      assistant: { model: { id: "google" } },
    },
    { timestamp: "t", type: "chat_request", content: "x" },
    {
      type: "config_delta",
      timestamp: "t",
      delta: { assistant: { name: "A" } },
      unsets: ["assistant.model"],
    },
  ])));
  const base = {
    env: () => undefined,
    envVariables: {},
    cwd: ws.root,
    workspace: undefined,
  };
  const g0 = await loadConfig({
    ...base,
    conversation: { id: "1", baseConfig: undefined, stream },
  });
  assert.equal(getPath(g0.values, ["assistant", "name"]), "A");
  assert.equal(
    getPath(g0.values, ["assistant", "model"]),
    undefined,
    "unsets clear a path before the merge",
  );
  assert.equal(
    getPath(g0.values, ["inherit"]),
    true,
    "G0 flattened fields are the base config",
  );
  const reset = ConversationStream.parse(encode(JSON.stringify([
    {
      type: "config_delta",
      timestamp: "t",
      delta: { assistant: { name: "B" } },
    },
    { type: "config_delta", op: "reset", timestamp: "t" },
    {
      type: "config_delta",
      timestamp: "t",
      delta: { assistant: { system_prompt: "p" } },
    },
  ])));
  const afterReset = await loadConfig({
    ...base,
    conversation: { id: "1", baseConfig: { style: {} }, stream: reset },
  });
  assert.equal(getPath(afterReset.values, ["assistant", "name"]), undefined);
  assert.equal(getPath(afterReset.values, ["assistant", "system_prompt"]), "p");
});

Deno.test("loadConfig() pulls in extends globs after the declaring file", async () => {
  await using ws = await tempWorkspace();
  const jp = join(ws.root, ".jp");
  await Deno.mkdir(join(jp, "config.d", "nested"), { recursive: true });
  await Deno.writeTextFile(
    join(jp, "config.toml"),
    '[assistant]\nname = "main"\nsystem_prompt = "main"\n',
  );
  await Deno.writeTextFile(
    join(jp, "config.d", "a.toml"),
    '[assistant]\nname = "a"\n',
  );
  await Deno.writeTextFile(
    join(jp, "config.d", "nested", "b.json"),
    '{"assistant": {"name": "b"}}',
  );
  await Deno.writeTextFile(join(jp, "config.d", "notes.txt"), "ignored");
  const workspace = await Workspace.open(ws.root, () => undefined);
  const config = await loadConfig({
    env: () => undefined,
    envVariables: {},
    cwd: ws.root,
    workspace,
  });
  assert.equal(getPath(config.values, ["assistant", "name"]), "b");
  assert.equal(getPath(config.values, ["assistant", "system_prompt"]), "main");
  assert.match(config.origins.get("assistant.name")!, /nested\/b\.json\)$/);
});

Deno.test("--cfg reads files, named configs from config_load_paths, and JSON objects", async () => {
  await using ws = await tempWorkspace();
  await Deno.mkdir(join(ws.root, "personas"));
  await Deno.writeTextFile(
    join(ws.root, "personas", "dev.toml"),
    '[assistant]\nname = "dev"\n',
  );
  await Deno.writeTextFile(
    join(ws.root, "extra.json"),
    '{"assistant": {"system_prompt": "extra"}}',
  );
  const workspace = await Workspace.open(ws.root, () => undefined);
  const config = await loadConfig({
    env: () => undefined,
    envVariables: {},
    cwd: ws.root,
    workspace,
    cfg: [
      'config_load_paths:=["personas"]',
      "dev",
      "@extra.json",
      '{"style": {"x": 1}}',
      "extends+=more/*",
    ],
  });
  assert.equal(getPath(config.values, ["assistant", "name"]), "dev");
  assert.equal(getPath(config.values, ["assistant", "system_prompt"]), "extra");
  assert.deepEqual(getPath(config.values, ["style"]), { x: 1 });
  assert.deepEqual(getPath(config.values, ["extends"]), ["more/*"]);
  await assert.rejects(
    loadConfig({
      env: () => undefined,
      envVariables: {},
      cwd: ws.root,
      workspace,
      cfg: ["missing"],
    }),
    /Cannot read config "missing": no such file, and config_load_paths is empty/,
  );
});

Deno.test("loadConfig() rejects a batch_size of 0 and a negative context window, naming the key and the file", async () => {
  await using ws = await tempWorkspace();
  const path = join(ws.root, ".jp", "config.toml");
  for (
    const [text, key] of [
      [
        "[conversation.turn_summary.generate]\nbatch_size = 0\n",
        "conversation.turn_summary.generate.batch_size",
      ],
      [
        "[providers.llm.ollama]\ncontext_window = -5\n",
        "providers.llm.ollama.context_window",
      ],
      [
        '[assistant.model]\nid = "ollama/x"\ncontext_window = 1.5\n',
        "assistant.model.context_window",
      ],
    ]
  ) {
    await Deno.writeTextFile(path, text!);
    await assert.rejects(
      loadConfig({
        env: () => undefined,
        envVariables: {},
        cwd: ws.root,
        workspace: await Workspace.open(ws.root, () => undefined),
      }),
      (error: Error) => {
        assert.ok(error instanceof ConfigRangeError, String(error));
        assert.equal(error.key, key);
        assert.ok(error.message.includes(path), error.message);
        return true;
      },
    );
  }
});

Deno.test("as a jp plugin: init.config replaces jp's files, init.options win over .jp/jpt.toml, and trust still comes from the user's own files", async () => {
  await using ws = await tempWorkspace("host1");
  const globalDir = join(ws.userData, "global");
  await Deno.mkdir(globalDir, { recursive: true });
  // The user's own config sets where openai is reached.
  await Deno.writeTextFile(
    join(globalDir, "config.toml"),
    '[providers.llm.openai]\nbase_url = "https://mine.example/v1"\n',
  );
  // jp's files, which init.config already holds resolved: not read again.
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    '[assistant.model]\nid = "ollama/from-file"\n',
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    "[conversation.turn_summary.generate]\nbatch_size = 7\ncontext_window = 4000\n",
  );
  const env: Record<string, string> = {
    JP_GLOBAL_CONFIG_DIR: globalDir,
    JP_CFG_ASSISTANT_MODEL_ID: "ollama/from-env",
  };
  const workspace = await Workspace.open(ws.root, (name) => env[name]);
  const load = (trusted: boolean) =>
    loadConfig({
      env: (name) =>
        name === "JPT_TRUSTED_WORKSPACES" && trusted ? ws.root : env[name],
      envVariables: env,
      cwd: ws.root,
      workspace,
      host: {
        plugin: "summarize",
        config: {
          assistant: { model: { id: "anthropic/from-jp" } },
          providers: {
            llm: {
              openai: { base_url: "https://mine.example/v1" },
              anthropic: { base_url: "https://elsewhere.example" },
            },
          },
        },
        options: {
          conversation: { turn_summary: { generate: { batch_size: 2 } } },
        },
      },
    });
  const loaded = await load(false);
  const at = (path: string) => getPath(loaded.values, path.split("."));
  // jp already applied its files and JP_CFG_* variables into init.config.
  assert.equal(at("assistant.model.id"), "anthropic/from-jp");
  assert.equal(
    loaded.origins.get("assistant.model.id"),
    "jp (plugin init.config)",
  );
  // Options win over .jp/jpt.toml; what they leave alone still comes from it.
  assert.equal(at("conversation.turn_summary.generate.batch_size"), 2);
  assert.equal(at("conversation.turn_summary.generate.context_window"), 4000);
  assert.deepEqual(loaded.warnings, []);
  // Trust: what the user's own file set is trusted; what only jp's resolved
  // config (which holds the workspace's files) set is not.
  const { configProvenance } = await import(
    "../../src/config/config_trust.ts"
  );
  const provenance = configProvenance(loaded.values)!;
  assert.equal(
    getPath(provenance.trusted, ["providers", "llm", "openai", "base_url"]),
    "https://mine.example/v1",
  );
  assert.equal(
    getPath(provenance.trusted, ["providers", "llm", "anthropic", "base_url"]),
    undefined,
  );
  assert.ok(provenance.isUntrusted("jp (plugin init.config)"));
  const trustedRun = configProvenance((await load(true)).values)!;
  assert.ok(!trustedRun.isUntrusted("jp (plugin init.config)"));
});
