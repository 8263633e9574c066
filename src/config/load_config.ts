/**
 * The effective config, built from jp's layers in jp's order (storage
 * reference 7): defaults, user-global config, workspace `.jp/config`, `.jp`
 * files from the workspace root down to the working directory, the user-local
 * silo's config, `JP_CFG_*` variables, the conversation (base config plus its
 * config deltas), then `--cfg` values and `--model`.
 *
 * @module
 */

import { join, resolve, sep } from "../platform/path.ts";
import type { ConversationStream } from "../conversation/stream.ts";
import { readEvent } from "../conversation/events.ts";
import type { EnvReader, Workspace } from "../workspace/workspace.ts";
import { type CfgOperation, parseCfgArg } from "./cfg_arg.ts";
import type { ConfigFileCache } from "./config_file_cache.ts";
import { ConfigFileError, readConfigFile } from "./config_file.ts";
import {
  type ConfigPlace,
  findConfigFile,
  globalConfigDir,
  jptConfigDir,
  userConfigPlaces,
  workspaceConfigPlaces,
} from "./config_places.ts";
import { type ConfigTable, ConfigTree, getPath } from "./config_tree.ts";
import {
  recordProvenance,
  TRUSTED_WORKSPACES_ENV,
  trustedWorkspaces,
} from "./config_trust.ts";
import { envOperations } from "./env_layer.ts";
import { keysJpRejects } from "./jp_known_keys.ts";
import { validateConfigValues } from "./validate_values.ts";
import { isPlainObject } from "./schema.ts";

/** Values every config starts from (RFD 126 and jp's title defaults). */
export const DEFAULT_CONFIG: ConfigTable = {
  conversation: {
    title: { generate: { auto: true }, from_heading: true },
    turn_summary: { generate: { auto: true, batch_size: 5, detach: true } },
  },
};

/** The turn-summary settings of a config (RFD 126), defaults applied. */
export interface TurnSummarySettings {
  /** `conversation.turn_summary.generate.auto`. */
  auto: boolean;
  /** `conversation.turn_summary.generate.batch_size`. */
  batchSize: number;
  /**
   * `conversation.turn_summary.generate.detach` (jpt's own key): hand work
   * still running when the reply ends to a detached worker (default true).
   */
  detach: boolean;
  /**
   * `conversation.turn_summary.generate.oversized` (jpt's own key): `skip` a
   * turn too large for a request (RFD 126, the default), or `fit` it (its
   * transcript's head and tail).
   */
  oversized: "skip" | "fit";
}

/**
 * Reads `conversation.turn_summary.generate`.
 *
 * @param config The effective config.
 * @returns Whether catch-up runs during queries, and the most turns per request.
 */
export function turnSummarySettings(config: ConfigTable): TurnSummarySettings {
  const batchSize = getPath(config, [
    "conversation",
    "turn_summary",
    "generate",
    "batch_size",
  ]);
  return {
    auto:
      getPath(config, ["conversation", "turn_summary", "generate", "auto"]) !==
        false,
    batchSize: typeof batchSize === "number" && batchSize >= 1 ? batchSize : 5,
    detach: getPath(config, [
      "conversation",
      "turn_summary",
      "generate",
      "detach",
    ]) !==
      false,
    oversized: getPath(config, [
        "conversation",
        "turn_summary",
        "generate",
        "oversized",
      ]) === "fit"
      ? "fit"
      : "skip",
  };
}

/** The conversation's own layer: its base config and config deltas. */
export interface ConversationConfigSource {
  /** The conversation id, for origin labels. */
  id: string;
  /** The conversation directory, for origin labels. */
  dir?: string;
  /** `base_config.json`'s values, when the conversation has the split layout. */
  baseConfig: ConfigTable | undefined;
  /** The event stream (legacy streams carry the base config as their first delta). */
  stream: ConversationStream;
}

/** Where the config is loaded for. */
export interface LoadConfigOptions {
  /** Environment access; `JP_CFG_*` variables come from `envVariables`. */
  env: EnvReader;
  /** All environment variables (for `JP_CFG_*`). */
  envVariables: Record<string, string>;
  /** The working directory. */
  cwd: string;
  /** The workspace, if any. */
  workspace: Workspace | undefined;
  /** The conversation whose config applies, if any. */
  conversation?: ConversationConfigSource | undefined;
  /** `--cfg` values, in order. */
  cfg?: readonly string[];
  /** `--model`, shorthand for `--cfg assistant.model.id=...`. */
  model?: string | undefined;
  /** Set when jpt runs as a jp command plugin: what jp's `init` gave. */
  host?: HostConfig | undefined;
  /** Reuses config files read for other conversations of the same run. */
  files?: ConfigFileCache | undefined;
}

