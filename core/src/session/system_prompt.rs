//! The system prompt: where the agent is, when, the state of the checkout, and the project's
//! own instructions (`AGENTS.md`, the convention Codex, opencode and others share).

use crate::git::status::GitStatus;

/// The most of `AGENTS.md` the prompt carries.
const AGENTS_MD_LIMIT: usize = 32 * 1024;

/// Builds the system prompt. `git` is `None` outside a git checkout.
pub fn system_prompt(
    cwd: &str,
    platform: &str,
    today: &str,
    git: Option<&GitStatus>,
    agents_md: Option<&str>,
) -> String {
    let mut prompt = format!(
        "You are Luxe, a coding agent. You work in {cwd} on {platform}. Today is {today}.\n\
         Use the tools to read, search, edit and run commands; paths are relative to the working \
         directory unless absolute. Read before you edit, keep changes small and say what you \
         changed. Be concise.\n"
    );
    match git {
        Some(status) => prompt.push_str(&format!("Git: {}.\n", status.summary())),
        None => prompt.push_str("Git: not a git repository.\n"),
    }
    if let Some(agents) = agents_md.filter(|a| !a.trim().is_empty()) {
        let mut end = agents.len().min(AGENTS_MD_LIMIT);
        while !agents.is_char_boundary(end) {
            end -= 1;
        }
        prompt.push_str("\n# Project instructions (AGENTS.md)\n");
        prompt.push_str(&agents[..end]);
        prompt.push('\n');
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_cwd_date_git_and_agents_md() {
        let git = GitStatus {
            branch: Some("main".into()),
            head: Some("abcdef".into()),
            ..GitStatus::default()
        };
        let prompt = system_prompt(
            "/w",
            "linux x86_64",
            "2026-11-29",
            Some(&git),
            Some("Run cargo test."),
        );
        assert!(prompt.contains("/w") && prompt.contains("2026-11-29"));
        assert!(prompt.contains("branch main, HEAD abcdef, clean"));
        assert!(prompt.contains("Run cargo test."));
        let bare = system_prompt("/w", "linux", "d", None, None);
        assert!(bare.contains("not a git repository") && !bare.contains("AGENTS.md"));
    }
}
