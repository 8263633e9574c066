/**
 * The effective config as it is built layer by layer, remembering which layer
 * set each value (for `jpt config show --origin`).
 *
 * @module
 */

import { isPlainObject } from "./schema.ts";

/** A config table. */
export type ConfigTable = Record<string, unknown>;

/** Builds a config from layers; later layers win. */
export class ConfigTree {
  /** The merged values. */
  readonly values: ConfigTable = {};
  /** For each leaf (dotted path), the name of the layer that set it last. */
  readonly origins: Map<string, string> = new Map();

  /**
   * Merges a layer: tables merge key by key, any other value replaces.
   *
   * @param layer The layer's values.
   * @param origin The layer's name.
   */
  merge(layer: ConfigTable, origin: string): void {
    mergeInto(this.values, layer, [], origin, this.origins);
  }

  /**
   * Sets the value at a path, creating tables on the way.
   *
   * @param path The key's segments.
   * @param value The value.
   * @param origin The name of what set it.
   */
  set(path: readonly string[], value: unknown, origin: string): void {
    const parent = this.#parentOf(path);
    const key = path.at(-1)!;
    if (isPlainObject(value)) {
      if (!isPlainObject(parent[key])) setOwn(parent, key, {});
      this.#forget(path);
      mergeInto(
        parent[key] as ConfigTable,
        value,
        [...path],
        origin,
        this.origins,
      );
      return;
    }
    this.#forget(path);
    setOwn(parent, key, value);
    this.origins.set(path.join("."), origin);
  }

  /**
   * Appends to the list at a path (creating it), or merges a table into the
   * table at a path.
   *
   * @param path The key's segments.
   * @param value An item to append, or a table to merge.
   * @param origin The name of what set it.
   */
  append(path: readonly string[], value: unknown, origin: string): void {
    const current = getPath(this.values, path);
    if (isPlainObject(current) && isPlainObject(value)) {
      mergeInto(current, value, [...path], origin, this.origins);
      return;
    }
    const items = Array.isArray(current)
      ? [...current]
      : current === undefined
      ? []
      : [current];
    this.set(
      path,
      [...items, ...(Array.isArray(value) ? value : [value])],
      origin,
    );
  }

  #parentOf(path: readonly string[]): ConfigTable {
    let table = this.values;
    for (const segment of path.slice(0, -1)) {
      if (!isPlainObject(table[segment])) setOwn(table, segment, {});
      table = table[segment] as ConfigTable;
    }
    return table;
  }

  #forget(path: readonly string[]): void {
    const prefix = path.join(".");
    for (const key of [...this.origins.keys()]) {
      if (key === prefix || key.startsWith(`${prefix}.`)) {
        this.origins.delete(key);
      }
    }
  }
}

/**
 * Reads the value at a path.
 *
 * @param table A config table.
 * @param path The key's segments.
 * @returns The value, or `undefined`.
 */
export function getPath(table: ConfigTable, path: readonly string[]): unknown {
  let value: unknown = table;
  for (const segment of path) {
    if (!isPlainObject(value) || !Object.hasOwn(value, segment)) {
      return undefined;
    }
    value = value[segment];
  }
  return value;
}

function mergeInto(
  target: ConfigTable,
  layer: ConfigTable,
  path: string[],
  origin: string,
  origins: Map<string, string>,
): void {
  for (const [key, value] of Object.entries(layer)) {
    const childPath = [...path, key];
    const dotted = childPath.join(".");
    if (isPlainObject(value)) {
      if (!isPlainObject(target[key])) {
        setOwn(target, key, {});
        origins.delete(dotted);
      }
      mergeInto(target[key] as ConfigTable, value, childPath, origin, origins);
      if (Object.keys(value).length === 0 && !hasOriginUnder(origins, dotted)) {
        origins.set(dotted, origin);
      }
    } else {
      for (const existing of [...origins.keys()]) {
        if (existing.startsWith(`${dotted}.`)) origins.delete(existing);
      }
      setOwn(target, key, structuredClone(value));
      origins.set(dotted, origin);
    }
  }
}

function hasOriginUnder(origins: Map<string, string>, dotted: string): boolean {
  for (const key of origins.keys()) {
    if (key.startsWith(`${dotted}.`)) return true;
  }
  return false;
}

function setOwn(table: ConfigTable, key: string, value: unknown): void {
  Object.defineProperty(table, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
