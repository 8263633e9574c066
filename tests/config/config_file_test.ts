import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ConfigFileError,
  expandGlob,
  globRoot,
  parseConfigFile,
} from "../../src/config/config_file.ts";

Deno.test("parseConfigFile() names the file, line and column of a TOML error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "config.toml");
    await Deno.writeTextFile(path, '[assistant]\nname = "ok"\nmodel = [\n');
    await assert.rejects(parseConfigFile(path), (error) => {
      assert.ok(error instanceof ConfigFileError);
      assert.match(
        error.message,
        new RegExp(
          `^Cannot read config "${
            path.replaceAll("/", "\\/")
          }": line 4, column 1: `,
        ),
      );
      return true;
    });
    const json = join(dir, "config.json");
    await Deno.writeTextFile(json, '{\n  "a": 1,\n  "b": }\n');
    await assert.rejects(
      parseConfigFile(json),
      /config\.json": line 3, column 8: /,
    );
    const yaml = join(dir, "config.yaml");
    await Deno.writeTextFile(yaml, "a: 1\n");
    await assert.rejects(
      parseConfigFile(yaml),
      /"\.yaml" config files are not supported by jpt/,
    );
    await Deno.writeTextFile(json, "[1]");
    await assert.rejects(
      parseConfigFile(json),
      /the top level must be a table/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("globRoot() starts the walk below the pattern's literal directories", () => {
  assert.equal(globRoot("/w/.jp", "config.d/**/*"), "/w/.jp/config.d");
  assert.equal(globRoot("/w/.jp", "a/b/*.toml"), "/w/.jp/a/b");
  assert.equal(globRoot("/w/.jp", "a/*/c/*.toml"), "/w/.jp/a");
  assert.equal(globRoot("/w/.jp", "**/*.toml"), "/w/.jp");
  assert.equal(globRoot("/w/.jp", "one.toml"), "/w/.jp");
});

Deno.test("expandGlob() finds nested drop-ins and nothing outside the pattern's directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "config.d", "deep"), { recursive: true });
    await Deno.mkdir(join(dir, "conversations", "config.d"), {
      recursive: true,
    });
    for (
      const file of [
        "config.d/a.toml",
        "config.d/deep/b.toml",
        "conversations/config.d/c.toml",
        "top.toml",
      ]
    ) await Deno.writeTextFile(join(dir, file), "");
    assert.deepEqual(await expandGlob(dir, "config.d/**/*"), [
      join(dir, "config.d", "a.toml"),
      join(dir, "config.d", "deep", "b.toml"),
    ]);
    assert.deepEqual(await expandGlob(dir, "**/*.toml"), [
      join(dir, "config.d", "a.toml"),
      join(dir, "config.d", "deep", "b.toml"),
      join(dir, "conversations", "config.d", "c.toml"),
      join(dir, "top.toml"),
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
