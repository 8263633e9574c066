/**
 * The label store: every turn summary jpt writes or reads is also kept here,
 * outside jp's files, keyed by the turn's content (a hash that leaves out
 * `event_id` and `summary`, which released jp drops when it saves). A
 * conversation whose labels jp dropped gets them back without asking a model.
 *
 * Layout, under `$JPT_DATA_DIR` (else the platform's user data directory,
 * `$XDG_DATA_HOME/jpt` or `~/.local/share/jpt` on Linux):
 *
 * - `labels/<2 hex>/<key>.json`: `{summary, model, prompt_version, time}`;
 * - `turns/<2 hex>/<hash of workspace, conversation, event id>.json`:
 *   `{key}`, the content a turn had when jpt wrote its label (for
 *   `jpt turns --stale`);
 * - `recorded/<hash of workspace, conversation>.json`: `{labels: {<event
 *   id>: {key, summary}}}`, the labels found in a conversation's file, all in
 *   one record: a catch-up records only those that changed since, and a
 *   label jp's save dropped is found there by its content key.
 *
 * Each record is its own file, written atomically (temporary file renamed
 * over it), so several processes can write at once; the last writer of a
 * key wins and every reader sees a whole record. A record that does not
 * parse is ignored with a warning. `prune` keeps the store bounded.
 *
 * @module
 */

import { join } from "node:path";
import { writeFileAtomic } from "../workspace/atomic_write.ts";
import { jptDataDir } from "../workspace/jpt_data_dir.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";

/** One stored label. */
export interface StoredLabel {
  /** The summary. */
  summary: string;
  /** `provider/name` of the model that wrote it (`file` when read from a file). */
  model: string;
  /** The prompt version it was written with (`null` when unknown). */
  prompt_version: number | null;
  /** When it was stored (RFC 3339). */
  time: string;
}

/** Where a turn is: for binding a label to the turn it was written for. */
export interface TurnAddress {
  /** The workspace id (`.jp/.id`), if any. */
  workspaceId: string | undefined;
  /** The conversation id. */
  conversationId: string;
  /** The turn's `event_id`. */
  eventId: string;
}

/** A label recorded from a conversation's file. */
export interface RecordedLabel {
  /** The turn's content key when the label was recorded. */
  key: string;
  /** The summary. */
  summary: string;
}

/** The default bound on the records of each kind. */
export const DEFAULT_MAX_RECORDS = 100_000;

const KEY = /^[0-9a-f]{64}$/;
const encoder = new TextEncoder();

/** The label store; see the module doc. A store without a directory keeps nothing. */
export class LabelStore {
  readonly #dir: string | undefined;
  readonly #warn: (line: string) => void;

  private constructor(dir: string | undefined, warn: (line: string) => void) {
    this.#dir = dir;
    this.#warn = warn;
  }

  /**
   * Opens the user's store.
   *
   * @param env Environment access (`JPT_DATA_DIR`, `XDG_DATA_HOME`, `HOME`).
   * @param warn Where warnings about corrupt records go.
   * @returns The store.
   */
  static open(
    env: EnvReader,
    warn: (line: string) => void = () => {},
  ): LabelStore {
    return new LabelStore(jptDataDir(env), warn);
  }

  /**
   * Opens a store in a given directory.
   *
   * @param dir The directory.
   * @param warn Where warnings about corrupt records go.
   * @returns The store.
   */
  static at(dir: string, warn: (line: string) => void = () => {}): LabelStore {
    return new LabelStore(dir, warn);
  }

  /**
   * The label stored for a content key.
   *
   * @param key A turn content key (64 hex digits).
   * @returns The label, or `undefined` when none is stored (or it is corrupt).
   */
  async get(key: string): Promise<StoredLabel | undefined> {
    const value = await this.#read(this.#labelPath(key));
    if (value === undefined) return undefined;
    if (
      typeof value.summary !== "string" || value.summary === "" ||
      typeof value.model !== "string" || typeof value.time !== "string"
    ) {
      this.#warn(`label store: ignoring a malformed record for ${key}`);
      return undefined;
    }
    return {
      summary: value.summary,
      model: value.model,
      prompt_version: typeof value.prompt_version === "number"
        ? value.prompt_version
        : null,
      time: value.time,
    };
  }

  /**
   * Stores a label for a content key (replacing any earlier one).
   *
   * @param key A turn content key.
   * @param label The label.
   */
  async put(key: string, label: StoredLabel): Promise<void> {
    await this.#write(this.#labelPath(key), label);
  }

  /**
   * Records that a turn's label was written for this content.
   *
   * @param turn The turn.
   * @param key Its content key at the time.
   */
  async bind(turn: TurnAddress, key: string): Promise<void> {
    await this.#write(await this.#turnPath(turn), { key });
  }

