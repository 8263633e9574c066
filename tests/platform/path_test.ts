import assert from "node:assert/strict";
import * as posix from "node:path/posix";
import {
  basename,
  dirname,
  extname,
  isAbsolute,
  join,
  relative,
  resolve,
} from "../../src/platform/path.ts";

/** Paths built from the parts that trip path code up, every pair and triple. */
function samples(): string[] {
  const parts = [
    "",
    "/",
    "//",
    "a",
    "b/",
    ".",
    "..",
    "../x",
    "./y",
    "c.d",
    ".e",
    "f.tar.gz",
    "g..",
    "/h/",
    "i//j",
  ];
  const paths = new Set<string>();
  for (const a of parts) {
    for (const b of parts) {
      paths.add(a + b);
      for (const c of parts) paths.add(`${a}/${b}${c}`);
    }
  }
  return [...paths];
}

Deno.test({
  name: "path: every function gives node:path/posix's result",
  ignore: Deno.build.os === "windows", // there it is node:path itself
  fn() {
    const paths = samples();
    for (const path of paths) {
      assert.equal(dirname(path), posix.dirname(path), `dirname(${path})`);
      assert.equal(basename(path), posix.basename(path), `basename(${path})`);
      assert.equal(extname(path), posix.extname(path), `extname(${path})`);
      assert.equal(isAbsolute(path), posix.isAbsolute(path), path);
      assert.equal(join(path), posix.join(path), `join(${path})`);
      assert.equal(resolve(path), posix.resolve(path), `resolve(${path})`);
    }
    for (const a of paths.slice(0, 120)) {
      for (const b of paths.slice(0, 120)) {
        assert.equal(join(a, b), posix.join(a, b), `join(${a}, ${b})`);
        assert.equal(resolve(a, b), posix.resolve(a, b), `resolve(${a}, ${b})`);
        assert.equal(
          relative(a, b),
          posix.relative(a, b),
          `relative(${a}, ${b})`,
        );
      }
    }
    assert.equal(join(), posix.join());
    assert.equal(resolve(), posix.resolve());
  },
});
