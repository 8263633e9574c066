/**
 * The path functions jpt uses, with `node:path`'s results. On POSIX they are
 * implemented here, because importing `node:path` makes Deno load its Node
 * compatibility layer first, about 10 ms of every command's start-up (see
 * ARCHITECTURE.md, "Start-up"). On Windows `node:path`'s own functions are
 * used: drive letters, UNC paths and both separators are its business.
 * `tests/path_test.ts` holds the POSIX ones to `node:path/posix`.
 *
 * @module
 */

const native = Deno.build.os === "windows"
  ? await import("node:path")
  : undefined;

/** The path separator: `/` (`\` on Windows). */
export const sep: string = native?.sep ?? "/";

/** The separator of a list of paths, as in `$PATH`: `:` (`;` on Windows). */
export const delimiter: string = native?.delimiter ?? ":";

/**
 * The segments of `path` with `.` and empty ones dropped and `..` applied;
 * a `..` that would climb above the start is kept unless `absolute`.
 */
function normalSegments(path: string, absolute: boolean): string[] {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") {
      segments.push(segment);
    } else if (segments.length > 0 && segments.at(-1) !== "..") {
      segments.pop();
    } else if (!absolute) {
      segments.push("..");
    }
  }
  return segments;
}

function normalizePosix(path: string): string {
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  let normal = normalSegments(path, absolute).join("/");
  if (normal === "" && !absolute) normal = ".";
  if (normal !== "" && path.endsWith("/")) normal += "/";
  return absolute ? `/${normal}` : normal;
}

/** Joins path segments and normalizes the result (`.` for nothing). */
export const join: (...paths: string[]) => string = native?.join ??
  ((...paths) => {
    const joined = paths.filter((path) => path !== "").join("/");
    return joined === "" ? "." : normalizePosix(joined);
  });

/**
 * Resolves segments, right to left, into an absolute path without a
 * trailing separator; the working directory is where it starts.
 */
export const resolve: (...paths: string[]) => string = native?.resolve ??
  ((...paths) => {
    let resolved = "";
    for (let i = paths.length - 1; i >= -1; i--) {
      const path = i >= 0 ? paths[i]! : Deno.cwd();
      if (path === "") continue;
      resolved = `${path}/${resolved}`;
      if (path.startsWith("/")) break;
    }
    const absolute = resolved.startsWith("/");
    const normal = normalSegments(resolved, absolute).join("/");
    return absolute ? `/${normal}` : normal || ".";
  });

/** Whether `path` is absolute. */
export const isAbsolute: (path: string) => boolean = native?.isAbsolute ??
  ((path) => path.startsWith("/"));

/** The directory part of `path` (`.` when it has none), as Node gives it. */
export const dirname: (path: string) => string = native?.dirname ??
  ((path) => {
    if (path === "") return ".";
    let end = path.length - 1;
    while (end >= 1 && path[end] === "/") end--;
    while (end >= 1 && path[end] !== "/") end--;
    const rooted = path.startsWith("/");
    if (end < 1) return rooted ? "/" : ".";
    return rooted && end === 1 ? "//" : path.slice(0, end);
  });

/** The last part of `path`, trailing separators left out. */
export const basename: (path: string) => string = native?.basename ??
  ((path) => {
    let end = path.length;
    while (end > 0 && path[end - 1] === "/") end--;
    return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
  });

/** The extension of `path`'s last part, from its last `.` (`""` for none). */
export const extname: (path: string) => string = native?.extname ??
  ((path) => {
    const base = basename(path);
    const dot = base.lastIndexOf(".");
    return dot <= 0 || (dot === 1 && base === "..") ? "" : base.slice(dot);
  });

/** The path from `from` to `to`, both resolved first (`""` when the same). */
export const relative: (from: string, to: string) => string =
  native?.relative ??
    ((from, to) => {
      const fromParts = resolve(from).split("/").filter((part) => part !== "");
      const toParts = resolve(to).split("/").filter((part) => part !== "");
      let common = 0;
      while (
        common < fromParts.length && common < toParts.length &&
        fromParts[common] === toParts[common]
      ) common++;
      return [
        ...fromParts.slice(common).map(() => ".."),
        ...toParts.slice(common),
      ].join("/");
    });
