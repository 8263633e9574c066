/**
 * Every module of `src/` that jpt loads on first use
 * (`src/runtime/lazy_import.ts`), imported by string literals a bundler and
 * `deno compile` follow. Only single-file builds import this file (through
 * `cli.ts`); a run from the sources loads each module by its path when it is
 * needed. `tests/platform/lazy_modules_test.ts` keeps this list equal to the
 * paths the sources ask for.
 *
 * @module
 */

/** Every lazily loaded module's namespace, by its path under `src/`. */
export interface LazyModules {
  "app/summarize/backfill.ts": typeof import("./src/app/summarize/backfill.ts");
  "app/turn/background_catch_up.ts":
    typeof import("./src/app/turn/background_catch_up.ts");
  "app/turn/background_title.ts":
    typeof import("./src/app/turn/background_title.ts");
  "app/batch/batch_backfill.ts":
    typeof import("./src/app/batch/batch_backfill.ts");
  "app/read/check_paths.ts": typeof import("./src/app/read/check_paths.ts");
  "app/pick.ts": typeof import("./src/app/pick.ts");
  "app/conversation_target.ts":
    typeof import("./src/app/conversation_target.ts");
  "app/read/conversation_view.ts":
    typeof import("./src/app/read/conversation_view.ts");
  "app/read/describe_models.ts":
    typeof import("./src/app/read/describe_models.ts");
  "app/edit/edit_conversation.ts":
    typeof import("./src/app/edit/edit_conversation.ts");
  "app/read/find_turns.ts": typeof import("./src/app/read/find_turns.ts");
  "app/turn/finish_turn.ts": typeof import("./src/app/turn/finish_turn.ts");
  "app/setup/fix_config.ts": typeof import("./src/app/setup/fix_config.ts");
  "app/setup/init_workspace.ts":
    typeof import("./src/app/setup/init_workspace.ts");
  "app/read/list_conversations.ts":
    typeof import("./src/app/read/list_conversations.ts");
  "app/read/list_turns.ts": typeof import("./src/app/read/list_turns.ts");
  "app/turn/run_turn.ts": typeof import("./src/app/turn/run_turn.ts");
  "app/session.ts": typeof import("./src/app/session.ts");
  "app/summarize/summary_worker.ts":
    typeof import("./src/app/summarize/summary_worker.ts");
  "app/read/usage_report.ts": typeof import("./src/app/read/usage_report.ts");
  "app/read/viewer_roots.ts": typeof import("./src/app/read/viewer_roots.ts");
  "app/summarize/watch_workspace.ts":
    typeof import("./src/app/summarize/watch_workspace.ts");
  "app/read/workspace_turns.ts":
    typeof import("./src/app/read/workspace_turns.ts");
  "cli/backfill_progress.ts": typeof import("./src/cli/backfill_progress.ts");
  "cli/check.ts": typeof import("./src/cli/check.ts");
  "cli/check_annotations.ts": typeof import("./src/cli/check_annotations.ts");
  "cli/columns.ts": typeof import("./src/cli/columns.ts");
  "cli/completions.ts": typeof import("./src/cli/completions.ts");
  "cli/config_show.ts": typeof import("./src/cli/config_show.ts");
  "cli/conversation_ls.ts": typeof import("./src/cli/conversation_ls.ts");
  "cli/edit.ts": typeof import("./src/cli/edit.ts");
  "cli/find.ts": typeof import("./src/cli/find.ts");
  "cli/hand_off.ts": typeof import("./src/cli/hand_off.ts");
  "cli/init.ts": typeof import("./src/cli/init.ts");
  "cli/log.ts": typeof import("./src/cli/log.ts");
  "cli/man.ts": typeof import("./src/cli/man.ts");
  "cli/models.ts": typeof import("./src/cli/models.ts");
  "cli/outline.ts": typeof import("./src/cli/outline.ts");
  "cli/pick.ts": typeof import("./src/cli/pick.ts");
  "cli/picker.ts": typeof import("./src/cli/picker.ts");
  "cli/plugin.ts": typeof import("./src/cli/plugin.ts");
  "cli/plugin_install.ts": typeof import("./src/cli/plugin_install.ts");
  "cli/plugin_run.ts": typeof import("./src/cli/plugin_run.ts");
  "cli/query.ts": typeof import("./src/cli/query.ts");
  "cli/serve.ts": typeof import("./src/cli/serve.ts");
  "cli/show.ts": typeof import("./src/cli/show.ts");
  "cli/spinner.ts": typeof import("./src/cli/spinner.ts");
  "cli/summarize.ts": typeof import("./src/cli/summarize.ts");
  "cli/summarize_batch.ts": typeof import("./src/cli/summarize_batch.ts");
  "cli/turns.ts": typeof import("./src/cli/turns.ts");
  "cli/turns_all.ts": typeof import("./src/cli/turns_all.ts");
  "cli/usage.ts": typeof import("./src/cli/usage.ts");
  "cli/watch.ts": typeof import("./src/cli/watch.ts");
  "cli/worker.ts": typeof import("./src/cli/worker.ts");
  "cli/worker_notes.ts": typeof import("./src/cli/worker_notes.ts");
  "config/config_file.ts": typeof import("./src/config/config_file.ts");
  "config/load_config.ts": typeof import("./src/config/load_config.ts");
  "conversation/events_overview.ts":
    typeof import("./src/conversation/events_overview.ts");
  "edit/run_editor.ts": typeof import("./src/edit/run_editor.ts");
  "llm/chat_client.ts": typeof import("./src/llm/chat_client.ts");
  "llm/describe_error.ts": typeof import("./src/llm/describe_error.ts");
  "summary/batch_state.ts": typeof import("./src/summary/batch_state.ts");
  "summary/prompt.ts": typeof import("./src/summary/prompt.ts");
  "summary/summary_model.ts": typeof import("./src/summary/summary_model.ts");
  "task/title_task.ts": typeof import("./src/task/title_task.ts");
  "workspace/conversation_create.ts":
    typeof import("./src/workspace/conversation_create.ts");
  "web/server.ts": typeof import("./src/web/server.ts");
  "web/viewer_reader.ts": typeof import("./src/web/viewer_reader.ts");
  "cli/serve_reader.ts": typeof import("./src/cli/serve_reader.ts");
  "workspace/worker_log.ts": typeof import("./src/workspace/worker_log.ts");
}

