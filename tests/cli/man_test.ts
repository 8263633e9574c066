import assert from "node:assert/strict";
import { commandPaths } from "../../src/cli/program.ts";
import { runJpt } from "../support/cli.ts";

Deno.test("jpt man is a roff page that names every command and option, with ENVIRONMENT and EXIT STATUS", async () => {
  const { code, stdout } = await runJpt(["man"]);
  assert.equal(code, 0);
  assert.match(stdout, /^\.TH JPT 1 /);
  for (const path of await commandPaths()) {
    assert.ok(
      stdout.includes(`.SS "jpt ${path.join(" ").replaceAll("-", "\\-")}`),
      `names jpt ${path.join(" ")}`,
    );
  }
  for (
    const flag of [
      "\\-\\-force\\-user",
      "\\-\\-format <format>",
      "\\-\\-since <date>",
    ]
  ) {
    assert.ok(stdout.includes(flag), flag);
  }
  assert.match(stdout, /^\.SH ENVIRONMENT$/m);
  assert.match(stdout, /^\.B JPT_DATA_DIR$/m);
  assert.match(stdout, /^\.SH EXIT STATUS$/m);
  assert.match(stdout, /^\.B 130$/m);
});

Deno.test("every JPT_* variable the code reads is in --help and the README", async () => {
  const read = new Set<string>();
  for await (
    const file of walk(new URL("../../src/", import.meta.url).pathname)
  ) {
    for (
      const match of (await Deno.readTextFile(file)).matchAll(
        /"(JPT_[A-Z_]+)"/g,
      )
    ) {
      read.add(match[1]!);
    }
  }
  // Prefixes and the worker's private channel are no variables a user sets.
  read.delete("JPT_CFG_");
  read.delete("JPT_WORKER_CFG");
  const help = (await runJpt(["--help"])).stdout;
  const readme = await Deno.readTextFile(
    new URL("../../README.md", import.meta.url),
  );
  for (const name of read) {
    assert.ok(help.includes(name), `${name} in --help`);
    assert.ok(readme.includes(name), `${name} in the README`);
  }
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}
