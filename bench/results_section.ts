/**
 * Writes one section of bench/RESULTS.md in place (from its heading to the
 * next `## ` heading), so a benchmark run alone updates its own rows and
 * leaves the others as the last full run measured them.
 *
 * @module
 */

import { join } from "node:path";

const RESULTS = join(
  new URL("..", import.meta.url).pathname,
  "bench",
  "RESULTS.md",
);

/**
 * Replaces (or appends) a section of RESULTS.md, then formats the file.
 *
 * @param heading The section's `## ` heading line.
 * @param body The section's text after the heading.
 */
export async function writeResultsSection(
  heading: string,
  body: string,
): Promise<void> {
  const text = await Deno.readTextFile(RESULTS).catch(() => "");
  const section = `${heading}\n\n${body.trim()}\n`;
  const start = text.indexOf(`${heading}\n`);
  let next = start < 0 ? -1 : text.indexOf("\n## ", start + heading.length);
  if (next >= 0) next += 1;
  const updated = start < 0
    ? `${text.trimEnd()}\n\n${section}`
    : `${text.slice(0, start)}${section}\n${next < 0 ? "" : text.slice(next)}`;
  await Deno.writeTextFile(RESULTS, updated);
  await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", RESULTS],
  }).output();
}