/** Every lazily loaded module, by its path under `src/`. */
export const LAZY_MODULES: {
  readonly [P in keyof LazyModules]: () => Promise<LazyModules[P]>;
} = {
  "app/summarize/backfill.ts": () => import("./src/app/summarize/backfill.ts"),
  "app/turn/background_catch_up.ts": () =>
    import("./src/app/turn/background_catch_up.ts"),
  "app/turn/background_title.ts": () =>
    import("./src/app/turn/background_title.ts"),
  "app/batch/batch_backfill.ts": () =>
    import("./src/app/batch/batch_backfill.ts"),
  "app/read/check_paths.ts": () => import("./src/app/read/check_paths.ts"),
  "app/pick.ts": () => import("./src/app/pick.ts"),
  "app/conversation_target.ts": () =>
    import("./src/app/conversation_target.ts"),
  "app/read/conversation_view.ts": () =>
    import("./src/app/read/conversation_view.ts"),
  "app/read/describe_models.ts": () =>
    import("./src/app/read/describe_models.ts"),
  "app/edit/edit_conversation.ts": () =>
    import("./src/app/edit/edit_conversation.ts"),
  "app/read/find_turns.ts": () => import("./src/app/read/find_turns.ts"),
  "app/turn/finish_turn.ts": () => import("./src/app/turn/finish_turn.ts"),
  "app/setup/fix_config.ts": () => import("./src/app/setup/fix_config.ts"),
  "app/setup/init_workspace.ts": () =>
    import("./src/app/setup/init_workspace.ts"),
  "app/read/list_conversations.ts": () =>
    import("./src/app/read/list_conversations.ts"),
  "app/read/list_turns.ts": () => import("./src/app/read/list_turns.ts"),
  "app/turn/run_turn.ts": () => import("./src/app/turn/run_turn.ts"),
  "app/session.ts": () => import("./src/app/session.ts"),
  "app/summarize/summary_worker.ts": () =>
    import("./src/app/summarize/summary_worker.ts"),
  "app/read/usage_report.ts": () => import("./src/app/read/usage_report.ts"),
  "app/read/viewer_roots.ts": () => import("./src/app/read/viewer_roots.ts"),
  "app/summarize/watch_workspace.ts": () =>
    import("./src/app/summarize/watch_workspace.ts"),
  "app/read/workspace_turns.ts": () =>
    import("./src/app/read/workspace_turns.ts"),
  "cli/backfill_progress.ts": () => import("./src/cli/backfill_progress.ts"),
  "cli/check.ts": () => import("./src/cli/check.ts"),
  "cli/check_annotations.ts": () => import("./src/cli/check_annotations.ts"),
  "cli/columns.ts": () => import("./src/cli/columns.ts"),
  "cli/completions.ts": () => import("./src/cli/completions.ts"),
  "cli/config_show.ts": () => import("./src/cli/config_show.ts"),
  "cli/conversation_ls.ts": () => import("./src/cli/conversation_ls.ts"),
  "cli/edit.ts": () => import("./src/cli/edit.ts"),
  "cli/find.ts": () => import("./src/cli/find.ts"),
  "cli/hand_off.ts": () => import("./src/cli/hand_off.ts"),
  "cli/init.ts": () => import("./src/cli/init.ts"),
  "cli/log.ts": () => import("./src/cli/log.ts"),
  "cli/man.ts": () => import("./src/cli/man.ts"),
  "cli/models.ts": () => import("./src/cli/models.ts"),
  "cli/outline.ts": () => import("./src/cli/outline.ts"),
  "cli/pick.ts": () => import("./src/cli/pick.ts"),
  "cli/picker.ts": () => import("./src/cli/picker.ts"),
  "cli/plugin.ts": () => import("./src/cli/plugin.ts"),
  "cli/plugin_install.ts": () => import("./src/cli/plugin_install.ts"),
  "cli/plugin_run.ts": () => import("./src/cli/plugin_run.ts"),
  "cli/query.ts": () => import("./src/cli/query.ts"),
  "cli/serve.ts": () => import("./src/cli/serve.ts"),
  "cli/show.ts": () => import("./src/cli/show.ts"),
  "cli/spinner.ts": () => import("./src/cli/spinner.ts"),
  "cli/summarize.ts": () => import("./src/cli/summarize.ts"),
  "cli/summarize_batch.ts": () => import("./src/cli/summarize_batch.ts"),
  "cli/turns.ts": () => import("./src/cli/turns.ts"),
  "cli/turns_all.ts": () => import("./src/cli/turns_all.ts"),
  "cli/usage.ts": () => import("./src/cli/usage.ts"),
  "cli/watch.ts": () => import("./src/cli/watch.ts"),
  "cli/worker.ts": () => import("./src/cli/worker.ts"),
  "cli/worker_notes.ts": () => import("./src/cli/worker_notes.ts"),
  "config/config_file.ts": () => import("./src/config/config_file.ts"),
  "config/load_config.ts": () => import("./src/config/load_config.ts"),
  "conversation/events_overview.ts": () =>
    import("./src/conversation/events_overview.ts"),
  "edit/run_editor.ts": () => import("./src/edit/run_editor.ts"),
  "llm/chat_client.ts": () => import("./src/llm/chat_client.ts"),
  "llm/describe_error.ts": () => import("./src/llm/describe_error.ts"),
  "summary/batch_state.ts": () => import("./src/summary/batch_state.ts"),
  "summary/prompt.ts": () => import("./src/summary/prompt.ts"),
  "summary/summary_model.ts": () => import("./src/summary/summary_model.ts"),
  "task/title_task.ts": () => import("./src/task/title_task.ts"),
  "workspace/conversation_create.ts": () =>
    import("./src/workspace/conversation_create.ts"),
  "web/server.ts": () => import("./src/web/server.ts"),
  "web/viewer_reader.ts": () => import("./src/web/viewer_reader.ts"),
  "cli/serve_reader.ts": () => import("./src/cli/serve_reader.ts"),
  "workspace/worker_log.ts": () => import("./src/workspace/worker_log.ts"),
};
