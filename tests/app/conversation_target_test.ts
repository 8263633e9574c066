import assert from "node:assert/strict";
import { join } from "node:path";
import {
  defaultConversation,
  KeywordTargetError,
  resolveTarget,
  targetConversation,
  TargetHelp,
} from "../../src/app/conversation_target.ts";
import { NoConversationsError, type Session } from "../../src/app/session.ts";
import { UsageError } from "../../src/errors/jpt_error.ts";
import {
  currentJpSession,
  type JpSession,
  sessionStorageKey,
} from "../../src/workspace/jp_session.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { testSession } from "../support/session.ts";
import {
  simpleTurns,
  type TempWorkspace,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const meta = (activated: string, extra = "") =>
  `{\n  "last_activated_at": "${activated}"${extra}\n}\n`;

/**
 * Three live conversations (1 activated last, 3 created last, 2 pinned) and
 * one archived, in a workspace with a user-local silo.
 */
async function workspaceWithHistory(): Promise<
  { ws: TempWorkspace; silo: string }
> {
  const ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17800000001",
    simpleTurns("a", 1),
    meta("2026-03-01 00:00:00.0"),
  );
  await writeConversation(
    ws.conversations,
    "17800000002-pinned",
    simpleTurns("b", 1),
    meta("2026-01-01 00:00:00.0", `,\n  "pinned_at": "2026-02-01 00:00:00.0"`),
  );
  await writeConversation(
    ws.conversations,
    "17800000003",
    simpleTurns("c", 1),
    meta("2026-02-01 00:00:00.0"),
  );
  await writeConversation(
    join(ws.conversations, ".archive"),
    "17800000004",
    simpleTurns("d", 1),
    meta(
      "2026-01-01 00:00:00.0",
      `,\n  "archived_at": "2026-04-01 00:00:00.0"`,
    ),
  );
  const silo = join(ws.userData, "workspace", "project-abcde");
  await Deno.mkdir(join(silo, "sessions"), { recursive: true });
  return { ws, silo };
}

/** Writes a session file as jp does (pretty JSON, newline). */
async function writeSession(
  silo: string,
  session: JpSession,
  ids: number[],
  name?: string,
): Promise<void> {
  name ??= await sessionStorageKey(session);
  const mapping = {
    history: ids.map((id) => ({
      id,
      activated_at: "2026-05-01T00:00:00.000000Z",
    })),
    id: session.id,
    source: session.source,
  };
  await Deno.writeTextFile(
    join(silo, "sessions", `${name}.json`),
    JSON.stringify(mapping, null, 2) + "\n",
  );
}

function sessionWith(ws: TempWorkspace, env: Record<string, string>): Session {
  return testSession(ws, env);
}

Deno.test("resolveTarget() follows jp's aliases: recent, newest, pinned, archived, ids", async () => {
  const { ws } = await workspaceWithHistory();
  await using _ = ws;
  const session = testSession(ws);
  const workspace = await Workspace.open(ws.root, session.env);
  const id = async (target: string) =>
    (await resolveTarget(session, workspace, target)).id;
  for (const target of ["r", "recent", "last", "last-activated"]) {
    assert.equal(await id(target), "17800000001", target);
  }
  for (const target of ["n", "newest", "last-created"]) {
    assert.equal(await id(target), "17800000003", target);
  }
  assert.equal(await id("p"), "17800000002");
  assert.equal(await id("pinned"), "17800000002");
  assert.equal(await id("a"), "17800000004");
  assert.equal(await id("archived"), "17800000004");
  assert.equal(await id("jp-c17800000002"), "17800000002");
  assert.equal(await id("17800000003"), "17800000003");
});

Deno.test("resolveTarget() without a picker: picker keywords and unknown ones are usage errors, multi-target keywords refused with the fix; help is the keyword table (exit 0); with one, ? asks it", async () => {
  const { ws } = await workspaceWithHistory();
  await using _ = ws;
  const session = testSession(ws);
  const workspace = await Workspace.open(ws.root, session.env);
  for (const target of ["?", "?p", "?session", ""]) {
    await assert.rejects(
      resolveTarget(session, workspace, target),
      (error) =>
        error instanceof UsageError && /needs a terminal/.test(error.message),
      target,
    );
  }
  await assert.rejects(
    resolveTarget(session, workspace, "?x"),
    (error) =>
      error instanceof UsageError && /\?, \?p, \?s or \?a/.test(error.message),
  );
  for (const target of ["+live", "+p", "-"]) {
    await assert.rejects(
      resolveTarget(session, workspace, target),
      (error) =>
        error instanceof UsageError &&
        /several conversations/.test(error.message),
      target,
    );
  }
  await assert.rejects(
    resolveTarget(session, workspace, "help"),
    (error) =>
      error instanceof TargetHelp && error.exitCode === 0 &&
      /\., active/.test(error.message) && /n, newest/.test(error.message),
  );
  // With a picker, ? offers every live conversation, most recently activated first.
  const offered: string[][] = [];
  const picking = {
    ...session,
    pick: (request: { choices: Array<{ value: string }> }) => {
      offered.push(request.choices.map((choice) => choice.value));
      return Promise.resolve(request.choices.at(-1)!.value);
    },
  };
  const picked = await resolveTarget(picking, workspace, "?");
  assert.equal(offered.length, 1);
  assert.equal(picked.id, offered[0]!.at(-1));
  assert.ok(offered[0]!.length >= 2);
});

