import assert from "node:assert/strict";
import {
  fallbackSummaryOf,
  normalizeTurnSummary,
} from "../../src/conversation/summary_text.ts";
import { stripControlCharacters } from "../../src/conversation/control_chars.ts";

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

Deno.test("normalizeTurnSummary() never drops characters inside the text (issue cases)", () => {
  for (
    const [input, expected] of [
      [
        "`parse_args` in __init__ calls `check_x`",
        "`parse_args` in __init__ calls `check_x`",
      ],
      ["`foo` calls `bar`", "`foo` calls `bar`"],
      ['"a" vs "b"', '"a" vs "b"'],
      ["__init__", "__init__"],
      ["**Fix the build**", "Fix the build"],
      ['"Fixed the\nparser crash."', "Fixed the parser crash"],
      ["`Fixed`", "Fixed"],
    ]
  ) assert.equal(normalizeTurnSummary(input!), expected, input);
});

Deno.test("normalizeTurnSummary() never leaves an unbalanced quote or backtick the model did not write", () => {
  const long = '"' + "word ".repeat(20) +
    'end" and `some code that runs long` tail';
  const result = normalizeTurnSummary(long)!;
  assert.equal((result.match(/"/g) ?? []).length % 2, 0, result);
  assert.equal((result.match(/`/g) ?? []).length % 2, 0, result);
});

/** Deterministic strings from an alphabet rich in the characters the rules care about. */
function* generated(count: number): Generator<string> {
  const alphabet = [
    ..."abcXYZ019 .,:;-_*`'\"“”‘’«»#>\n\t\r".split(""),
    "\u001b[31m",
    "\u0000",
    "\u202e",
    "😀",
    "é",
    "  ",
    "**",
    "__",
    "Summary: ",
    "1. ",
  ];
  let state = 2026;
  const next = () =>
    (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let i = 0; i < count; i++) {
    const length = Math.floor(next() * 90);
    let text = "";
    for (let k = 0; k < length; k++) {
      text += alphabet[Math.floor(next() * alphabet.length)];
    }
    yield text;
  }
}

Deno.test("normalizeTurnSummary() properties on 5,000 generated strings", () => {
  // deno-lint-ignore no-control-regex -- looking for control characters is the point
  const control = new RegExp(
    "[\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029]",
  );
  for (const text of generated(5_000)) {
    const once = normalizeTurnSummary(text);
    if (once === undefined) continue;
    assert.equal(
      normalizeTurnSummary(once),
      once,
      `idempotent: ${JSON.stringify(text)}`,
    );
    assert.ok(Array.from(once).length <= 60, JSON.stringify(once));
    assert.doesNotMatch(once, control, JSON.stringify(once));
    assert.equal(once, once.trim());
  }
});

Deno.test("normalizeTurnSummary() leaves a text that already satisfies the rules unchanged", () => {
  for (const text of generated(5_000)) {
    const candidate = text.replace(/[^a-zA-Z0-9 ,;:_`'"-]/g, "").replace(
      /\s+/g,
      " ",
    )
      .trim().slice(0, 60).trim();
    const satisfies = candidate !== "" && !/[.]$/.test(candidate) &&
      !/^(?:#|>|[-*+]\s|\d{1,3}[.)]\s|(?:turn\s+)?summary\s*:)/i.test(
        candidate,
      ) &&
      (candidate.match(/"/g) ?? []).length % 2 === 0 &&
      (candidate.match(/`/g) ?? []).length % 2 === 0 &&
      !/^(["'`]).*\1$/.test(candidate) &&
      !/^([*_]{1,2})\S.*\s.*\S\1$/.test(candidate);
    if (!satisfies) continue;
    assert.equal(
      normalizeTurnSummary(candidate),
      candidate,
      JSON.stringify(candidate),
    );
  }
});

/** The fallback's definition, written plainly: strip, first non-empty line
 * with whitespace collapsed, cut to 71 code points plus … when over 72. */
function plainFallback(request: string): string | undefined {
  const lines = stripControlCharacters(request).split(
    /\r\n|[\n\r\u2028\u2029\u0085]/,
  );
  const line = lines.map((text) => text.replace(/\s+/gu, " ").trim())
    .find((text) => text !== "");
  if (line === undefined) return undefined;
  const points = Array.from(line);
  return points.length <= 72
    ? line
    : points.slice(0, 71).join("").trimEnd() + "…";
}

/** Requests of up to `most` pieces picked with a fixed seed. */
function* randomRequests(
  pieces: readonly string[],
  count: number,
  most: number,
): Generator<string> {
  let seed = 7;
  const next = () =>
    (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < count; i++) {
    let request = "";
    const length = Math.floor(next() * most);
    for (let k = 0; k < length; k++) {
      request += pieces[Math.floor(next() * pieces.length)];
    }
    yield request;
  }
}

Deno.test("fallbackSummaryOf() of printable ASCII, spaces, tabs and line breaks (its fast reading) equals the plain definition", () => {
  const pieces = [
    "word",
    "ab",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "x".repeat(40),
    "y".repeat(33),
  ];
  let cut = 0;
  let cutAtSpace = 0;
  for (const request of randomRequests(pieces, 5000, 40)) {
    const fallback = fallbackSummaryOf(request);
    assert.equal(fallback, plainFallback(request), JSON.stringify(request));
    if (fallback?.endsWith("…")) cut++;
    if (fallback?.endsWith("…") && fallback.length < 72) cutAtSpace++;
  }
  assert.ok(cut > 100, `${cut} requests were cut`);
  assert.ok(cutAtSpace > 5, `${cutAtSpace} were cut after a space`);
  for (
    const request of [
      "a".repeat(70) + " " + "b".repeat(10),
      "a".repeat(69) + "\t\t" + "b".repeat(10),
      "  " + "a".repeat(72) + "  ",
      "a".repeat(72) + "\r\nb",
    ]
  ) {
    assert.equal(fallbackSummaryOf(request), plainFallback(request), request);
  }
  // What follows the first line with text does not matter, whatever it is.
  assert.equal(
    fallbackSummaryOf(" \t\r\n  Fix  the\tbuild \r\n\u001b[31m😀\u0085"),
    "Fix the build",
  );
  // A control character or a non-ASCII one before it: the general reading.
  assert.equal(fallbackSummaryOf("\u0007Fix it"), "Fix it");
  assert.equal(fallbackSummaryOf("Fix\u00a0 it"), "Fix it");
});

Deno.test("fallbackSummaryOf() of long lines, whitespace runs, astral and control characters equals the plain definition", () => {
  const pieces = [
    "word",
    " ",
    "   ",
    "\t",
    "\n",
    "\n\n  ",
    "𝄞",
    "é",
    "\u001b[31m",
    "x".repeat(50),
    " ".repeat(700),
    // Control characters the fast reading must notice wherever they are.
    "\u0085",
    "\u001b]0;t\n",
    "\u0007",
    "\r\n",
    "\r",
    "\u000b",
    "\u0001",
    "\u202e",
    "\u2028",
    "\u00a0",
  ];
  for (const request of randomRequests(pieces, 5000, 120)) {
    assert.equal(
      fallbackSummaryOf(request),
      plainFallback(request),
      JSON.stringify(request),
    );
  }
});

Deno.test("normalizeTurnSummary() answers a text seen before as the first time, past its memory's bound too", () => {
  const texts = [
    '  "Add retry backoff."',
    "x".repeat(300),
    "   ",
    "Plain label",
  ];
  const first = texts.map((text) => normalizeTurnSummary(text));
  // More distinct texts than are kept: the earlier ones are computed again.
  for (let i = 0; i < 5000; i++) normalizeTurnSummary(`label ${i}.`);
  assert.deepEqual(texts.map((text) => normalizeTurnSummary(text)), first);
  assert.deepEqual(first, [
    "Add retry backoff",
    normalizeTurnSummary("x".repeat(300)),
    undefined,
    "Plain label",
  ]);
  assert.equal(normalizeTurnSummary("label 4999."), "label 4999");
});
