import assert from "node:assert/strict";
import {
  conversationDirName,
  conversationIdAt,
  formatConversationId,
  idFromDirName,
  parseConversationId,
} from "../../src/workspace/conversation_id.ts";

Deno.test("idFromDirName() reads the part before the first dash", () => {
  assert.equal(
    idFromDirName("17758406187-missing-date-in-version-string"),
    "17758406187",
  );
  assert.equal(idFromDirName("17758406187"), "17758406187");
  assert.equal(idFromDirName("notes"), undefined);
  assert.equal(idFromDirName("99999999999999999999-too-big"), undefined);
});

Deno.test("parseConversationId() accepts jp-c<id> and <id>", () => {
  assert.equal(parseConversationId("jp-c17758406187"), "17758406187");
  assert.equal(parseConversationId("17758406187"), "17758406187");
  assert.equal(parseConversationId("jp-x1"), undefined);
  assert.equal(formatConversationId("17758406187"), "jp-c17758406187");
});

Deno.test("conversationIdAt() truncates to deciseconds", () => {
  assert.equal(conversationIdAt(new Date(1775840618799)), "17758406187");
});

Deno.test("conversationDirName() follows jp's slug rules", () => {
  const id = "17758406187";
  const cases: Array<[string | undefined, string]> = [
    [undefined, id],
    ["Missing date in version string", `${id}-missing-date-in-version-string`],
    ["Hello, World!", `${id}-hello--world`],
    ["  Padded title  ", `${id}-padded-title`],
    ["???", id],
    ["...leading", `${id}----leading`],
    [
      "Investigating Segfault in iter_mut Change Tracking",
      `${id}-investigating-segfault-in-iter-mut-change-tracking`,
    ],
    [
      "Understanding the borrow checker when returning references from methods",
      `${id}-understanding-the-borrow-checker-when-returning-references`,
    ],
    ["x".repeat(70), id],
    [
      "日本語のタイトルはとても長いのでバイト数が六十を超えます 最後",
      `${id}-日本語のタイトルはとても長いのでバイト数が六十を超えます`,
    ],
  ];
  for (const [title, expected] of cases) {
    assert.equal(conversationDirName(id, title), expected, String(title));
  }
});