Deno.test("the session's active and previous conversations come from jp's session file for $JP_SESSION", async () => {
  const { ws, silo } = await workspaceWithHistory();
  await using _ = ws;
  const jpSession: JpSession = {
    id: "my-term",
    source: { type: "env", key: "JP_SESSION" },
  };
  // Most recent first: 3 is active, 2 previous.
  await writeSession(silo, jpSession, [17800000003, 17800000002, 17800000001]);
  const session = sessionWith(ws, { JP_SESSION: "my-term" });
  const workspace = await Workspace.open(ws.root, session.env);
  assert.equal(
    (await resolveTarget(session, workspace, ".")).id,
    "17800000003",
  );
  assert.equal(
    (await resolveTarget(session, workspace, "active")).id,
    "17800000003",
  );
  assert.equal(
    (await resolveTarget(session, workspace, "s")).id,
    "17800000002",
  );
  // Nothing named: the session's active conversation wins over the most recent.
  assert.equal(
    (await targetConversation(session, undefined)).ref.id,
    "17800000003",
  );
  // Another terminal has no history: `.` names nothing, with the fix.
  const other = sessionWith(ws, { JP_SESSION: "other-term" });
  await assert.rejects(
    resolveTarget(other, workspace, "."),
    (error) =>
      error instanceof KeywordTargetError &&
      /jp conversation use/.test(error.message),
  );
  assert.equal(
    (await targetConversation(other, undefined)).ref.id,
    "17800000001",
  );
});

Deno.test("a session history skips deleted conversations and stops at an archived one (jp's walk)", async () => {
  const { ws, silo } = await workspaceWithHistory();
  await using _ = ws;
  const jpSession: JpSession = {
    id: "t1",
    source: { type: "env", key: "JP_SESSION" },
  };
  await writeSession(silo, jpSession, [
    17899999999,
    17800000002,
    17800000004,
    17800000001,
  ]);
  const session = sessionWith(ws, { JP_SESSION: "t1" });
  const workspace = await Workspace.open(ws.root, session.env);
  assert.equal(
    (await resolveTarget(session, workspace, ".")).id,
    "17800000002",
  );
  // 4 is archived: 1, activated before it, is not the session's previous.
  await assert.rejects(
    resolveTarget(session, workspace, "session"),
    KeywordTargetError,
  );
});

Deno.test("a session file counts only when its stored id and source are this session's; legacy names are read", async () => {
  const { ws, silo } = await workspaceWithHistory();
  await using _ = ws;
  const mine: JpSession = {
    id: "t2",
    source: { type: "env", key: "JP_SESSION" },
  };
  // Right file name, but written for another source: ignored.
  await writeSession(
    silo,
    { id: "t2", source: { type: "env", key: "TMUX_PANE" } },
    [17800000002],
    await sessionStorageKey(mine),
  );
  const session = sessionWith(ws, { JP_SESSION: "t2" });
  const workspace = await Workspace.open(ws.root, session.env);
  await assert.rejects(
    resolveTarget(session, workspace, "."),
    KeywordTargetError,
  );
  // jp's legacy layout: named by the bare value, without `id`.
  await Deno.remove(
    join(silo, "sessions", `${await sessionStorageKey(mine)}.json`),
  );
  await Deno.writeTextFile(
    join(silo, "sessions", "t2.json"),
    JSON.stringify({
      history: [{ id: 17800000002, activated_at: "2026-05-01T00:00:00Z" }],
      source: { type: "env", key: "JP_SESSION" },
    }),
  );
  assert.equal(
    (await resolveTarget(session, workspace, ".")).id,
    "17800000002",
  );
});

