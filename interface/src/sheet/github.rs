//! `/github`: the dock's facts in full — the checkout, gh's state, the branch's pull request
//! with every check and its link, and the review decision.

use luxe_core::protocol::github::{GithubState, WorkspaceUpdated};
use ratatui_core::style::{Color, Style};
use ratatui_core::text::Line;

use super::{folded, heading};

/// The sheet's rows for what the last `workspace_updated` said.
pub(super) fn rows(workspace: Option<&WorkspaceUpdated>, width: usize) -> Vec<Line<'static>> {
    let plain = Style::new();
    let Some(ws) = workspace else {
        return folded(
            "Reading the checkout and its pull request…",
            width,
            0,
            plain,
        );
    };
    let mut out = vec![heading("Checkout", width)];
    let branch = ws
        .branch
        .as_deref()
        .unwrap_or("(detached or not a repository)");
    let mut line = format!("branch {branch}");
    if ws.dirty {
        line.push_str(" · uncommitted changes");
    }
    if let Some(upstream) = &ws.upstream {
        line.push_str(&format!(
            " · {upstream}: {} ahead, {} behind",
            ws.ahead, ws.behind
        ));
    }
    out.extend(folded(&line, width, 2, plain));
    if let Some(repository) = &ws.repository {
        out.extend(folded(&format!("repository {repository}"), width, 2, plain));
    }
    let gh = match ws.github {
        GithubState::Ready => "gh is ready",
        GithubState::Missing => "gh is not installed (it is not on PATH)",
        GithubState::Unauthenticated => "gh is not logged in: run `gh auth login`",
        GithubState::NoRemote => "this checkout has no GitHub remote",
    };
    out.extend(folded(gh, width, 2, plain));
    out.push(Line::raw(""));
    let Some(pr) = &ws.pull_request else {
        out.extend(folded(
            "No pull request for this branch (/pr opens one).",
            width,
            0,
            plain,
        ));
        return out;
    };
    out.push(heading(
        &format!("Pull request #{} {}", pr.number, pr.title),
        width,
    ));
    let mut state = pr.state.to_lowercase();
    if pr.draft {
        state.push_str(", draft");
    }
    let facts = [
        format!("{state} · {} ← {}", pr.base, pr.head),
        format!(
            "mergeable: {} · review: {}",
            pr.mergeable.as_deref().unwrap_or("unknown").to_lowercase(),
            pr.review_decision
                .as_deref()
                .map_or("none".into(), |d| d.to_lowercase().replace('_', " "))
        ),
        pr.url.clone(),
    ];
    for fact in facts {
        out.extend(folded(&fact, width, 2, plain));
    }
    out.push(Line::raw(""));
    out.push(heading(&format!("Checks ({})", pr.checks.len()), width));
    for check in &pr.checks {
        let (mark, colour) = match check.bucket.as_str() {
            "pass" => ("✓", Color::Green),
            "fail" | "cancel" => ("✗", Color::Red),
            "pending" => ("…", Color::Yellow),
            _ => ("-", Color::Reset),
        };
        let link = check
            .link
            .as_deref()
            .map(|l| format!(" {l}"))
            .unwrap_or_default();
        let text = format!("{mark} {} {}{link}", check.name, check.state.to_lowercase());
        out.extend(folded(&text, width, 2, Style::new().fg(colour)));
    }
    out
}
