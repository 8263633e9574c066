/**
 * jpt's version, from `deno.json`.
 *
 * @module
 */

import denoConfig from "../../deno.json" with { type: "json" };

/** The version of jpt, from `deno.json`. */
export const VERSION: string = denoConfig.version;
