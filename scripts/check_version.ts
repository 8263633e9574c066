/**
 * Fails unless the release tag equals `v` plus `deno.json`'s version.
 *
 * Usage: `deno run --allow-read scripts/check_version.ts v0.1.0`.
 *
 * @module
 */

import denoConfig from "../deno.json" with { type: "json" };

/**
 * Tells whether a tag names the version in `deno.json`.
 *
 * @param tag A git tag such as `v0.1.0`.
 * @returns `true` when it matches.
 */
export function tagMatchesVersion(tag: string): boolean {
  return tag === `v${denoConfig.version}`;
}

if (import.meta.main) {
  const tag = Deno.args[0] ?? "";
  if (!tagMatchesVersion(tag)) {
    console.error(
      `error: tag "${tag}" does not match deno.json version "${denoConfig.version}" (expected "v${denoConfig.version}")`,
    );
    Deno.exitCode = 1;
  } else {
    console.log(`tag ${tag} matches deno.json`);
  }
}
