//! The catalogue of every action and event kind in protocol v2 (design §4 and §9).
//!
//! The catalogue is what tells an unknown kind (`action_rejected: unknown kind "x"`) from a kind
//! the protocol defines; this build types every one (a codec test holds the lists equal).
//! It may only grow: `docs/protocol-kinds.txt` is checked against it by the tests.

/// Every action kind a client may send.
pub const ACTION_KINDS: &[&str] = &[
    // Conversation
    "submit_user_message",
    "steer_turn",
    "interrupt_turn",
    "withdraw_queued_message",
    "respond_permission",
    "answer_question",
    "set_permission_auto_approve",
    "set_model",
    "set_mode",
    "set_thinking",
    "list_models",
    "list_sessions",
    "complete_path",
    "compact",
    "close",
    // Guided review
    "load_guided_review",
    "edit_review",
    "commit_review_chapters",
    "request_agent_review",
    "preview_pull_request",
    "open_pull_request",
    "preview_stack",
    "open_stack",
    "preview_pull_request_review",
    "post_pull_request_review",
    // GitHub
    "refresh_workspace",
    "list_pull_requests",
    "get_pull_request",
    "post_pull_request_comment",
    "reply_to_review_thread",
    "resolve_review_thread",
    "edit_pull_request",
    "merge_pull_request",
    "plan_restack",
    "restack",
    // MCP servers
    "list_mcp_servers",
];

/// Action kinds that publish to GitHub: refused unless luxe was started with `--github-writes`,
/// and always refused when the session is read-only (seed, "GitHub writes").
pub const GITHUB_WRITE_KINDS: &[&str] = &[
    "post_pull_request_comment",
    "reply_to_review_thread",
    "resolve_review_thread",
    "edit_pull_request",
    "merge_pull_request",
    "open_pull_request",
    "open_stack",
    "post_pull_request_review",
    "plan_restack",
    "restack",
];

/// Every event kind luxe may send (design §9).
pub const EVENT_KINDS: &[&str] = &[
    "ready",
    "state_changed",
    "session_restored",
    "sessions_listed",
    "models_listed",
    "paths_completed",
    "action_rejected",
    "error",
    "turn_started",
    "user_message_queued",
    "user_message_withdrawn",
    "turn_steered",
    "token_delta",
    "thinking_delta",
    "tool_started",
    "tool_output_delta",
    "tool_finished",
    "permission_requested",
    "permission_resolved",
    "question_asked",
    "question_resolved",
    "plan_updated",
    "files_changed",
    "model_retrying",
    "compaction_started",
    "compaction_ended",
    "turn_usage",
    "turn_ended",
    "guided_review_loaded",
    "guided_review_failed",
    "guided_review_updated",
    "review_session_restored",
    "review_session_saved",
    "review_session_save_failed",
    "review_chapters_committed",
    "review_chapters_commit_failed",
    "pull_request_preview",
    "pull_request_opened",
    "pull_request_open_failed",
    "stack_preview",
    "stack_opened",
    "stack_open_failed",
    "pull_request_review_preview",
    "pull_request_review_posted",
    "pull_request_review_post_failed",
    "workspace_updated",
    "pull_requests_listed",
    "pull_request_fetched",
    "github_read_failed",
    "pull_request_comment_posted",
    "pull_request_comment_post_failed",
    "review_thread_replied",
    "review_thread_reply_failed",
    "review_thread_resolved",
    "review_thread_resolve_failed",
    "pull_request_edited",
    "pull_request_edit_failed",
    "pull_request_merged",
    "pull_request_merge_failed",
    "restack_planned",
    "restacked",
    "restack_failed",
    "mcp_servers_updated",
    "mcp_servers_listed",
];

/// The catalogue entry for an action kind, as a `'static` string, if the protocol defines it.
pub fn known_action(kind: &str) -> Option<&'static str> {
    ACTION_KINDS.iter().copied().find(|known| *known == kind)
}

/// Whether an action kind publishes to GitHub.
pub fn is_github_write(kind: &str) -> bool {
    GITHUB_WRITE_KINDS.contains(&kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn catalogues_have_no_duplicates() {
        for list in [ACTION_KINDS, EVENT_KINDS, GITHUB_WRITE_KINDS] {
            let set: BTreeSet<_> = list.iter().collect();
            assert_eq!(set.len(), list.len());
        }
    }

    #[test]
    fn github_writes_are_actions() {
        for kind in GITHUB_WRITE_KINDS {
            assert!(known_action(kind).is_some(), "{kind}");
        }
    }

    #[test]
    fn event_catalogue_matches_design_count() {
        // Design §9 lists sixty event kinds ("about sixty"); the MCP client adds two, the
        // terminal interface two (`user_message_withdrawn`, `paths_completed`).
        assert_eq!(EVENT_KINDS.len(), 64);
    }
}
