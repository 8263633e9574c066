/**
 * The jpt commands jp can run as its own (`jp turns`, …), and what jpt tells
 * jp about each (`describe`).
 *
 * @module
 */

/** One jp command that jpt provides. */
export interface JpPluginCommand {
  /** The command after `jp` (and after `jpt`): `turns`. */
  name: string;
  /** One line for `jp -h`. */
  description: string;
  /** The jpt command it runs, when not the same name (`serve-turns` runs `serve`). */
  runs?: string;
}

/** The commands jpt installs as jp plugins, in `jpt plugin list` order. */
export const JP_PLUGIN_COMMANDS: readonly JpPluginCommand[] = [
  {
    name: "turns",
    description: "List a conversation's turns with their summaries (jpt turns)",
  },
  {
    name: "summarize",
    description: "Write the missing turn summaries (jpt summarize)",
  },
  {
    name: "find",
    description:
      "Find turns by summary or text across conversations (jpt find)",
  },
  {
    name: "watch",
    description: "Keep turn summaries up to date while jp runs (jpt watch)",
  },
  {
    name: "serve-turns",
    description:
      "Read the conversations in the browser by their turn summaries, live (jpt serve)",
    runs: "serve",
  },
];

/**
 * The command jpt provides under a name.
 *
 * @param name `turns`, `summarize`, …
 * @returns The command, or `undefined` for a name jpt does not provide.
 */
export function jpPluginCommand(name: string): JpPluginCommand | undefined {
  return JP_PLUGIN_COMMANDS.find((command) => command.name === name);
}

/**
 * jp's name for a plugin's executable (`jp-turns`).
 *
 * @param name The command's name.
 * @returns The file name.
 */
export function pluginFileName(name: string): string {
  return `jp-${name}`;
}
