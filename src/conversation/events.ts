/**
 * Typed, read-only views of conversation events. The base64 fields jp uses on
 * disk (tool arguments, tool results, metadata) are decoded only when their
 * getter is called.
 *
 * @module
 */

import { decodeBase64Leaves, decodeBase64Text } from "./base64_field.ts";
import { chatResponseKind, type Entry } from "./entry.ts";

/** Fields every typed event view shares. */
export interface EventBase {
  /** The underlying entry. */
  readonly entry: Entry;
  /** The decoded `metadata` map (empty when absent). */
  metadata(): Record<string, unknown>;
}

/** A `turn_start` event. */
export interface TurnStartEvent extends EventBase {
  /** Discriminant. */
  readonly type: "turn_start";
  /** The stored one-line summary, if any. */
  readonly summary: string | undefined;
}

/** A `chat_request` event: what the user asked. */
export interface ChatRequestEvent extends EventBase {
  /** Discriminant. */
  readonly type: "chat_request";
  /** The request text. */
  readonly content: string;
  /** The display name of the author, when recorded. */
  readonly author: string | undefined;
  /** The JSON schema asked for, when the request wants structured output. */
  readonly schema: unknown;
}

/** A `chat_response` event: an assistant message, reasoning, or structured data. */
export interface ChatResponseEvent extends EventBase {
  /** Discriminant. */
  readonly type: "chat_response";
  /** Which of the three forms this response has. */
  readonly kind: "message" | "reasoning" | "structured";
  /** The text of a message or reasoning response. */
  readonly text: string | undefined;
  /** The structured output of a `data` response. */
  readonly data: unknown;
}

/** A `tool_call_request` event. */
export interface ToolCallRequestEvent extends EventBase {
  /** Discriminant. */
  readonly type: "tool_call_request";
  /** The provider's call id. */
  readonly id: string;
  /** The tool name. */
  readonly name: string;
  /** The arguments with every string leaf decoded from base64. */
  arguments(): Record<string, unknown>;
}

/** A `tool_call_response` event. */
export interface ToolCallResponseEvent extends EventBase {
  /** Discriminant. */
  readonly type: "tool_call_response";
  /** The call id it answers. */
  readonly id: string;
  /** Whether the tool failed. */
  readonly isError: boolean;
  /** The tool output, decoded from base64 (kept as stored when it does not decode). */
  content(): string;
}

/** An `inquiry_request` event (a question put to the user or the assistant). */
export interface InquiryRequestEvent extends EventBase {
  /** Discriminant. */
  readonly type: "inquiry_request";
  /** The inquiry id. */
  readonly id: string;
  /** Who asks: `{source: "tool", name}`, `{source: "assistant"}`, ... */
  readonly source: unknown;
  /** The question object. */
  readonly question: unknown;
}

/** An `inquiry_response` event. */
export interface InquiryResponseEvent extends EventBase {
  /** Discriminant. */
  readonly type: "inquiry_response";
  /** The inquiry id it answers. */
  readonly id: string;
  /** The answer value. */
  readonly answer: unknown;
}

/** A `config_delta` entry: a change to the conversation's config. */
export interface ConfigDeltaEvent {
  /** Discriminant. */
  readonly type: "config_delta";
  /** The underlying entry. */
  readonly entry: Entry;
  /** The partial config (for G0 files, the fields beside `type`). */
  readonly delta: Record<string, unknown>;
  /** Dotted paths this delta unsets (newer jp). */
  readonly unsets: string[];
  /** `"reset"` for a reset delta, `"apply"` otherwise. */
  readonly op: "apply" | "reset";
}

/** Any typed event. */
export type ConversationEvent =
  | TurnStartEvent
  | ChatRequestEvent
  | ChatResponseEvent
  | ToolCallRequestEvent
  | ToolCallResponseEvent
  | InquiryRequestEvent
  | InquiryResponseEvent
  | ConfigDeltaEvent;

/**
 * Reads an entry as a typed event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConversationStream, readEvent } from "@jpt/cli";
 * const bytes = new TextEncoder().encode(
 *   '[{"timestamp": "2026-01-01 00:00:00.0", "type": "chat_request", "content": "hi"}]\n',
 * );
 * const event = readEvent(ConversationStream.parse(bytes).entries[0]!);
 * assert.equal(event?.type === "chat_request" && event.content, "hi");
 * ```
 *
 * @param entry An entry of the stream.
 * @returns The typed view, or `undefined` for entry types without one
 *   (compactions, overlays, unknown types).
 * @throws {TypeError} When a known event lacks a required field.
 */
export function readEvent(entry: Entry): ConversationEvent | undefined {
  const data = entry.data();
  const metadata = () =>
    decodeBase64Leaves(data.metadata ?? {}) as Record<string, unknown>;
  switch (entry.type) {
    case "turn_start":
      return {
        type: "turn_start",
        entry,
        metadata,
        summary: typeof data.summary === "string" ? data.summary : undefined,
      };
    case "chat_request":
      return {
        type: "chat_request",
        entry,
        metadata,
        content: requireString(entry, data, "content"),
        author: typeof data.author === "string" ? data.author : undefined,
        schema: data.schema,
      };
    case "chat_response": {
      const kind = chatResponseKind(data);
      if (kind === undefined) {
        throw new TypeError(
          `A chat_response needs "message", "reasoning" or "data" (event at ${entry.timestamp})`,
        );
      }
      const text = kind === "structured"
        ? undefined
        : requireString(entry, data, kind);
      return {
        type: "chat_response",
        entry,
        metadata,
        kind,
        text,
        data: data.data,
      };
    }
    case "tool_call_request":
      return {
        type: "tool_call_request",
        entry,
        metadata,
        id: requireString(entry, data, "id"),
        name: requireString(entry, data, "name"),
        arguments: () =>
          decodeBase64Leaves(data.arguments ?? {}) as Record<string, unknown>,
      };
    case "tool_call_response": {
      const content = requireString(entry, data, "content");
      return {
        type: "tool_call_response",
        entry,
        metadata,
        id: requireString(entry, data, "id"),
        isError: data.is_error === true,
        content: () => decodeBase64Text(content) ?? content,
      };
    }
    case "inquiry_request":
      return {
        type: "inquiry_request",
        entry,
        metadata,
        id: requireString(entry, data, "id"),
        source: data.source,
        question: data.question,
      };
    case "inquiry_response":
      return {
        type: "inquiry_response",
        entry,
        metadata,
        id: requireString(entry, data, "id"),
        answer: data.answer,
      };
    case "config_delta":
      return {
        type: "config_delta",
        entry,
        delta: configDeltaOf(data),
        unsets: Array.isArray(data.unsets)
          ? data.unsets.filter((u) => typeof u === "string")
          : [],
        op: data.op === "reset" ? "reset" : "apply",
      };
    default:
      return undefined;
  }
}

function configDeltaOf(data: Record<string, unknown>): Record<string, unknown> {
  if (typeof data.delta === "object" && data.delta !== null) {
    return data.delta as Record<string, unknown>;
  }
  // G0: the config fields sit beside the entry's own keys.
  const delta: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (!["type", "timestamp", "event_id", "op", "unsets"].includes(key)) {
      Object.defineProperty(delta, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return delta;
}

function requireString(
  entry: Entry,
  data: Record<string, unknown>,
  key: string,
): string {
  const value = data[key];
  if (typeof value !== "string") {
    throw new TypeError(
      `A ${entry.type} needs a string "${key}" (event at ${entry.timestamp})`,
    );
  }
  return value;
}
