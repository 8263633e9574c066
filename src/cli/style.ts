/**
 * Colour with intention: ids, markers (`[fallback]`, `[restored]`), `ok`
 * and `FAIL`, and dim hints, only on a terminal and never under `NO_COLOR`
 * (or `TERM=dumb`). Colours come from picocolors, loaded only when a stream
 * is a terminal (it would cost every command's start-up otherwise).
 *
 * @module
 */

/** The colour functions jpt uses (picocolors provides them). */
export interface Colors {
  /** Cyan text. */
  cyan(text: string): string;
  /** Yellow text. */
  yellow(text: string): string;
  /** Green text. */
  green(text: string): string;
  /** Red text. */
  red(text: string): string;
  /** Bold text. */
  bold(text: string): string;
  /** Dim text. */
  dim(text: string): string;
}

/** The styles jpt uses, each a function of text (identity when colour is off). */
export interface Style {
  /** Whether colour is on. */
  readonly enabled: boolean;
  /** Conversation and event ids. */
  id(text: string): string;
  /** Markers such as `[fallback]`. */
  marker(text: string): string;
  /** Success (`ok`). */
  good(text: string): string;
  /** Failure (`FAIL`, `error:`). */
  bad(text: string): string;
  /** Warnings. */
  warn(text: string): string;
  /** Hints and context lines. */
  dim(text: string): string;
}

/**
 * Whether colour is allowed for a stream.
 *
 * @param isTerminal Whether the stream is a terminal.
 * @param env Environment access (`NO_COLOR`, `TERM`).
 * @returns `true` on a terminal without `NO_COLOR` and with a capable `TERM`.
 */
export function colourAllowed(
  isTerminal: boolean,
  env: (name: string) => string | undefined,
): boolean {
  return isTerminal && (env("NO_COLOR") ?? "") === "" && env("TERM") !== "dumb";
}

/**
 * Loads the colour functions (picocolors).
 *
 * @returns picocolors, with colour on.
 */
export async function loadColors(): Promise<Colors> {
  // picocolors is CommonJS: its exports are the default export in every
  // form jpt runs in (the sources, a bundle, `deno compile`); a named import
  // works only where Deno's CommonJS analysis reaches.
  const { default: picocolors } = await import("picocolors");
  return picocolors.createColors(true);
}

/**
 * The style for one stream.
 *
 * @param enabled Whether colour is on for it (see {@linkcode colourAllowed}).
 * @param colors The colour functions, when they were loaded.
 * @returns The style (plain text when off or not loaded).
 */
export function styleFor(enabled: boolean, colors: Colors | undefined): Style {
  if (!enabled || colors === undefined) {
    const plain = (text: string) => text;
    return {
      enabled: false,
      id: plain,
      marker: plain,
      good: plain,
      bad: plain,
      warn: plain,
      dim: plain,
    };
  }
  return {
    enabled,
    id: colors.cyan,
    marker: colors.yellow,
    good: colors.green,
    bad: (text) => colors.bold(colors.red(text)),
    warn: colors.yellow,
    dim: colors.dim,
  };
}
