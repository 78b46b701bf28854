//! Slash commands: what `/` offers, and what each becomes (a protocol action, or something the
//! interface does itself). An unknown one is a line of error, and nothing reaches the model.

use luxe_core::protocol::guided_review::ReviewTarget;
use serde_json::{Value, json};

/// Every command, with a word on what it does, in the order `/` lists them.
pub(crate) const COMMANDS: &[(&str, &str)] = &[
    ("/help", "the keys and the commands"),
    ("/model", "[id] switch the model, or list them"),
    ("/mode", "[build|plan] switch the mode"),
    (
        "/thinking",
        "[off|low|medium|high] set the reasoning effort",
    ),
    ("/auto-approve", "on|off approve every prompt"),
    ("/compact", "[hint] summarize the older conversation"),
    (
        "/review",
        "[working-tree|staged|branch [BASE]|commits A..B|pr N] read a diff in chapters",
    ),
    ("/sessions", "this directory's sessions, newest first"),
    ("/new", "start a new session"),
    (
        "/github",
        "the branch's pull request, its checks and review",
    ),
    ("/pr", "open a pull request for this branch"),
    ("/stack", "open a stack of pull requests"),
    ("/restack", "move a stack onto its moved base"),
    ("/quit", "leave Luxe"),
];

/// What a command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    /// A protocol action: its kind and content.
    Action(&'static str, Value),
    /// Show the help.
    Help,
    /// Start afresh: a new session.
    New,
    /// Open a sheet.
    Sheet(SheetKind),
    /// Open the review view on this target (`None`: the open review, or the working tree).
    Review(Option<ReviewTarget>),
    /// `/quit` or `/exit`: send `close`, which ends the session.
    Quit,
    /// Not a command, or used wrongly: why.
    Wrong(String),
}

/// Which sheet a command opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SheetKind {
    /// `/github`: the dock's facts in full.
    Github,
    /// `/pr`: draft and open the branch's pull request.
    PullRequest,
    /// `/stack`: preview and open the stack's pull requests.
    Stack,
    /// `/restack`: plan a restack and push it.
    Restack,
}

/// The commands `typed` (the composer's text, starting with `/`) could be.
pub(crate) fn matching(typed: &str) -> Vec<(&'static str, &'static str)> {
    let word = typed.split_whitespace().next().unwrap_or(typed);
    COMMANDS
        .iter()
        .filter(|(name, _)| name.starts_with(word))
        .copied()
        .collect()
}

/// What `line` (starting with `/`) asks for; `request` numbers the requests it makes.
pub(crate) fn parse(line: &str, request: &str) -> Command {
    let mut words = line.trim().splitn(2, char::is_whitespace);
    let name = words.next().unwrap_or_default();
    let rest = words.next().map(str::trim).unwrap_or_default();
    match (name, rest) {
        ("/help", _) => Command::Help,
        ("/quit" | "/exit", _) => Command::Quit,
        ("/new", _) => Command::New,
        ("/github", _) => Command::Sheet(SheetKind::Github),
        ("/pr", _) => Command::Sheet(SheetKind::PullRequest),
        ("/stack", _) => Command::Sheet(SheetKind::Stack),
        ("/restack", _) => Command::Sheet(SheetKind::Restack),
        ("/model", "") => Command::Action("list_models", json!({"request_id": request})),
        ("/model", model) => Command::Action("set_model", json!({"model": model})),
        ("/mode", mode @ ("build" | "plan")) => Command::Action("set_mode", json!({"mode": mode})),
        ("/mode", other) => Command::Wrong(format!("/mode takes build or plan, not {other:?}")),
        ("/thinking", level @ ("off" | "low" | "medium" | "high")) => {
            Command::Action("set_thinking", json!({"thinking": level}))
        }
        ("/thinking", other) => Command::Wrong(format!(
            "/thinking takes off, low, medium or high, not {other:?}"
        )),
        ("/auto-approve", on @ ("on" | "off")) => Command::Action(
            "set_permission_auto_approve",
            json!({"enabled": on == "on"}),
        ),
        ("/auto-approve", other) => {
            Command::Wrong(format!("/auto-approve takes on or off, not {other:?}"))
        }
        ("/compact", "") => Command::Action("compact", json!({"request_id": request})),
        ("/compact", hint) => Command::Action(
            "compact",
            json!({"request_id": request, "instructions": hint}),
        ),
        ("/review", target) => match crate::review::parse_target(target) {
            Ok(target) => Command::Review(target),
            Err(why) => Command::Wrong(why),
        },
        ("/sessions", _) => Command::Action("list_sessions", json!({"request_id": request})),
        (other, _) => Command::Wrong(format!("unknown command {other}: /help lists them")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_become_actions_and_mistakes_say_why() {
        assert_eq!(
            parse("/mode plan", "r1"),
            Command::Action("set_mode", json!({"mode": "plan"}))
        );
        assert_eq!(
            parse("/compact keep the API", "r2"),
            Command::Action(
                "compact",
                json!({"request_id": "r2", "instructions": "keep the API"})
            )
        );
        assert!(
            matches!(parse("/frobnicate", "r"), Command::Wrong(w) if w.contains("unknown command /frobnicate"))
        );
        assert!(matches!(parse("/mode fast", "r"), Command::Wrong(_)));
        assert_eq!(matching("/mo").len(), 2);
        assert_eq!(matching("/").len(), COMMANDS.len());
    }
}