/**
 * The config jp hands a command plugin in its `init` message: jp's own
 * resolved config (the shape of a conversation's `base_config.json`) and
 * the plugin's `[plugins.command.<name>].options` (jpt's settings, with the
 * key paths of `.jp/jpt.toml`).
 */
export interface HostConfig {
  /** The plugin's name (`turns`), for origin labels. */
  plugin: string;
  /** `init.config`. */
  config: ConfigTable;
  /** `init.options`. */
  options: ConfigTable;
}

/** The effective config and where each value came from. */
export interface LoadedConfig {
  /** The merged values. */
  values: ConfigTable;
  /** The layer that set each leaf (dotted path). */
  origins: Map<string, string>;
  /** The layers that contributed, in order. */
  layers: string[];
  /** Keys in files jp reads that released jp rejects, one sentence each with the fix. */
  warnings: string[];
}

/**
 * Loads the effective config.
 *
 * @param options Where to load from.
 * @returns The config with origins.
 * @throws {ConfigFileError} For an unreadable or invalid config file.
 * @throws {EnvConfigError} For an invalid `JP_CFG_*` variable.
 * @throws {CfgSyntaxError} For an invalid `--cfg` value (a usage error).
 * @throws {ConfigValueError} When a text value does not fit its field.
 * @throws {ConfigRangeError} When a value does not fit its field (`batch_size = 0`).
 */
