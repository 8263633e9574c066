/**
 * The OpenAI SDK, loaded on first use and only as much of it as a command
 * needs. The full client (`import("openai")`, about 450 modules and 60–80 ms
 * on a warm cache) is loaded only by the Batch API; chat completions need
 * the SDK's stream decoder and error classes alone (`openai/streaming`,
 * `openai/error`: about 10 modules and 4 ms). Commands that never call a
 * model (`turns`, `check`, `config`, …) load neither.
 *
 * @module
 */

import type OpenAI from "openai";
import type { Stream } from "openai/streaming";

/** The SDK's error classes, the same classes whichever entry loaded them. */
export interface SdkErrors {
  /** Any HTTP or connection failure. */
  APIError: typeof OpenAI.APIError;
  /** The request could not be sent or its answer not received. */
  APIConnectionError: typeof OpenAI.APIConnectionError;
  /** The request's timeout passed before the answer started. */
  APIConnectionTimeoutError: typeof OpenAI.APIConnectionTimeoutError;
  /** The caller's signal stopped the request. */
  APIUserAbortError: typeof OpenAI.APIUserAbortError;
}

/** What chat completions use of the SDK. */
export interface ChatSdk extends SdkErrors {
  /** The SDK's server-sent-events decoder. */
  Stream: typeof Stream;
  /** The SDK's version, sent in the `User-Agent` as the full client does. */
  version: string;
}

let errors: SdkErrors | undefined;
/** The imports under way: callers that arrive meanwhile share them. */
let loadingFull: Promise<typeof OpenAI> | undefined;
let loadingChat: Promise<ChatSdk> | undefined;

/**
 * Loads the full SDK once (the Batch API's files and batches).
 *
 * @returns The SDK's `OpenAI` class (its error classes hang off it).
 */
export async function loadOpenAi(): Promise<typeof OpenAI> {
  // One import for all callers (a backfill's jobs start at once); a failed
  // import is not remembered: the next caller tries again. So for both.
  loadingFull ??= import("openai").then(
    (module) => {
      errors ??= module.default;
      return module.default;
    },
    (error) => {
      loadingFull = undefined;
      throw error;
    },
  );
  return await loadingFull;
}

/**
 * Loads the SDK's stream decoder and error classes once (chat completions).
 *
 * @returns The parts chat completions use.
 */
export async function loadChatSdk(): Promise<ChatSdk> {
  loadingChat ??= Promise.all([
    import("openai/streaming"),
    import("openai/error"),
    import("openai/version"),
  ]).then(
    ([streaming, error, version]) => {
      errors ??= error;
      return { ...error, Stream: streaming.Stream, version: version.VERSION };
    },
    (error) => {
      loadingChat = undefined;
      throw error;
    },
  );
  return await loadingChat;
}

/**
 * The SDK's version (`User-Agent: OpenAI/JS <version>`), one small module:
 * all a chat request needs of the SDK before it is sent.
 *
 * @returns The version.
 */
export async function loadSdkVersion(): Promise<string> {
  return (await import("openai/version")).VERSION;
}

/**
 * The SDK's error classes when something has loaded them. An error thrown
 * by the SDK implies they are loaded, so error checks need not load them.
 *
 * @returns The error classes, or `undefined` before the first load.
 */
export function loadedSdkErrors(): SdkErrors | undefined {
  return errors;
}
