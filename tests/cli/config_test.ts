import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import { tempWorkspace } from "../support/workspace.ts";

Deno.test("jpt models --json follows the resolution chain as config is added", async () => {
  await using ws = await tempWorkspace();
  const config = join(ws.root, ".jp", "config.toml");
  const models = async () => {
    const result = await runJpt(["models", "--json"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  };
  await Deno.writeTextFile(config, '[assistant.model]\nid = "openai/x"\n');
  let report = await models();
  assert.equal(report.turn_summary.id, "openai/x");
  assert.deepEqual(report.turn_summary.reasoning, {
    effort: "low",
    exclude: true,
  });
  assert.equal(report.assistant.reasoning, null);
  assert.deepEqual(Object.keys(report.turn_summary).slice(0, 8), [
    "id",
    "provider",
    "name",
    "base_url",
    "api_key_env",
    "api_key_set",
    "reasoning",
    "context_window",
  ]);
  assert.equal(report.turn_summary.api_key_env, "OPENAI_API_KEY");
  assert.equal(report.turn_summary.api_key_set, false);

  await Deno.writeTextFile(
    config,
    '\n[conversation.title.generate.model]\nid = "ollama/llama3.2:3b"\n',
    { append: true },
  );
  report = await models();
  assert.equal(report.title.id, "ollama/llama3.2:3b");
  assert.equal(report.turn_summary.id, "ollama/llama3.2:3b");
  assert.equal(report.turn_summary.source, "conversation.title.generate.model");

  await Deno.writeTextFile(
    config,
    '\n[conversation.turn_summary.generate.model]\nid = "llamacpp/qwen3"\n',
    { append: true },
  );
  report = await models();
  assert.equal(report.turn_summary.id, "llamacpp/qwen3");
  assert.equal(report.title.id, "ollama/llama3.2:3b");
  assert.deepEqual(report.turn_summary.reasoning, {
    effort: "low",
    exclude: true,
  });
});

Deno.test("jpt models shows a set key without printing it", async () => {
  await using ws = await tempWorkspace();
  const result = await runJpt([
    "--model",
    "anthropic/claude-haiku-4-5",
    "models",
  ], {
    cwd: ws.root,
    env: { ...ws.env, ANTHROPIC_API_KEY: "sk-ant-very-secret" },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /api key: {4}ANTHROPIC_API_KEY \(set\)/);
  assert.ok(
    !result.stdout.includes("very-secret") &&
      !result.stderr.includes("very-secret"),
  );
});

Deno.test("jpt models shows a hosted model's listed context window and where it came from", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "anthropic/claude-opus-4-6"\n`,
  );
  const result = await runJpt(["models"], { cwd: ws.root, env: ws.env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /context: {4}200000 tokens \(table\)/);
  const json = await runJpt(["models", "--json"], {
    cwd: ws.root,
    env: ws.env,
  });
  const roles = JSON.parse(json.stdout);
  assert.equal(roles.assistant.context_window, 200000);
  assert.equal(roles.assistant.context_window_source, "table");
});

Deno.test("jpt config show prints defaults, keys and origins", async () => {
  await using ws = await tempWorkspace();
  const empty = await runJpt([
    "config",
    "show",
    "conversation.turn_summary.generate",
    "--json",
  ], { cwd: ws.root, env: ws.env });
  assert.equal(empty.code, 0, empty.stderr);
  assert.deepEqual(JSON.parse(empty.stdout), {
    auto: true,
    batch_size: 5,
    // The test environment turns the detached worker off (ISOLATED).
    detach: false,
  });

  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    "[conversation.turn_summary.generate]\nbatch_size = 2\n[mystery]\nkey = 1\n",
  );
  const origin = await runJpt([
    "config",
    "show",
    "conversation.turn_summary",
    "--origin",
  ], {
    cwd: ws.root,
    env: { ...ws.env, JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_AUTO: "false" },
  });
  assert.equal(origin.code, 0, origin.stderr);
  assert.equal(
    origin.stdout,
    "conversation.turn_summary.generate.auto = false  # env JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_AUTO\n" +
      `conversation.turn_summary.generate.batch_size = 2  # workspace (${
        join(ws.root, ".jp", "config.toml")
      })\n` +
      "conversation.turn_summary.generate.detach = false  # env JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH\n",
  );
  const all = await runJpt(["config", "show"], { cwd: ws.root, env: ws.env });
  assert.match(
    all.stderr,
    /warning: unknown config key "mystery" \(kept, not used by jpt\)/,
  );
  assert.match(all.stdout, /^mystery\.key = 1$/m);
  const missing = await runJpt(["config", "show", "assistant.model.id"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /config key "assistant.model.id" is not set/);
});

Deno.test("config errors name the cause; --cfg mistakes are usage errors", async () => {
  await using ws = await tempWorkspace();
  const config = join(ws.root, ".jp", "config.toml");
  await Deno.writeTextFile(
    config,
    '[assistant.model]\nid = "openai/x"\nbroken = [\n',
  );
  const toml = await runJpt(["models"], { cwd: ws.root, env: ws.env });
  assert.equal(toml.code, 1);
  assert.match(
    toml.stderr,
    new RegExp(
      `error: Cannot read config "${
        config.replaceAll("/", "\\/")
      }": line 4, column 1: `,
    ),
  );

  await Deno.writeTextFile(
    config,
    '[assistant.model]\nid = "a"\n[providers.llm.aliases]\na = "b"\nb = "a"\n',
  );
  const cycle = await runJpt(["models"], { cwd: ws.root, env: ws.env });
  assert.equal(cycle.code, 1);
  assert.match(
    cycle.stderr,
    /error: assistant\.model: Model alias cycle: a -> b -> a/,
  );

  const provider = await runJpt(["--model", "acme/x", "models"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(provider.code, 1);
  assert.match(
    provider.stderr,
    /Unknown provider "acme" in model id "acme\/x"/,
  );

  const usage = await runJpt([
    "--cfg",
    "conversation.turn_summary.generate.batch_size=many",
    "config",
    "show",
  ], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /expected an integer, got "many"/);

  const env = await runJpt(["config", "show"], {
    cwd: ws.root,
    env: { ...ws.env, JP_CFG_CONVERSATION_TITLE_GENERATE_AUTO: "yes" },
  });
  assert.equal(env.code, 1);
  assert.match(
    env.stderr,
    /Invalid environment variable JP_CFG_CONVERSATION_TITLE_GENERATE_AUTO/,
  );
});
