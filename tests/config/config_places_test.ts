import assert from "node:assert/strict";
import { join } from "node:path";
import {
  configCouldSet,
  type ConfigSources,
  userConfigPlaces,
  workspaceConfigPlaces,
} from "../../src/config/config_places.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { tempWorkspace } from "../support/workspace.ts";

Deno.test("configCouldSet() is false only when no source could set the key", async () => {
  await using ws = await tempWorkspace();
  const env = (name: string) => ws.env[name];
  const workspace = await Workspace.open(ws.root, env);
  const sources = (more: Partial<ConfigSources> = {}): ConfigSources => ({
    env,
    envVariables: ws.env,
    cwd: ws.root,
    workspace,
    ...more,
  });
  const config = join(ws.root, ".jp", "config.toml");
  assert.equal(await configCouldSet(sources(), "default_id"), false);
  await Deno.writeTextFile(config, `[assistant.model]\nid = "ollama/x"\n`);
  assert.equal(await configCouldSet(sources(), "default_id"), false);

  // Each way a value can arrive makes it true.
  const could = (more: Partial<ConfigSources>) =>
    configCouldSet(sources(more), "default_id");
  assert.equal(await could({ cfg: ["assistant.model.id=x"] }), true);
  assert.equal(await could({ host: {} }), true);
  assert.equal(
    await could({ envVariables: { ...ws.env, JPT_CFG_FOO: "1" } }),
    true,
  );
  await Deno.writeTextFile(config, `[conversation]\ndefault_id = "last"\n`);
  assert.equal(await could({}), true);
  await Deno.writeTextFile(config, `extends = ["more/*.toml"]\n`);
  assert.equal(await could({}), true);
  // A key spelled with an escape is not read by its text: assume it could.
  await Deno.writeTextFile(
    config,
    `[conversation]\n"default\\u005fid" = "x"\n`,
  );
  assert.equal(await could({}), true);
  await Deno.writeTextFile(config, `[assistant.model]\nid = "ollama/x"\n`);
  await Deno.mkdir(join(ws.root, ".jp", "config.d"));
  assert.equal(await could({}), true);
  await Deno.remove(join(ws.root, ".jp", "config.d"));
  // A .jp.toml on the way from the root to the working directory.
  const sub = join(ws.root, "src");
  await Deno.mkdir(sub);
  await Deno.writeTextFile(join(sub, ".jp.json"), `{"default_id": "x"}`);
  assert.equal(await could({}), false);
  assert.equal(await could({ cwd: sub }), true);
});

Deno.test("the config places keep jp's order and trust", async () => {
  await using ws = await tempWorkspace();
  const env = (name: string) => ws.env[name];
  const workspace = await Workspace.open(ws.root, env);
  const user = userConfigPlaces(env);
  assert.deepEqual(user.map((place) => [place.label, place.readByJp]), [
    ["user-global", true],
    ["jpt user", false],
  ]);
  const sub = join(ws.root, "a");
  const untrusted = workspaceConfigPlaces(workspace, sub, []);
  assert.deepEqual(
    untrusted.map((place) => [place.label, place.base, place.trusted]),
    [
      ["workspace", join(ws.root, ".jp", "config"), false],
      ["workspace jpt", join(ws.root, ".jp", "jpt"), false],
      ["directory", join(ws.root, ".jp"), false],
      ["directory", join(sub, ".jp"), false],
      ...(workspace.userDir === undefined
        ? []
        : [["user-local", join(workspace.userDir, "config"), true]]),
    ],
  );
  // Trusting the workspace trusts its .jp/ and root, not every folder.
  const trusted = workspaceConfigPlaces(workspace, sub, [ws.root]);
  assert.deepEqual(trusted.slice(0, 4).map((place) => place.trusted), [
    true,
    true,
    true,
    false,
  ]);
});
