/**
 * `jpt plugin`: install, remove and list jpt's jp command plugins
 * (`jp turns`, `jp summarize`, `jp find`, `jp watch`).
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson } from "./output.ts";
import { VERSION } from "./version.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `plugin` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addPluginCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  const plugin = program.command("plugin")
    .description(
      "run jpt's commands from jp: jp turns, jp summarize, jp find, jp watch",
    )
    .addHelpText(
      "after",
      "\njp runs an unknown command `jp NAME` as the plugin `jp-NAME`, found in its plugin directory\n" +
        "(<jp's user data directory>/plugins/command/, run without asking) or on $PATH (asked\n" +
        'about unless [plugins.command.NAME] run = "unattended"). The launchers run\n' +
        "`jpt plugin serve NAME`, which speaks jp's plugin protocol on standard input and output.\n" +
        "jp's resolved config and [plugins.command.NAME].options (jpt's settings, as in .jp/jpt.toml)\n" +
        'are the config; see README, "Use from jp".\n\n' +
        "Examples:\n  jpt plugin install\n  jp turns\n  jp summarize --all\n  jpt plugin list\n  jpt plugin uninstall\n",
    );
  plugin.command("install")
    .description(
      "write the jp-turns, jp-summarize, jp-find and jp-watch launchers",
    )
    .option("--dir <dir>", "where (default: jp's user-local plugin directory)")
    .option("--force", "replace jp-NAME files jpt did not write")
    .action(async (opts) => {
      const { defaultPluginDir, installPlugins } = await importLazily(
        "cli/plugin_install.ts",
      );
      const context = deps.context();
      const dir = opts.dir ?? defaultPluginDir(context.env);
      const written = await installPlugins(dir, {
        execPath: Deno.execPath(),
        mainModule: Deno.mainModule,
        version: VERSION,
      }, opts.force === true);
      for (const path of written) context.io.out(`installed ${path}\n`);
    });
  plugin.command("uninstall")
    .description("remove the launchers jpt wrote")
    .option("--dir <dir>", "where (default: jp's user-local plugin directory)")
    .action(async (opts) => {
      const { defaultPluginDir, uninstallPlugins } = await importLazily(
        "cli/plugin_install.ts",
      );
      const context = deps.context();
      const removed = await uninstallPlugins(
        opts.dir ?? defaultPluginDir(context.env),
      );
      for (const path of removed) context.io.out(`removed ${path}\n`);
      if (removed.length === 0) context.io.err("no jpt launchers there\n");
    });
  plugin.command("list")
    .description("show which launchers are installed")
    .option("--dir <dir>", "where (default: jp's user-local plugin directory)")
    .addOption(jsonOption())
    .action(async (opts) => {
      const { defaultPluginDir, pluginStates } = await importLazily(
        "cli/plugin_install.ts",
      );
      const context = deps.context();
      const states = await pluginStates(
        opts.dir ?? defaultPluginDir(context.env),
      );
      context.io.out(
        opts.json
          ? formatJson(states)
          : states.map((state) =>
            `${`jp ${state.name}`.padEnd(13)} ${
              state.state.padEnd(9)
            } ${state.path}\n`
          ).join(""),
      );
    });
}