  /**
   * The content key a turn had when jpt last wrote its label.
   *
   * @param turn The turn.
   * @returns The key, or `undefined` when jpt never wrote one.
   */
  async boundKey(turn: TurnAddress): Promise<string | undefined> {
    const value = await this.#read(await this.#turnPath(turn));
    return typeof value?.key === "string" && KEY.test(value.key)
      ? value.key
      : undefined;
  }

  /**
   * The labels of a conversation's file recorded in the store, by event id:
   * the turn's content key and its summary. A catch-up records only what
   * changed since, and a label jp's save dropped is found here by its
   * content key (the event id is dropped too).
   *
   * @param conversation The conversation (its workspace and id).
   * @returns Content key and summary by event id (empty when none).
   */
  async recordedLabels(
    conversation: Omit<TurnAddress, "eventId">,
  ): Promise<Map<string, RecordedLabel>> {
    const value = await this.#read(await this.#recordedPath(conversation));
    const labels = value?.labels;
    const map = new Map<string, RecordedLabel>();
    if (typeof labels !== "object" || labels === null) return map;
    for (const [id, entry] of Object.entries(labels)) {
      const { key, summary } = (entry ?? {}) as Record<string, unknown>;
      if (
        typeof key === "string" && KEY.test(key) && typeof summary === "string"
      ) {
        map.set(id, { key, summary });
      }
    }
    return map;
  }

  /**
   * Replaces the record of a conversation's file labels.
   *
   * @param conversation The conversation (its workspace and id).
   * @param labels Content key and summary by event id.
   */
  async setRecordedLabels(
    conversation: Omit<TurnAddress, "eventId">,
    labels: ReadonlyMap<string, RecordedLabel>,
  ): Promise<void> {
    await this.#write(await this.#recordedPath(conversation), {
      labels: Object.fromEntries(labels),
    });
  }

  /**
   * Keeps each kind of record to a bound: the oldest beyond it are removed.
   *
   * @param maxRecords The most records of each kind (default 100,000).
   * @returns How many records were removed.
   */
  async prune(maxRecords: number = DEFAULT_MAX_RECORDS): Promise<number> {
    if (this.#dir === undefined) return 0;
    let removed = 0;
    for (const kind of ["labels", "turns", "recorded"]) {
      const files: Array<{ path: string; time: number }> = [];
      for (const shard of await listDir(join(this.#dir, kind))) {
        for (const name of await listDir(join(this.#dir, kind, shard))) {
          const path = join(this.#dir, kind, shard, name);
          const info = await Deno.stat(path).catch(() => undefined);
          if (info?.isFile) {
            files.push({ path, time: info.mtime?.getTime() ?? 0 });
          }
        }
      }
      if (files.length <= maxRecords) continue;
      files.sort((a, b) => a.time - b.time);
      for (const file of files.slice(0, files.length - maxRecords)) {
        await Deno.remove(file.path).then(() => removed++, () => {});
      }
    }
    return removed;
  }

  #labelPath(key: string): string | undefined {
    if (this.#dir === undefined || !KEY.test(key)) return undefined;
    return join(this.#dir, "labels", key.slice(0, 2), `${key}.json`);
  }

  async #turnPath(turn: TurnAddress): Promise<string | undefined> {
    return await this.#hashedPath("turns", [
      turn.workspaceId ?? "",
      turn.conversationId,
      turn.eventId,
    ]);
  }

  async #recordedPath(
    conversation: Omit<TurnAddress, "eventId">,
  ): Promise<string | undefined> {
    return await this.#hashedPath("recorded", [
      conversation.workspaceId ?? "",
      conversation.conversationId,
    ]);
  }

  async #hashedPath(
    kind: string,
    parts: string[],
  ): Promise<string | undefined> {
    if (this.#dir === undefined) return undefined;
    const digest = new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        encoder.encode(JSON.stringify(parts)),
      ),
    );
    const hash = Array.from(digest, (b) => b.toString(16).padStart(2, "0"))
      .join("");
    return join(this.#dir, kind, hash.slice(0, 2), `${hash}.json`);
  }

  async #read(
    path: string | undefined,
  ): Promise<Record<string, unknown> | undefined> {
    if (path === undefined) return undefined;
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch {
      return undefined;
    }
    try {
      const value = JSON.parse(text);
      if (typeof value === "object" && value !== null) return value;
    } catch {
      // reported below
    }
    this.#warn(`label store: ignoring a corrupt record ${path}`);
    return undefined;
  }

  async #write(path: string | undefined, value: unknown): Promise<void> {
    if (path === undefined) return;
    try {
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await writeFileAtomic(path, encoder.encode(JSON.stringify(value) + "\n"));
    } catch (error) {
      this.#warn(
        `label store: cannot write ${path}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((item) => item.name);
  } catch {
    return [];
  }
}
