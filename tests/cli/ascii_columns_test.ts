import assert from "node:assert/strict";
import {
  allPrintableAscii,
  asciiColumns,
} from "../../src/cli/ascii_columns.ts";
import { columnsOf, fitColumns } from "../../src/cli/columns.ts";

Deno.test("asciiColumns measures and cuts printable ASCII exactly as string-width does", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let round = 0; round < 2000; round++) {
    const length = next() % 40;
    const text = Array.from(
      { length },
      () => String.fromCharCode(0x20 + next() % 95),
    ).join("");
    assert.ok(allPrintableAscii([text]));
    assert.equal(asciiColumns.columnsOf(text), columnsOf(text), text);
    for (const columns of [0, 1, 2, 5, length - 1, length, length + 3]) {
      if (columns < 0) continue;
      assert.equal(
        asciiColumns.fitColumns(text, columns),
        fitColumns(text, columns),
        `${JSON.stringify(text)} in ${columns}`,
      );
    }
  }
});

Deno.test("allPrintableAscii() is false for wide, accented or control characters", () => {
  assert.equal(allPrintableAscii(["plain", "", "~ ok !"]), true);
  for (const text of ["日本", "é", "tab\there", "\u001b[31m", "\u007f", "😀"]) {
    assert.equal(allPrintableAscii(["plain", text]), false, text);
  }
});
