/**
 * `jpt serve`'s server: a read-only viewer of the workspace on `Deno.serve`.
 * Every path starts with a random token (`/<token>/…`), so a page's relative
 * links carry it and a request without it is refused (403); the `Host`
 * header must name the bound address (no DNS rebinding); no CORS; a
 * Content-Security-Policy that allows only the viewer's own script and
 * stylesheet; conversation ids validated before any file is looked up. The
 * server never writes a file.
 *
 * @module
 */

import type { Session } from "../app/session.ts";
import { viewedConversation } from "../app/read/viewer_roots.ts";
import { parseConversationId } from "../workspace/conversation_id.ts";
import { APP_JS, STYLE_CSS } from "./assets.ts";
import { LiveUpdates } from "./live.ts";
import { listPage, searchPage } from "./pages.ts";
import type { ViewerReader } from "./viewer_reader.ts";

/** Where and how the viewer listens. */
export interface ServeOptions {
  /** The address to bind (127.0.0.1 unless the user chose another). */
  hostname: string;
  /** The port (0: any free one). */
  port: number;
  /** The token every path starts with. */
  token: string;
  /** The directories holding conversation directories (watched for live updates). */
  roots: readonly string[];
  /** Stops the server. */
  signal: AbortSignal;
  /** Told the viewer's address once it listens (with the token). */
  onListen(url: string): void;
  /**
   * Reads whole conversations: the CLI's reads in a process of its own per
   * request, so a large file's parse never stays in the server's memory.
   */
  reader: ViewerReader;
}

/** Security headers of every response. */
const HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/**
 * A token for the viewer's paths: 128 random bits, hex.
 *
 * @returns The token.
 */
export function newToken(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((byte) =>
    byte.toString(16).padStart(2, "0")
  ).join("");
}

/**
 * Serves the viewer until the signal stops it.
 *
 * @param session Where the flows run (its workspace is the one shown).
 * @param options See {@linkcode ServeOptions}.
 * @returns When the server has stopped.
 */
export async function serveWorkspace(
  session: Session,
  options: ServeOptions,
): Promise<void> {
  const live = new LiveUpdates(options.roots);
  let hosts: Set<string> = new Set();
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    signal: options.signal,
    onListen: ({ port }) => {
      hosts = allowedHosts(options.hostname, port);
      options.onListen(
        `http://${urlHost(options.hostname)}:${port}/${options.token}/`,
      );
    },
  }, async (request) => {
    const refused = refusal(request, options.token, hosts);
    if (refused !== undefined) return refused;
    try {
      return await route(session, request, options.token, {
        live,
        reader: options.reader,
      });
    } catch (error) {
      return text(
        404,
        error instanceof Error ? error.message : String(error),
      );
    }
  });
  await server.finished;
  live.close();
}

/** The `Host` values a request may carry. */
function allowedHosts(hostname: string, port: number): Set<string> {
  const names = hostname === "127.0.0.1" || hostname === "localhost"
    ? ["127.0.0.1", "localhost"]
    : hostname === "::1"
    ? ["[::1]", "localhost"]
    : [urlHost(hostname)];
  return new Set(names.map((name) => `${name}:${port}`));
}

function urlHost(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** 403 without the token or with a foreign `Host`; 405 for anything but GET. */
function refusal(
  request: Request,
  token: string,
  hosts: ReadonlySet<string>,
): Response | undefined {
  const url = new URL(request.url);
  const host = request.headers.get("host") ?? "";
  const anyHost = hosts.size === 1 && [...hosts][0]!.startsWith("0.0.0.0:");
  if (!anyHost && !hosts.has(host)) {
    return text(403, "Forbidden: this viewer answers only at its own address");
  }
  if (url.pathname !== `/${token}` && !url.pathname.startsWith(`/${token}/`)) {
    return text(403, "Forbidden: open the address jpt serve printed");
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return text(405, "Read-only: GET only");
  }
  return undefined;
}

async function route(
  session: Session,
  request: Request,
  token: string,
  shared: { live: LiveUpdates; reader: ViewerReader },
): Promise<Response> {
  const { live, reader } = shared;
  const url = new URL(request.url);
  const path = url.pathname.slice(token.length + 1);
  // The list's relative links need the trailing slash.
  if (path === "") return Response.redirect(`${url.origin}/${token}/`, 308);
  if (path === "/") return html(await renderList(reader));
  if (path === "/style.css") return asset(STYLE_CSS, "text/css");
  if (path === "/favicon.ico") {
    return new Response(null, { status: 204, headers: HEADERS });
  }
  if (path === "/app.js") return asset(APP_JS, "text/javascript");
  if (path === "/events") {
    return new Response(live.stream(), {
      headers: { ...HEADERS, "content-type": "text/event-stream" },
    });
  }
  if (path === "/search") {
    const query = (url.searchParams.get("q") ?? "").trim();
    const found = query === "" ? [] : await reader.search(query);
    return html(searchPage(query, found));
  }
  const conversation = /^\/c\/([^/]+)(\/summaries\.json)?$/.exec(path);
  const id = conversation === null
    ? undefined
    : parseConversationId(decodeURIComponent(conversation[1]!));
  if (id === undefined) return text(404, "Not found");
  // A live conversation by its id, else an archived one by its directory.
  if (await viewedConversation(session, id) === undefined) {
    return text(404, `No conversation jp-c${id}`);
  }
  if (conversation![2] !== undefined) {
    return new Response(await reader.summaries(id), {
      headers: { ...HEADERS, "content-type": "application/json" },
    });
  }
  const page = Math.max(0, Number(url.searchParams.get("page") ?? 0) | 0);
  // Streamed: the outline and the first turns reach the browser first.
  return html(await reader.page(id, page));
}

async function renderList(reader: ViewerReader): Promise<string> {
  const { rows, summarized } = await reader.list();
  const extra = new Map<string, { summarized: number; pinned: boolean }>();
  for (const row of rows) {
    extra.set(row.id, {
      summarized: summarized[row.id] ?? 0,
      pinned: row.pinned_at !== null,
    });
  }
  return listPage(rows, extra);
}

function html(body: string | ReadableStream<Uint8Array>): Response {
  return new Response(body, {
    headers: { ...HEADERS, "content-type": "text/html; charset=utf-8" },
  });
}

function asset(body: string, type: string): Response {
  return new Response(body, {
    headers: { ...HEADERS, "content-type": `${type}; charset=utf-8` },
  });
}

function text(status: number, body: string): Response {
  return new Response(`${body}\n`, {
    status,
    headers: { ...HEADERS, "content-type": "text/plain; charset=utf-8" },
  });
}
