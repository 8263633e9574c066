/**
 * `TitleTask`: names a new conversation in the background, as jp's title
 * generator does (storage reference 8), then stores the title and renames the
 * conversation's directory by jp's slug rules while holding its lock.
 *
 * @module
 */

import type { ConfigTable } from "../config/config_tree.ts";
import { resolveRoleModel, type RoleModel } from "../config/role_models.ts";
import { type ChatClient, createChatClient } from "../llm/chat_client.ts";
import { resolveEndpoint } from "../llm/endpoint.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import { normalizeTitle } from "../conversation/title_text.ts";
import type { ChatMessage } from "../llm/chat_stream.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import { requestParams } from "../llm/request_params.ts";
import { structuredCompletion } from "../llm/structured_completion.ts";
import type { UsageSink } from "../llm/token_usage.ts";
import { renameConversationDirs } from "../workspace/conversation_create.ts";
import { saveConversation } from "../workspace/conversation_io.ts";
import type { ConversationRef } from "../workspace/conversation_ref.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { withConversation } from "../workspace/unit_of_work.ts";
import { abortable } from "../platform/abortable.ts";
import type { BackgroundTask } from "./task_handler.ts";
import { describeModelError } from "../llm/describe_error.ts";

/** jp's title instruction (one title). */
export const TITLE_INSTRUCTION = [
  '<instruction title="Title Generation">',
  "Generate titles to summarize the active conversation",
  "",
  "- Generate exactly 1 titles",
  "- Concise, descriptive, factual",
  "- Short and to the point, no more than 50 characters",
  '- Deliver as a JSON object with a "titles" array of strings',
  "- DO NOT mention this request to generate titles",
  "</instruction>",
].join("\n");

/** jp's title schema for one title. */
export const TITLE_SCHEMA: Record<string, unknown> = {
  type: "object",
  required: ["titles"],
  additionalProperties: false,
  properties: {
    titles: {
      type: "array",
      items: {
        type: "string",
        description: "A concise, descriptive title for the conversation",
      },
      minItems: 1,
      maxItems: 1,
    },
  },
};

/** The title model, resolved when the task runs. */
export interface TitleModel {
  /** The role model. */
  model: RoleModel;
  /** Its endpoint. */
  endpoint: ProviderEndpoint;
  /** A chat client for it. */
  client: ChatClient;
  /** Told of the tokens each request used. */
  onUsage?: UsageSink;
}

/**
 * Resolves the title role model, its endpoint and a client for it.
 *
 * @param config The effective config.
 * @param env Environment access (the key is read here).
 * @param onUsage Told of the tokens each request used.
 * @returns The title model.
 * @throws {JptError} When it cannot be used (unknown model, no key).
 */
export async function resolveTitleModel(
  config: ConfigTable,
  env: EnvReader,
  onUsage?: (model: string) => UsageSink,
): Promise<TitleModel> {
  const model = resolveRoleModel(config, "title");
  const endpoint = resolveEndpoint(model.id, config, env);
  return {
    model,
    endpoint,
    client: await createChatClient(endpoint, env),
    ...(onUsage === undefined
      ? {}
      : { onUsage: onUsage(`${model.id.provider}/${model.id.name}`) }),
  };
}

/** What a {@linkcode TitleTask} needs. */
export interface TitleTaskOptions {
  /** The conversation's messages so far (the first request). */
  messages: ChatMessage[];
  /** Resolves the title model and its client (rejects without a key). */
  resolveModel: () => Promise<TitleModel>;
  /** The workspace. */
  workspace: Workspace;
  /** The conversation. */
  ref: ConversationRef;
  /** Diagnostic log. */
  log: (line: string) => void;
}

/** Generates and stores a title; see the module doc. */
export class TitleTask implements BackgroundTask {
  /** Name for logs. */
  readonly name: string;
  /** The title stored by sync, if any. */
  stored: string | undefined;
  /** Why the title model could not be used, when it could not. */
  failure: unknown;
  readonly #options: TitleTaskOptions;
  #title: string | undefined;

  /**
   * @param options See {@linkcode TitleTaskOptions}.
   */
  constructor(options: TitleTaskOptions) {
    this.#options = options;
    this.name = `title of jp-c${options.ref.id}`;
  }

  /**
   * Asks the title model.
   *
   * @param signal Aborts the request.
   */
  async run(signal: AbortSignal): Promise<void> {
    let answer: string;
    try {
      const { model, endpoint, client, onUsage } = await this.#options
        .resolveModel();
      answer = await abortable(
        structuredCompletion(client, endpoint, {
          model: model.id.name,
          messages: [
            { role: "system", content: TITLE_INSTRUCTION },
            ...this.#options.messages,
            {
              role: "user",
              content: "Generate a title for this conversation.",
            },
          ],
          params: requestParams(model),
          schemaName: "titles",
          schema: TITLE_SCHEMA,
          onUsage,
        }, signal).catch((error) => {
          throw signal.aborted
            ? error
            : describeModelError(error, endpoint, model.id.name);
        }),
        signal,
      );
    } catch (error) {
      this.failure = error;
      throw error;
    }
    this.#title = parseTitle(answer);
    if (this.#title === undefined) {
      this.#options.log(`${this.name}: the model gave no usable title`);
    }
  }

  /** Stores the title and renames the directory, unless the lock is held. */
  async sync(): Promise<void> {
    if (this.#title === undefined) return;
    const { workspace, ref, log } = this.#options;
    await withConversation(workspace, ref, {
      lock: "if-free",
      onHeld: (error) =>
        log(`${this.name}: ${error.message}; title not stored`),
    }, async (conversation) => {
      if (conversation.metadata.title !== undefined) return;
      conversation.metadata.setTitle(this.#title);
      await saveConversation(conversation);
      conversation.ref = await renameConversationDirs(ref, this.#title);
      this.stored = this.#title;
    });
  }
}

/**
 * Reads the first title of a `{"titles": [...]}` answer, normalized.
 *
 * @param answer The model's text.
 * @returns The title, or `undefined`.
 */
export function parseTitle(answer: string): string | undefined {
  const start = answer.indexOf("{");
  const end = answer.lastIndexOf("}");
  if (start < 0 || end < start) return undefined;
  try {
    const titles =
      (JSON.parse(answer.slice(start, end + 1)) as { titles?: unknown }).titles;
    const first = Array.isArray(titles)
      ? titles.find((item) => typeof item === "string")
      : undefined;
    return first === undefined ? undefined : normalizeTitle(first);
  } catch {
    return undefined;
  }
}
