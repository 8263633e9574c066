/**
 * How an edit flow talks to the user: the editor, a yes/no question, lines
 * to show; and how the edit ended.
 *
 * @module
 */

/** How an edit talks to the user. */
export interface EditIo {
  /** Opens the editor on a file in a directory and waits for it (throws when it fails). */
  openEditor(file: string, dir: string): Promise<void>;
  /** Asks whether to reopen the editor on an invalid file; `false` aborts. */
  confirmReopen(): boolean;
  /** A line for the user (stderr). */
  say(line: string): void;
  /** Diagnostic lines (shown with `--verbose`). */
  log(line: string): void;
}

/** How an edit ended. */
export type EditOutcome = "written" | "unchanged" | "aborted" | "invalid";
