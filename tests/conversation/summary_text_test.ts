import assert from "node:assert/strict";
import {
  fallbackSummaryOf,
  normalizeTurnSummary,
} from "../../src/conversation/summary_text.ts";

Deno.test("normalizeTurnSummary() keeps the first non-empty line, collapsed", () => {
  assert.equal(
    normalizeTurnSummary("\n\n  Add   retry\tbackoff  \nSecond line"),
    "Add retry backoff",
  );
});

Deno.test("normalizeTurnSummary() removes quotes, Markdown and one trailing period", () => {
  const cases: Array<[string, string]> = [
    ['"Add retry backoff."', "Add retry backoff"],
    ["“Add retry backoff”", "Add retry backoff"],
    ["**Add retry backoff**", "Add retry backoff"],
    ["`Add retry backoff`", "Add retry backoff"],
    ["# Add retry backoff", "Add retry backoff"],
    ["- Add retry backoff", "Add retry backoff"],
    ["1. Add retry backoff", "Add retry backoff"],
    ["Summary: Add retry backoff", "Add retry backoff"],
    ["> 'Add retry backoff.'", "Add retry backoff"],
    ["Wait for it...", "Wait for it..."],
    ["Fix foo.ts", "Fix foo.ts"],
  ];
  for (const [input, expected] of cases) {
    assert.equal(normalizeTurnSummary(input), expected, input);
  }
});

Deno.test("normalizeTurnSummary() removes escape sequences and control characters", () => {
  assert.equal(
    normalizeTurnSummary("\u001b[31mRed\u001b[0m alert\u0007 \u202eevil"),
    "Red alert evil",
  );
  assert.equal(
    normalizeTurnSummary("\u001b]0;title\u0007Set title"),
    "Set title",
  );
});

Deno.test("normalizeTurnSummary() cuts to 60 code points at a word boundary", () => {
  const long =
    "Refactor the streaming event conversion so that Google responses map cleanly onto events";
  const result = normalizeTurnSummary(long)!;
  assert.ok(Array.from(result).length <= 60);
  assert.equal(
    result,
    "Refactor the streaming event conversion so that Google",
  );
  const word = "x".repeat(500);
  assert.equal(normalizeTurnSummary(word), "x".repeat(60));
  const emoji = "😀".repeat(70);
  assert.equal(normalizeTurnSummary(emoji), "😀".repeat(60));
});

Deno.test("normalizeTurnSummary() returns undefined for blank input", () => {
  for (const blank of ["", "   ", "\n\n", '""', "\u001b[0m", "**"]) {
    assert.equal(normalizeTurnSummary(blank), undefined, JSON.stringify(blank));
  }
});

Deno.test("fallbackSummaryOf() takes the first non-empty line, whitespace collapsed", () => {
  assert.equal(
    fallbackSummaryOf("\n \n  Fix   the\tbuild  \nplease"),
    "Fix the build",
  );
  assert.equal(fallbackSummaryOf("   \n\t"), undefined);
  assert.equal(fallbackSummaryOf(""), undefined);
  assert.equal(
    fallbackSummaryOf("\r\n\u2028 \r  Deploy it\r\nnow"),
    "Deploy it",
  );
  assert.equal(fallbackSummaryOf("\n\nlast line"), "last line");
});

Deno.test("fallbackSummaryOf() removes control characters before it looks for lines", () => {
  // An escape sequence spanning a line break goes with it, and NEL is a
  // C1 control character, not a break, once removed.
  assert.equal(
    fallbackSummaryOf("\u001b]0;title\nstill title\u0007Real line\nnext"),
    "Real line",
  );
  assert.equal(fallbackSummaryOf("one\u0085two\nthree"), "onetwo");
});

Deno.test("fallbackSummaryOf() keeps 72 code points and marks a cut with an ellipsis", () => {
  const exact = "a".repeat(72);
  assert.equal(fallbackSummaryOf(exact), exact);
  const cut = fallbackSummaryOf("a".repeat(73))!;
  assert.equal(cut, "a".repeat(71) + "…");
  const astral = fallbackSummaryOf("😀".repeat(100))!;
  assert.equal(Array.from(astral).length, 72);
  assert.equal(astral, "😀".repeat(71) + "…");
  assert.ok(
    !/[\ud800-\udbff]…/.test(astral),
    "no lone high surrogate before the ellipsis",
  );
});
