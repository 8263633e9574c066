import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ConfigFileError,
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
