import assert from "node:assert/strict";
import {
  hasControlCharacters,
  singleLine,
  stripControlCharacters,
} from "../../src/conversation/control_chars.ts";

const PIECES = [
  "word",
  " ",
  "\t",
  "\n",
  "\r\n",
  "\u2028",
  "\u0085",
  "\u001b[31m",
  "\u001b]0;title\u0007",
  "\u001b]8;;x\n",
  "\u009b2J",
  "\u0000",
  "\u007f",
  "\u202e",
  "\u2066",
  "é",
  "😀",
];

function randomText(seed: number): string {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) >>> 0);
  let text = "";
  for (let i = next() % 30; i > 0; i--) text += PIECES[next() % PIECES.length];
  return text;
}

Deno.test("singleLine() and stripControlCharacters() equal their plain definitions, with or without anything to remove", () => {
  // The definitions, written plainly (the functions skip the work when
  // there is nothing to remove).
  const strip = (text: string) =>
    text.replace(
      // deno-lint-ignore no-control-regex -- the definition
      /\u001b\[[0-?]*[ -/]*[@-~]?|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?|\u009b[0-?]*[ -/]*[@-~]?|\u009d[^\u0007\u009c]*[\u0007\u009c]?/g,
      "",
    ).replace(
      // deno-lint-ignore no-control-regex -- the definition
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
      "",
    );
  const line = (text: string) =>
    strip(text).replace(/[\t\n\r\u2028\u2029\u0085]+/g, " ");
  for (let seed = 1; seed <= 3000; seed++) {
    const text = randomText(seed);
    assert.equal(
      stripControlCharacters(text),
      strip(text),
      JSON.stringify(text),
    );
    assert.equal(singleLine(text), line(text), JSON.stringify(text));
    assert.equal(hasControlCharacters(text), strip(text) !== text);
  }
  assert.equal(singleLine("plain text"), "plain text");
});
