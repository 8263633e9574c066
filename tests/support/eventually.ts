/**
 * Bounded waiting for something another process does.
 *
 * @module
 */

import assert from "node:assert/strict";

/** Waits (at most `seconds`) until `condition` holds; fails naming `what`. */
export async function eventually(
  what: string,
  condition: () => Promise<boolean>,
  seconds = 15,
): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`not within ${seconds} s: ${what}`);
}