Deno.test("this process's session is asked for only when jp has stored session histories for the workspace", async () => {
  const { ws, silo } = await workspaceWithHistory();
  await using _ = ws;
  const sid = { id: "4242", source: { type: "getsid" as const } };
  await writeSession(silo, sid, [17800000003]);
  let asked = 0;
  const session: Session = {
    ...testSession(ws),
    processSession: () => {
      asked++;
      return Promise.resolve("4242");
    },
  };
  const workspace = await Workspace.open(ws.root, session.env);
  assert.equal(
    (await defaultConversation(session, workspace))?.id,
    "17800000003",
  );
  assert.equal(asked, 1);
  // No sessions directory: no session can have a history, so no `ps`.
  await Deno.remove(join(silo, "sessions"), { recursive: true });
  assert.equal(
    (await defaultConversation(session, workspace))?.id,
    "17800000001",
  );
  assert.equal(asked, 1);
});

Deno.test("jp's session identity: $JP_SESSION, then getsid, then the terminals' variables; storage keys as jp names them", async () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.deepEqual(
    await currentJpSession(
      env({ JP_SESSION: "x", TMUX_PANE: "%1" }),
      () => Promise.resolve("42"),
    ),
    { id: "x", source: { type: "env", key: "JP_SESSION" } },
  );
  assert.deepEqual(
    await currentJpSession(
      env({ TMUX_PANE: "%1" }),
      () => Promise.resolve("42"),
    ),
    { id: "42", source: { type: "getsid" } },
  );
  assert.deepEqual(
    await currentJpSession(env({ TMUX_PANE: "%1", ITERM_SESSION_ID: "i" })),
    { id: "%1", source: { type: "env", key: "TMUX_PANE" } },
  );
  assert.equal(await currentJpSession(env({ JP_SESSION: "" })), undefined);
  assert.equal(
    await sessionStorageKey({ id: "4242", source: { type: "getsid" } }),
    "getsid-4242",
  );
  // sha256("my-term") starts with these 16 hex digits.
  const { createHash } = await import("node:crypto");
  const digest = createHash("sha256").update("my-term").digest("hex");
  assert.equal(
    await sessionStorageKey({
      id: "my-term",
      source: { type: "env", key: "JP-SESSION" },
    }),
    `env-JP_SESSION-${digest.slice(0, 16)}`,
  );
});

Deno.test("conversation.default_id chooses the conversation when the session has none", async () => {
  const { ws } = await workspaceWithHistory();
  await using _ = ws;
  const workspace = await Workspace.open(ws.root, testSession(ws).env);
  const withDefault = async (value: string) => {
    await Deno.writeTextFile(
      join(ws.root, ".jp", "config.toml"),
      `[conversation]\ndefault_id = "${value}"\n`,
    );
    return (await defaultConversation(testSession(ws), workspace))?.id;
  };
  assert.equal(await withDefault("last-created"), "17800000003");
  assert.equal(await withDefault("last_activated"), "17800000001");
  assert.equal(await withDefault("jp-c17800000002"), "17800000002");
  // `ask` opens jp's picker; jpt takes the most recently activated.
  assert.equal(await withDefault("ask"), "17800000001");
});

Deno.test("conversation.default_id is found wherever jp's layers can set it, and config that cannot set it is not read", async () => {
  const { ws } = await workspaceWithHistory();
  await using _ = ws;
  const workspace = await Workspace.open(ws.root, testSession(ws).env);
  const config = join(ws.root, ".jp", "config.toml");
  const chosen = async (env: Record<string, string> = {}) =>
    (await defaultConversation(testSession(ws, env), workspace))?.id;
  // A drop-in of jp's default `extends` (config.d/**/*).
  await Deno.writeTextFile(config, `[assistant.model]\nid = "ollama/x"\n`);
  await Deno.mkdir(join(ws.root, ".jp", "config.d"));
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.d", "pick.toml"),
    `[conversation]\ndefault_id = "last-created"\n`,
  );
  assert.equal(await chosen(), "17800000003");
  await Deno.remove(join(ws.root, ".jp", "config.d"), { recursive: true });
  // A variable of jp's.
  assert.equal(
    await chosen({ JP_CFG_CONVERSATION_DEFAULT_ID: "jp-c17800000002" }),
    "17800000002",
  );
  // No source mentions the key: the config is not loaded, so a file jp
  // would refuse does not stop a listing (as with a conversation named).
  await Deno.writeTextFile(config, "this is = = not toml\n");
  assert.equal(await chosen(), "17800000001");
  // When a file could set it, it is loaded, and its error is reported.
  await Deno.writeTextFile(config, "default_id = = broken\n");
  await assert.rejects(chosen(), /config\.toml/);
});

Deno.test("targetConversation() with nothing named in an empty workspace names the fix", async () => {
  await using ws = await tempWorkspace();
  await assert.rejects(
    targetConversation(testSession(ws), undefined),
    (error) =>
      error instanceof NoConversationsError &&
      /jpt query --new/.test(error.message),
  );
});
