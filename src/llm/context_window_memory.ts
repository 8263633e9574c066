/**
 * Providers' answers about context windows, remembered for an hour in jpt's
 * data directory (`context_windows.json`): a detached worker, a backfill or
 * a `jpt summarize` asks Ollama's `/api/show` or OpenRouter's model list
 * once per model and endpoint an hour, not once per run. A model's window
 * changes only when it is re-created (Ollama's `num_ctx`); config's
 * `context_window` wins over what is remembered, as over what is asked.
 *
 * Entries are keyed by a SHA-256 of provider, base URL and model, so no URL
 * (which may carry credentials) reaches the file. A file that is not what
 * jpt writes is neither used nor replaced: the provider is asked, as when
 * nothing is remembered.
 *
 * @module
 */

import { join } from "../platform/path.ts";
import { writeFileAtomic } from "../workspace/atomic_write.ts";
import { jptDataDir } from "../workspace/jpt_data_dir.ts";
import { readRegularFileSync } from "../workspace/read_bounded.ts";
import { sha256Hex } from "../platform/sha256.ts";
import type { ProviderAnswer } from "./context_window.ts";
import type { EnvReader } from "../workspace/workspace.ts";

/** How long a provider's answer is used without asking again. */
export const CONTEXT_WINDOW_MEMORY_MS = 60 * 60 * 1000;

/** The most answers kept (the oldest go first). */
const MAX_ENTRIES = 64;

/** The largest file read (what jpt writes stays far below). */
const MAX_FILE_BYTES = 1024 ** 2;

/** The file's name in jpt's data directory. */
const FILE_NAME = "context_windows.json";

/**
 * A remembered answer: the tokens (`null`: the provider answered without
 * telling), and when it was asked (ms since the epoch).
 */
interface Remembered {
  tokens: number | null;
  asked_at: number;
}

/** The file's content. */
interface MemoryFile {
  version: 1;
  windows: Record<string, Remembered>;
}

/** Which model's window, at which endpoint. */
export interface WindowQuestion {
  /** `ollama`, `openrouter`, … */
  provider: string;
  /** The endpoint's base URL. */
  baseUrl: string;
  /** The model's name at the provider. */
  model: string;
}

/**
 * The remembered answer to a question, when one is younger than
 * {@linkcode CONTEXT_WINDOW_MEMORY_MS}; else asks, and remembers the
 * provider's answer (not its silence when it did not answer).
 *
 * @param env Environment access (jpt's data directory).
 * @param question The model and endpoint.
 * @param ask Asks the provider.
 * @param now The clock's reading, ms since the epoch.
 * @returns The answer, remembered or new.
 */
export async function rememberedContextWindow(
  env: EnvReader,
  question: WindowQuestion,
  ask: () => Promise<ProviderAnswer>,
  now: number = Date.now(),
): Promise<ProviderAnswer> {
  const dir = jptDataDir(env);
  if (dir === undefined) return await ask();
  const path = join(dir, FILE_NAME);
  const key = await sha256Hex(
    `${question.provider}\n${question.baseUrl}\n${question.model}`,
  );
  const memory = readMemory(path);
  const known = memory?.windows[key];
  if (
    known !== undefined && known.asked_at <= now &&
    now - known.asked_at < CONTEXT_WINDOW_MEMORY_MS
  ) {
    return known.tokens;
  }
  const tokens = await ask();
  if (tokens === undefined || memory === undefined) return tokens;
  const windows = { ...memory.windows, [key]: { tokens, asked_at: now } };
  const kept = Object.entries(windows)
    .sort(([, a], [, b]) => b.asked_at - a.asked_at)
    .slice(0, MAX_ENTRIES);
  const file: MemoryFile = { version: 1, windows: Object.fromEntries(kept) };
  try {
    Deno.mkdirSync(dir, { recursive: true });
    await writeFileAtomic(
      path,
      new TextEncoder().encode(`${JSON.stringify(file, null, 2)}\n`),
    );
  } catch {
    // Remembering is best effort: the provider is asked again next time.
  }
  return tokens;
}

/**
 * The file's answers: empty when there is no file, `undefined` when it is
 * not what jpt writes (then it is left alone).
 */
function readMemory(path: string): MemoryFile | undefined {
  let bytes: Uint8Array;
  try {
    // A FIFO there is refused, not waited on; 64 answers fit in a few KB.
    bytes = readRegularFileSync(path, MAX_FILE_BYTES);
  } catch (error) {
    return error instanceof Deno.errors.NotFound
      ? { version: 1, windows: {} }
      : undefined;
  }
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return isMemoryFile(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isMemoryFile(value: unknown): value is MemoryFile {
  if (typeof value !== "object" || value === null) return false;
  const { version, windows } = value as Record<string, unknown>;
  if (version !== 1 || typeof windows !== "object" || windows === null) {
    return false;
  }
  return Object.entries(windows).every(([key, entry]) =>
    /^[0-9a-f]{64}$/.test(key) && typeof entry === "object" &&
    entry !== null &&
    ((entry as Remembered).tokens === null ||
      isTokenCount((entry as Remembered).tokens)) &&
    Number.isSafeInteger((entry as Remembered).asked_at)
  );
}

/** A plausible context window: a positive whole number of tokens. */
function isTokenCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0 &&
    (value as number) <= 100_000_000;
}
