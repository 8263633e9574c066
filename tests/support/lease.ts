/**
 * Holding a conversation's summary lease in a test, as another summarizer
 * (a worker, `jpt watch`) would.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Services } from "../../src/app/services.ts";
import type { Session } from "../../src/app/session.ts";
import { identityOf } from "../../src/labels/label_recorder.ts";
import {
  type SummaryLease,
  takeSummaryLease,
} from "../../src/labels/summary_lease.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { FakeLlm, summaryResponder } from "./fake_llm.ts";
import { testSession, useFakeModel } from "./session.ts";
import {
  simpleTurns,
  type TempWorkspace,
  tempWorkspace,
  writeConversation,
} from "./workspace.ts";

/**
 * Takes a conversation's summary lease (it must be free).
 *
 * @param session The test's session (its data directory holds the lease).
 * @param root The workspace root.
 * @param id The conversation id.
 * @param dir The conversation's directory.
 * @returns The held lease: release it.
 */
export async function holdSummaryLease(
  session: Session,
  root: string,
  id: string,
  dir: string,
): Promise<SummaryLease> {
  const labels = new Services(session).labels(
    await Workspace.open(root, session.env),
  );
  const lease = await takeSummaryLease(
    session.env,
    await identityOf(labels, { id, copies: [{ root: undefined, dir }] }),
  );
  assert.ok(lease, "the lease was free");
  return lease;
}

/** A conversation of two turns whose lease another summarizer holds. */
export interface HeldConversation extends AsyncDisposable {
  /** The workspace. */
  ws: TempWorkspace;
  /** The model (it answers summary requests). */
  llm: FakeLlm;
  /** The conversation's directory (id `17800000000`). */
  dir: string;
  /** The test's session. */
  session: Session;
  /** The lease, held: release it to let others in. */
  lease: SummaryLease;
}

/**
 * A workspace with one conversation of two unlabelled turns, a fake model
 * for every role, and the conversation's summary lease held.
 *
 * @param prefix The turns' id prefix.
 * @returns The set-up; disposing of it releases and removes everything.
 */
export async function heldConversation(
  prefix: string,
): Promise<HeldConversation> {
  const ws = await tempWorkspace();
  const llm = FakeLlm.start(summaryResponder());
  await useFakeModel(ws, llm.url);
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns(prefix, 2),
  );
  const session = testSession(ws);
  const lease = await holdSummaryLease(session, ws.root, "17800000000", dir);
  return {
    ws,
    llm,
    dir,
    session,
    lease,
    async [Symbol.asyncDispose]() {
      await lease.release().catch(() => {});
      await llm[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
    },
  };
}
