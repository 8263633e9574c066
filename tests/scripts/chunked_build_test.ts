import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildChunked,
  deferChunkImports,
  importCycle,
} from "../../scripts/chunked_build.ts";
import { runJpt } from "../support/cli.ts";
import { testdata } from "../support/paths.ts";

Deno.test("deferChunkImports rewrites every lazily loaded chunk and nothing else", () => {
  const source = [
    'import { a } from "./chunk-AB.js";',
    'export * from "./chunk-CD.js";',
    'const m = { turns: () => import("./turns-EF.js"), check: () => import("./check-GH.js") };',
    'const crypto = await import("node:crypto");',
    "const text = 'import(\"x\")';",
  ].join("\n");
  const { source: rewritten, chunks } = deferChunkImports(source);
  assert.deepEqual(chunks, ["./turns-EF.js", "./check-GH.js"]);
  assert.equal(
    rewritten,
    [
      'import { a } from "./chunk-AB.js";',
      'export * from "./chunk-CD.js";',
      'const m = { turns: () => import(new URL("./turns-EF.js", import.meta.url).href), check: () => import(new URL("./check-GH.js", import.meta.url).href) };',
      'const crypto = await import("node:crypto");',
      "const text = 'import(\"x\")';",
    ].join("\n"),
  );
});

Deno.test("importCycle finds a cycle of static imports between a build's files, and only static ones", () => {
  const files = new Map([
    ["cli.js", 'import{a as c}from"./chunk-A.js";import"./chunk-B.js";'],
    ["chunk-A.js", 'import"./chunk-B.js";export{x as a};'],
    [
      "chunk-B.js",
      'const l=()=>import(new URL("./cli.js",import.meta.url).href);',
    ],
  ]);
  assert.equal(importCycle(files), undefined);
  files.set("chunk-B.js", 'import{a}from"./chunk-A.js";');
  assert.deepEqual(importCycle(files), [
    "chunk-A.js",
    "chunk-B.js",
    "chunk-A.js",
  ]);
});

Deno.test("the chunked build starts from a few files, loads each command's chunks when it runs, and prints what the sources print", async () => {
  const outDir = await Deno.makeTempDir({ prefix: "jpt-chunked-build-" });
  try {
    const files = await buildChunked(outDir);
    assert.ok(files.length > 50, `${files.length} files`);
    const sources = new Map<string, string>();
    for (const name of files) {
      const text = await Deno.readTextFile(join(outDir, name));
      assert.doesNotMatch(text, /\bimport\("\.\//, name);
      assert.doesNotMatch(text, /createRequire|node:module/, name);
      sources.set(name, text);
    }
    assert.equal(importCycle(sources), undefined);
    // Every function declaration became a let of the function in parentheses.
    const cli = sources.get("cli.js")!;
    assert.match(cli, /let \w+=\((async )?function \(/);
    assert.doesNotMatch(cli, /(^|[;}])(async )?function \w+\(/);
    // Deno's module graph at start: what cli.js imports statically.
    const info = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", join(outDir, "cli.js")],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(info.success, new TextDecoder().decode(info.stderr));
    const graph: string[] = JSON.parse(new TextDecoder().decode(info.stdout))
      .modules.map((module: { specifier: string }) => module.specifier)
      .filter((specifier: string) => specifier.startsWith("file:"));
    assert.ok(graph.length < 20, `${graph.length} modules at start`);
    assert.ok(
      !graph.some((specifier) =>
        /\/(turns|run_turn|check)-\w+\.js$/.test(specifier)
      ),
      graph.join("\n"),
    );
    const workspace = testdata("workspace");
    for (const args of [["turns", "-w", workspace], ["check", workspace]]) {
      const built = await runJpt(args, { entry: join(outDir, "cli.js") });
      const sources = await runJpt(args);
      assert.equal(built.code, 0, built.stderr);
      assert.equal(built.stdout, sources.stdout);
    }
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
});