export async function loadConfig(
  options: LoadConfigOptions,
): Promise<LoadedConfig> {
  const find = (base: string) =>
    options.files?.find(base) ?? findConfigFile(base);
  const read = (path: string) =>
    options.files?.read(path) ?? readConfigFile(path);
  const tree = new ConfigTree();
  // What the user's own layers alone set (see config_trust.ts).
  const trusted = new ConfigTree();
  const trustedDirs = trustedWorkspaces(options.env(TRUSTED_WORKSPACES_ENV));
  const trustsWorkspace = options.workspace !== undefined &&
    trustedDirs.includes(resolve(options.workspace.root));
  // Layers that arrived with a repository, by origin label (see trustOf).
  const untrusted = new Set<string>();
  const isUntrusted = (label: string) => untrusted.has(label);
  const layers: string[] = [];
  const mergeLayer = (values: ConfigTable, label: string, trust: boolean) => {
    tree.merge(values, label);
    if (trust) trusted.merge(values, label);
    else untrusted.add(label);
    layers.push(label);
  };
  const warnings: string[] = [];
  // A file and the files it `extends` share its trust.
  const mergeFiles = async (
    path: string | undefined,
    label: string,
    trust: boolean,
    readByJp = true,
  ) => {
    if (path === undefined) return;
    for (const layer of await read(path)) {
      mergeLayer(layer.values, `${label} (${layer.path})`, trust);
      if (readByJp) warnings.push(...rejectedKeyWarnings(layer));
    }
  };
  // As a jp plugin, jp's own layers arrive resolved in `init.config`; the
  // user's own files are still read, for what they alone set (trust).
  const host = options.host;
  const mergeJpFiles = async (
    path: string | undefined,
    label: string,
    trust: boolean,
  ) => {
    if (host === undefined) return await mergeFiles(path, label, trust);
    if (path === undefined || !trust) return;
    for (const layer of await read(path)) {
      trusted.merge(layer.values, `${label} (${layer.path})`);
    }
  };

  tree.merge(DEFAULT_CONFIG, "default");
  trusted.merge(DEFAULT_CONFIG, "default");
  layers.push("default");

  const mergePlace = async (place: ConfigPlace) => {
    const path = await find(place.base);
    if (place.readByJp) await mergeJpFiles(path, place.label, place.trusted);
    else await mergeFiles(path, place.label, place.trusted, false);
  };
  const userPlaces = userConfigPlaces(options.env);
  for (const place of userPlaces.filter((place) => place.readByJp)) {
    await mergePlace(place);
  }
  if (host !== undefined) {
    // jp's resolved config holds its workspace's layers: trusted as they are.
    mergeLayer(host.config, "jp (plugin init.config)", trustsWorkspace);
  }
  for (const place of userPlaces.filter((place) => !place.readByJp)) {
    await mergePlace(place);
  }

  const workspace = options.workspace;
  if (workspace !== undefined) {
    const places = workspaceConfigPlaces(workspace, options.cwd, trustedDirs);
    for (const place of places) await mergePlace(place);
  }
  if (host !== undefined) {
    mergeLayer(
      host.options,
      `jp's [plugins.command.${host.plugin}].options`,
      trustsWorkspace,
    );
  }

  for (const prefix of ["JP_CFG_", "JPT_CFG_"]) {
    for (
      const { name, operation } of envOperations(options.envVariables, prefix)
    ) {
      // jp applied its own variables before it resolved init.config.
      if (host === undefined || prefix === "JPT_CFG_") {
        apply(tree, operation, `env ${name}`);
      }
      apply(trusted, operation, `env ${name}`);
      layers.push(`env ${name}`);
      if (
        host === undefined && prefix === "JP_CFG_" && operation.kind !== "file"
      ) {
        const rejected = keysJpRejects(nestedAt(operation));
        for (const key of rejected) {
          warnings.push(
            `${name} sets ${key}, which released jp rejects (jp fails to start while it is set): use JPT_${
              name.slice("JP_".length)
            } instead`,
          );
        }
      }
    }
  }

  if (options.conversation !== undefined) {
    const { id, dir } = options.conversation;
    // A conversation's stored config is never trusted: it is committed
    // with the repository, whoever wrote it.
    mergeLayer(
      conversationLayer(options.conversation),
      `conversation jp-c${id}${dir === undefined ? "" : ` (${dir})`}`,
      false,
    );
  }

  for (const arg of options.cfg ?? []) {
    const operation = parseCfgArg(arg);
    const label = `--cfg ${arg}`;
    if (operation.kind === "file") {
      // A path the user typed is theirs; a named config is as trusted as
      // the place it was found in (namedConfig).
      const found = operation.named
        ? findNamedConfig(operation.path, {
          trusted: trusted.values,
          all: tree.values,
          base: workspace?.root ?? options.cwd,
          cwd: options.cwd,
          userDirs: [globalConfigDir(options.env), jptConfigDir(options.env)]
            .filter((dir) => dir !== undefined),
          trustsWorkspace,
          workspaceRoot: workspace?.root,
        })
        : { path: resolve(options.cwd, operation.path), trust: true };
      await mergeFiles(found.path, "--cfg", found.trust);
    } else {
      apply(tree, operation, label);
      apply(trusted, operation, label);
      layers.push(label);
    }
  }
  if (options.model !== undefined) {
    tree.set(["assistant", "model", "id"], options.model, "--model");
    trusted.set(["assistant", "model", "id"], options.model, "--model");
    layers.push("--model");
  }
  validateConfigValues(tree.values, tree.origins);
  recordProvenance(tree.values, {
    origins: tree.origins,
    trusted: trusted.values,
    isUntrusted,
  });
  return { values: tree.values, origins: tree.origins, layers, warnings };
}

/** Warnings for the keys of a file jp reads that released jp rejects. */
function rejectedKeyWarnings(
  layer: { path: string; values: ConfigTable },
): string[] {
  return keysJpRejects(layer.values).map((key) =>
    `${layer.path} sets ${key}, which released jp rejects (jp fails to start while it is there): move it to .jp/jpt.toml (jpt check --fix moves it)`
  );
}

/** An operation's value placed at its path, for checking its keys. */
function nestedAt(
  operation: Exclude<CfgOperation, { kind: "file" }>,
): ConfigTable {
  const { value } = operation;
  const path = operation.kind === "merge" ? [] : operation.path;
  if (path.length === 0) return isPlainObject(value) ? value : {};
  const root: ConfigTable = {};
  let table = root;
  for (const key of path.slice(0, -1)) {
    const child: ConfigTable = {};
    table[key] = child;
    table = child;
  }
  table[path.at(-1)!] = value;
  return root;
}

/**
 * The conversation layer: the base config (from `base_config.json`, or the
 * leading config delta of a legacy stream), then every config delta in
 * stream order; `unsets` clear paths first and a `reset` delta starts over.
 *
 * @param source The conversation.
 * @returns The merged conversation layer.
 */
