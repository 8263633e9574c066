/**
 * The OpenAI SDK, loaded on first use. Loading it is most of jpt's start-up,
 * so commands that never call a model (`turns`, `check`, `config`, …) start
 * without it.
 *
 * @module
 */

import type OpenAI from "openai";

let sdk: typeof OpenAI | undefined;
/** The import under way: callers that arrive meanwhile share it. */
let loading: Promise<typeof OpenAI> | undefined;

/**
 * Loads the SDK once.
 *
 * @returns The SDK's `OpenAI` class (its error classes hang off it).
 */
export async function loadOpenAi(): Promise<typeof OpenAI> {
  // One import for all: 32 jobs starting at once would otherwise each have
  // the SDK's files read again.
  // A failed import is not remembered: the next caller tries again.
  loading ??= import("openai").then(
    (module) => sdk = module.default,
    (error) => {
      loading = undefined;
      throw error;
    },
  );
  return await loading;
}

/**
 * The SDK when something has loaded it. An error thrown by the SDK implies
 * it is loaded, so error checks need not load it.
 *
 * @returns The SDK's `OpenAI` class, or `undefined` before the first load.
 */
export function loadedOpenAi(): typeof OpenAI | undefined {
  return sdk;
}
