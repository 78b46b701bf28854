//! gh as luxe runs it for itself: the environment that keeps it from prompting, and what its
//! failures mean (for a reason a person can act on, and for the dock's `github` state). The
//! commands themselves are `crate::github`'s.

use crate::protocol::github::GithubState;

/// gh's environment: never prompt, never check for updates, no colour, no pager.
pub const ENV: [(&str, &str); 4] = [
    ("GH_PROMPT_DISABLED", "1"),
    ("GH_NO_UPDATE_NOTIFIER", "1"),
    ("NO_COLOR", "1"),
    ("GH_PAGER", "cat"),
];

/// [`ENV`] as a child process's environment.
pub fn env() -> Vec<(String, String)> {
    ENV.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// gh's failure from how it ended (`status` as [`super::exit_failure`] takes it): `None` when
/// it exited 0 in time, else the dock state it implies, if any, and why, in gh's words.
pub fn gh_exit_failure(
    status: &Result<Option<i32>, String>,
    stderr: &str,
    timed_out: bool,
) -> Option<(Option<GithubState>, String)> {
    let (spawn_error, code) = match status {
        Ok(Some(0)) if !timed_out => return None,
        Err(error) => (Some(error.as_str()), None),
        Ok(code) => (None, *code),
    };
    Some(failure(spawn_error, code, stderr, timed_out))
}

/// How gh failed, for a reason a person can act on and for the dock's `github` state.
pub fn failure(
    spawn_error: Option<&str>,
    code: Option<i32>,
    stderr: &str,
    timed_out: bool,
) -> (Option<GithubState>, String) {
    let stderr = stderr.trim();
    if timed_out {
        return (None, "gh did not answer in time".into());
    }
    if let Some(error) = spawn_error {
        return (
            Some(GithubState::Missing),
            format!(
                "gh is not installed or not on PATH ({error}); install GitHub CLI from https://cli.github.com"
            ),
        );
    }
    // gh exits 4 when authentication is required.
    if code == Some(4) || stderr.contains("gh auth login") {
        return (
            Some(GithubState::Unauthenticated),
            "gh is not logged in: run `gh auth login`".into(),
        );
    }
    let first = stderr.lines().next().unwrap_or_default();
    let reason = if stderr.is_empty() {
        format!(
            "gh exited with {}",
            code.map_or_else(|| "a signal".into(), |c| c.to_string())
        )
    } else if let Some(status) = ["HTTP 401", "HTTP 403", "HTTP 404", "HTTP 422"]
        .iter()
        .find(|s| stderr.contains(*s))
    {
        let meaning = match *status {
            "HTTP 401" => "GitHub refused the credentials",
            "HTTP 403" => "GitHub forbids this (permissions or rate limit)",
            "HTTP 404" => "not found on GitHub (or no access)",
            _ => "GitHub could not process it",
        };
        format!("{meaning}: {}", stderr.replace('\n', " "))
    } else {
        first.to_owned()
    };
    (None, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_name_what_to_do() {
        let (state, why) = failure(Some("No such file or directory"), None, "", false);
        assert_eq!(state, Some(GithubState::Missing));
        assert!(why.contains("not installed"));
        let (state, why) = failure(
            None,
            Some(4),
            "To get started with GitHub CLI, please run:  gh auth login",
            false,
        );
        assert_eq!(state, Some(GithubState::Unauthenticated));
        assert!(why.contains("gh auth login"));
        let (state, why) = failure(
            None,
            Some(1),
            "gh: Unprocessable Entity (HTTP 422)\n{\"message\":\"line must be part of the diff\"}",
            false,
        );
        assert_eq!(state, None);
        assert!(
            why.starts_with("GitHub could not process it") && why.contains("part of the diff"),
            "{why}"
        );
        assert_eq!(failure(None, None, "", true).1, "gh did not answer in time");
        assert_eq!(
            failure(
                None,
                Some(1),
                "no pull requests found for branch \"x\"\nmore",
                false
            )
            .1,
            "no pull requests found for branch \"x\""
        );
    }
}