export function conversationLayer(
  source: ConversationConfigSource,
): ConfigTable {
  const tree = new ConfigTree();
  const deltas = source.stream.entries.filter((entry) =>
    entry.type === "config_delta"
  );
  let rest = deltas;
  if (source.baseConfig !== undefined) {
    tree.merge(source.baseConfig, "base");
  } else if (source.stream.entries[0]?.type === "config_delta") {
    rest = deltas.slice(1);
    const first = readEvent(source.stream.entries[0]!);
    if (first?.type === "config_delta") tree.merge(first.delta, "base");
  }
  let values = tree.values;
  for (const entry of rest) {
    const delta = readEvent(entry);
    if (delta?.type !== "config_delta") continue;
    if (delta.op === "reset") {
      values = {};
      continue;
    }
    for (const path of delta.unsets) unsetPath(values, path.split("."));
    const next = new ConfigTree();
    next.merge(values, "base");
    next.merge(delta.delta, "delta");
    values = next.values;
  }
  return values;
}

function apply(tree: ConfigTree, operation: CfgOperation, label: string): void {
  if (operation.kind === "set") {
    tree.set(operation.path, operation.value, label);
  } else if (operation.kind === "append") {
    tree.append(operation.path, operation.value, label);
  } else if (operation.kind === "merge") tree.merge(operation.value, label);
}

/**
 * Finds a named config (`--cfg NAME`), as jp does: in each directory of
 * `config_load_paths`, then `NAME` in the working directory; jpt also looks
 * in the user's config directories. The file is trusted only when the place
 * it was found in is the user's: a load path their own layers set, or their
 * config directories, unless it leads into the workspace. A load path a
 * repository's config set, one of the user's into the workspace, or the working
 * directory (inside a repository), still finds the file, but as an
 * untrusted layer: it may choose models, never where a key is sent.
 */
function findNamedConfig(
  name: string,
  where: {
    trusted: ConfigTable;
    all: ConfigTable;
    base: string;
    cwd: string;
    userDirs: string[];
    trustsWorkspace: boolean;
    workspaceRoot: string | undefined;
  },
): { path: string; trust: boolean } {
  const loadPaths = (values: ConfigTable) => {
    const paths = getPath(values, ["config_load_paths"]);
    return Array.isArray(paths)
      ? paths.filter((dir): dir is string => typeof dir === "string")
      : [];
  };
  const ownPaths = loadPaths(where.trusted);
  // A load path of the user's own that leads into the workspace finds the
  // repository's files: they are the repository's config, trusted as it is.
  const ownTrust = (dir: string) =>
    where.trustsWorkspace || !isInside(dir, where.workspaceRoot);
  const candidates: Array<{ dir: string; trust: boolean }> = [
    ...ownPaths.map((path) => {
      const dir = resolve(where.base, path);
      return { dir, trust: ownTrust(dir) };
    }),
    ...where.userDirs.map((dir) => ({ dir, trust: true })),
    ...loadPaths(where.all).filter((dir) => !ownPaths.includes(dir)).map((
      dir,
    ) => ({ dir: resolve(where.base, dir), trust: where.trustsWorkspace })),
    { dir: where.cwd, trust: where.trustsWorkspace },
  ];
  for (const { dir, trust } of candidates) {
    const found = findConfigFile(join(dir, name));
    if (found !== undefined) return { path: found, trust };
  }
  const dirs = loadPaths(where.all);
  throw new ConfigFileError(
    name,
    dirs.length === 0
      ? "no such file, and config_load_paths is empty"
      : `no such file, nor a config named "${name}" in ${dirs.join(", ")}`,
  );
}

/**
 * Whether a directory is the workspace root or below it, by its path as
 * written and, when it exists, by the path its links lead to.
 */
function isInside(dir: string, root: string | undefined): boolean {
  if (root === undefined) return false;
  const roots = [resolve(root), realPathOr(root)];
  return [dir, realPathOr(dir)].some((path) =>
    roots.some((top) => path === top || path.startsWith(top + sep))
  );
}

function realPathOr(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return resolve(path);
  }
}

function unsetPath(values: ConfigTable, path: string[]): void {
  let table: unknown = values;
  for (const segment of path.slice(0, -1)) {
    if (!isPlainObject(table)) return;
    table = table[segment];
  }
  if (isPlainObject(table)) delete table[path.at(-1)!];
}
