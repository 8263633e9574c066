/**
 * The context windows of hosted models whose providers do not tell them
 * (Anthropic, OpenAI, Google, DeepSeek), used before the
 * conservative default. A model matches the longest name prefix listed for
 * its provider, so dated snapshots (`gpt-4o-2024-08-06`,
 * `claude-sonnet-4-5-20250929`) take their family's window.
 *
 * Source: each provider's model documentation (Anthropic's models overview,
 * OpenAI's model pages, Google's Gemini API models page, DeepSeek's API
 * docs), checked 2026-12-04. The standard window is listed,
 * not a beta extension (Claude's 1M-token context needs a beta header).
 * Update by editing the table; a model's own `context_window` in config
 * always wins.
 *
 * @module
 */

/** Provider → [model name prefix, tokens]. */
const KNOWN: Readonly<
  Record<string, ReadonlyArray<readonly [string, number]>>
> = {
  anthropic: [
    ["claude-", 200_000],
  ],
  openai: [
    ["gpt-5", 400_000],
    ["gpt-4.1", 1_047_576],
    ["gpt-4o", 128_000],
    ["gpt-4-turbo", 128_000],
    ["gpt-4", 8_192],
    ["gpt-3.5-turbo", 16_385],
    ["o1-mini", 128_000],
    ["o1", 200_000],
    ["o3", 200_000],
    ["o4-mini", 200_000],
    ["chatgpt-4o", 128_000],
  ],
  google: [
    ["gemini-3", 1_048_576],
    ["gemini-2.5", 1_048_576],
    ["gemini-2.0", 1_048_576],
    ["gemini-1.5-pro", 2_097_152],
    ["gemini-1.5-flash", 1_048_576],
  ],
  deepseek: [
    ["deepseek-chat", 128_000],
    ["deepseek-reasoner", 128_000],
  ],
};

/**
 * The listed context window of a hosted model.
 *
 * @param provider The provider (`anthropic`, `openai`, …).
 * @param name The model's name at that provider.
 * @returns Its window in tokens, or `undefined` when it is not listed.
 */
export function knownContextWindow(
  provider: string,
  name: string,
): number | undefined {
  let best: readonly [string, number] | undefined;
  for (const entry of KNOWN[provider] ?? []) {
    if (
      name.startsWith(entry[0]) && entry[0].length > (best?.[0].length ?? 0)
    ) {
      best = entry;
    }
  }
  return best?.[1];
}
