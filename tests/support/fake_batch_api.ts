/**
 * A loopback OpenAI Batch API for tests: files upload (`POST /v1/files`,
 * multipart), batch creation (`POST /v1/batches`), polling
 * (`GET /v1/batches/{id}`: in progress for the first polls, then completed
 * with an output file) and file content (`GET /v1/files/{id}/content`).
 * Each request of a batch is answered as `summaryResponder` would answer it
 * directly. Direct chat completions are counted (a batch backfill makes
 * none).
 *
 * @module
 */

import { chatCompletion, requestedTurnIds } from "./fake_llm.ts";

interface StoredBatch {
  id: string;
  inputFileId: string;
  polls: number;
  outputFileId?: string;
}

/** A running fake Batch API; stop it with `await using`. */
export class FakeBatchApi implements AsyncDisposable {
  /** Files uploaded, by id: purpose and text. */
  readonly files = new Map<string, { purpose: string; text: string }>();
  /** Batches created, in order. */
  readonly batches: StoredBatch[] = [];
  /** Direct `/chat/completions` requests received. */
  directRequests = 0;
  /** Polls answered `in_progress` before a batch completes. */
  pollsBeforeDone = 2;
  /** File contents served (`GET /v1/files/{id}/content`). */
  downloads = 0;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#handle(request),
    );
  }

  /** `http://127.0.0.1:<port>/v1`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.#server.addr.port}/v1`;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#server.shutdown();
  }

  async #handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path.endsWith("/chat/completions")) {
      this.directRequests++;
      await request.body?.cancel();
      return Response.json({ error: { message: "use the batch" } }, {
        status: 400,
      });
    }
    if (request.method === "POST" && path === "/v1/files") {
      const form = await request.formData();
      const file = form.get("file") as File;
      const id = `file-${this.files.size + 1}`;
      this.files.set(id, {
        purpose: String(form.get("purpose")),
        text: await file.text(),
      });
      return Response.json({
        id,
        object: "file",
        bytes: file.size,
        created_at: 0,
        filename: file.name,
        purpose: form.get("purpose"),
      });
    }
    if (request.method === "POST" && path === "/v1/batches") {
      const body = await request.json();
      const batch: StoredBatch = {
        id: `batch_${this.batches.length + 1}`,
        inputFileId: body.input_file_id,
        polls: 0,
      };
      this.batches.push(batch);
      return Response.json(this.#view(batch, "validating"));
    }
    const batchMatch = /^\/v1\/batches\/([^/]+)$/.exec(path);
    if (request.method === "GET" && batchMatch) {
      const batch = this.batches.find((b) => b.id === batchMatch[1]);
      if (batch === undefined) return new Response("", { status: 404 });
      batch.polls++;
      if (batch.polls <= this.pollsBeforeDone) {
        return Response.json(this.#view(batch, "in_progress"));
      }
      batch.outputFileId ??= this.#answer(batch);
      return Response.json(this.#view(batch, "completed"));
    }
    const fileMatch = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (request.method === "GET" && fileMatch) {
      const file = this.files.get(fileMatch[1]!);
      if (file !== undefined) this.downloads++;
      return file === undefined
        ? new Response("", { status: 404 })
        : new Response(file.text);
    }
    return new Response("", { status: 404 });
  }

  /** Answers every line of the batch's input file; returns the output file's id. */
  #answer(batch: StoredBatch): string {
    const input = this.files.get(batch.inputFileId)!.text;
    const lines = input.split("\n").filter((line) => line.trim() !== "").map(
      (line) => {
        const request = JSON.parse(line);
        const ids = requestedTurnIds({ body: request.body } as never);
        const summaries = Object.fromEntries(
          ids.map((id) => [id, `Summarize turn ${id}`]),
        );
        return JSON.stringify({
          id: `resp-${request.custom_id}`,
          custom_id: request.custom_id,
          response: {
            status_code: 200,
            request_id: "req",
            body: chatCompletion(JSON.stringify({ summaries })),
          },
          error: null,
        });
      },
    );
    const id = `file-${this.files.size + 1}`;
    this.files.set(id, {
      purpose: "batch_output",
      text: lines.join("\n") + "\n",
    });
    return id;
  }

  #view(batch: StoredBatch, status: string): Record<string, unknown> {
    const total = this.files.get(batch.inputFileId)!.text.trim().split("\n")
      .length;
    return {
      id: batch.id,
      object: "batch",
      endpoint: "/v1/chat/completions",
      input_file_id: batch.inputFileId,
      completion_window: "24h",
      status,
      output_file_id: status === "completed" ? batch.outputFileId : null,
      error_file_id: null,
      created_at: 0,
      request_counts: {
        total,
        completed: status === "completed" ? total : 0,
        failed: 0,
      },
    };
  }
}
