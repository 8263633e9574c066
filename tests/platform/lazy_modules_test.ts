import assert from "node:assert/strict";
import {
  importLazily,
  type LazyPath,
  registerLazyModules,
} from "../../src/platform/lazy_import.ts";
import { LAZY_MODULES } from "../../lazy_modules.ts";

const SRC = new URL("../../src/", import.meta.url);

/** Every path the sources under `dir` hand to importLazily. */
async function pathsAskedFor(dir: URL, asked = new Set<string>()) {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      await pathsAskedFor(new URL(`${entry.name}/`, dir), asked);
    } else if (entry.name.endsWith(".ts")) {
      const text = await Deno.readTextFile(new URL(entry.name, dir));
      // importLazily("path"), and the command table's command([names], "path").
      const calls = [
        ...text.matchAll(/importLazily(?:<[^>]*>)?\(\s*"([^"]+)"/g),
        ...text.matchAll(/\bcommand\(\s*\[[^\]]*\],\s*"([^"]+)"/g),
      ];
      for (const match of calls) asked.add(match[1]!);
    }
  }
  return asked;
}

Deno.test("lazy_modules.ts registers exactly the modules the sources load lazily", async () => {
  const asked = await pathsAskedFor(SRC);
  assert.ok(asked.size > 40, `only ${asked.size} lazy imports found`);
  assert.deepEqual(
    [...asked].sort(),
    Object.keys(LAZY_MODULES).sort(),
  );
});

Deno.test("a registered module is the very module its path loads, and registration is used", async () => {
  const paths = Object.keys(LAZY_MODULES) as LazyPath[];
  const byPath = await Promise.all(paths.map((path) => importLazily(path)));
  const used: string[] = [];
  registerLazyModules(
    Object.fromEntries(
      Object.entries(LAZY_MODULES).map(([path, load]) => [path, () => {
        used.push(path);
        return load();
      }]),
    ),
  );
  try {
    const registered = await Promise.all(
      paths.map((path) => importLazily(path)),
    );
    assert.deepEqual(used, paths);
    for (const [index, namespace] of registered.entries()) {
      assert.equal(namespace, byPath[index], paths[index]);
    }
  } finally {
    registerLazyModules(undefined);
  }
});

Deno.test("importLazily fails for a path that is no module of src/", async () => {
  await assert.rejects(() => importLazily("app/no_such_flow.ts" as LazyPath));
});

Deno.test("importLazily loads a module once, and a failed load is tried again", async () => {
  let calls = 0;
  const module = { name: "flow" };
  // A path no module has: registered by hand, as a single-file build does.
  const flaky = "app/flaky_flow.ts" as LazyPath;
  registerLazyModules({
    [flaky]: () =>
      ++calls === 1
        ? Promise.reject(new Error("not yet"))
        : Promise.resolve(module),
  });
  try {
    await assert.rejects(() => importLazily(flaky), /not yet/);
    const [first, second] = await Promise.all([
      importLazily(flaky),
      importLazily(flaky),
    ]);
    assert.equal(first, module);
    assert.equal(second, module);
    assert.equal(await importLazily(flaky), module);
    assert.equal(calls, 2, "one failed load, then one that is kept");
  } finally {
    registerLazyModules(undefined);
  }
});
