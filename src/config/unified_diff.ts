/**
 * A unified diff of two texts (`--- a`, `+++ b`, `@@ -l,n +l,n @@` hunks
 * with three lines of context), as `diff -u` prints it: what `jpt check
 * --fix` shows before it writes. Line-based, for config files (small).
 *
 * @module
 */

/**
 * The unified diff between two texts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unifiedDiff } from "./unified_diff.ts";
 * assert.deepEqual(unifiedDiff("a", "b", "x\ny\n", "x\nz\n"), [
 *   "--- a", "+++ b", "@@ -1,2 +1,2 @@", " x", "-y", "+z",
 * ]);
 * ```
 *
 * @param from The old file's name.
 * @param to The new file's name.
 * @param before The old text.
 * @param after The new text.
 * @param context Lines of context around each change.
 * @returns The diff's lines (none when the texts are equal).
 */
export function unifiedDiff(
  from: string,
  to: string,
  before: string,
  after: string,
  context = 3,
): string[] {
  if (before === after) return [];
  const a = lines(before);
  const b = lines(after);
  const ops = editScript(a, b);
  const out = [`--- ${from}`, `+++ ${to}`];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === " ") {
      i++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` after the
    // last change that lies within 2 × context of the one before.
    let end = i;
    for (let j = i; j < ops.length; j++) {
      if (ops[j]!.kind !== " ") end = j;
      else if (j - end > 2 * context) break;
    }
    const start = Math.max(0, i - context);
    const stop = Math.min(ops.length, end + context + 1);
    const hunk = ops.slice(start, stop);
    const first = hunk[0]!;
    const oldCount = hunk.filter((op) => op.kind !== "+").length;
    const newCount = hunk.filter((op) => op.kind !== "-").length;
    out.push(
      `@@ -${range(first.oldLine, oldCount)} +${
        range(first.newLine, newCount)
      } @@`,
    );
    for (const op of hunk) out.push(`${op.kind}${op.text}`);
    i = stop;
  }
  return out;
}

interface Op {
  kind: " " | "-" | "+";
  text: string;
  /** 1-based line in the old text where this op stands. */
  oldLine: number;
  /** 1-based line in the new text where this op stands. */
  newLine: number;
}

function lines(text: string): string[] {
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

function range(line: number, count: number): string {
  const start = count === 0 ? line - 1 : line;
  return count === 1 ? `${start}` : `${start},${count}`;
}

/** The shortest edit script by longest common subsequence (small inputs). */
function editScript(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j]
        ? lcs[i + 1]![j + 1]! + 1
        : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i]!, oldLine: i + 1, newLine: j + 1 });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // Removals before additions, as diff -u shows them.
      ops.push({ kind: "-", text: a[i]!, oldLine: i + 1, newLine: j + 1 });
      i++;
    } else {
      ops.push({ kind: "+", text: b[j]!, oldLine: i + 1, newLine: j + 1 });
      j++;
    }
  }
  return ops;
}
