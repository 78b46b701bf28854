//! What gh's output means: its JSON as protocol values, and its failures as reasons.

use serde::Deserialize;

use crate::protocol::github::{
    BranchPullRequest, Check, PullRequestDetail, PullRequestSummary, ReviewThread, ThreadComment,
};

/// `gh repo view --json nameWithOwner,url,defaultBranchRef`: `owner/name` and the default
/// branch (when GitHub says).
pub fn repository(stdout: &str) -> Result<(String, Option<String>), String> {
    #[derive(Deserialize)]
    struct Branch {
        name: String,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Repo {
        name_with_owner: String,
        default_branch_ref: Option<Branch>,
    }
    serde_json::from_str::<Repo>(stdout)
        .map(|r| (r.name_with_owner, r.default_branch_ref.map(|b| b.name)))
        .map_err(|e| format!("gh repo view gave unreadable output: {e}"))
}

/// A commit id as GitHub shows it: its first seven characters (fewer when shorter).
pub fn short_sha(sha: &str) -> &str {
    sha.char_indices().nth(7).map_or(sha, |(at, _)| &sha[..at])
}

/// `git log --format=%H%x00%s%x1e`: `(sha, subject)` per commit.
pub fn commits(stdout: &str) -> Vec<(String, String)> {
    stdout
        .split('\x1e')
        .filter_map(|record| {
            let (sha, subject) = record.trim().split_once('\0')?;
            Some((sha.to_owned(), subject.to_owned()))
        })
        .collect()
}

/// The number at the end of a pull request's URL (`…/pull/12`).
pub fn pr_number(url: &str) -> Option<u64> {
    url.trim().rsplit('/').next()?.parse().ok()
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Author {
    login: Option<String>,
}

/// gh's pull request JSON (the fields of `PR_FIELDS`; missing ones default).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GhPr {
    number: u64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    state: String,
    #[serde(default)]
    is_draft: bool,
    #[serde(default)]
    head_ref_name: String,
    #[serde(default)]
    head_ref_oid: String,
    #[serde(default)]
    base_ref_name: String,
    author: Option<Author>,
    review_decision: Option<String>,
    mergeable: Option<String>,
    #[serde(default)]
    additions: u64,
    #[serde(default)]
    deletions: u64,
    #[serde(default)]
    changed_files: u64,
    updated_at: Option<String>,
}

impl GhPr {
    fn summary(&self) -> PullRequestSummary {
        PullRequestSummary {
            number: self.number,
            title: self.title.clone(),
            url: self.url.clone(),
            state: self.state.clone(),
            draft: self.is_draft,
            head: self.head_ref_name.clone(),
            base: self.base_ref_name.clone(),
            author: self.author.as_ref().and_then(|a| a.login.clone()),
            updated_at: self.updated_at.clone(),
        }
    }
}

fn unreadable(what: &str, e: &serde_json::Error) -> String {
    format!("gh gave unreadable {what}: {e}")
}

/// `gh pr list --json …`.
pub fn pull_requests(stdout: &str) -> Result<Vec<PullRequestSummary>, String> {
    let prs: Vec<GhPr> = serde_json::from_str(stdout).map_err(|e| unreadable("a listing", &e))?;
    Ok(prs.iter().map(GhPr::summary).collect())
}

/// `gh pr view N --json …` with the threads read separately; also its head commit.
pub fn pull_request(stdout: &str) -> Result<PullRequestDetail, String> {
    let pr: GhPr = serde_json::from_str(stdout).map_err(|e| unreadable("a pull request", &e))?;
    Ok(PullRequestDetail {
        summary: pr.summary(),
        body: pr.body.clone(),
        head_sha: pr.head_ref_oid.clone(),
        review_decision: pr.review_decision.clone().filter(|d| !d.is_empty()),
        mergeable: pr.mergeable.clone(),
        additions: pr.additions,
        deletions: pr.deletions,
        changed_files: pr.changed_files,
        threads: Vec::new(),
    })
}

/// The branch's pull request for the dock, from `gh pr view --json …` (checks added later).
pub fn branch_pull_request(stdout: &str) -> Result<BranchPullRequest, String> {
    let pr = pull_request(stdout)?;
    Ok(BranchPullRequest {
        number: pr.summary.number,
        title: pr.summary.title,
        url: pr.summary.url,
        state: pr.summary.state,
        draft: pr.summary.draft,
        base: pr.summary.base,
        head: pr.summary.head,
        review_decision: pr.review_decision,
        mergeable: pr.mergeable,
        checks: Vec::new(),
    })
}

/// `gh pr view N --json headRefOid`.
pub fn head_sha(stdout: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        head_ref_oid: String,
    }
    serde_json::from_str::<Head>(stdout)
        .map(|h| h.head_ref_oid)
        .map_err(|e| unreadable("a head commit", &e))
}

/// `gh pr checks N --json name,state,bucket,link`.
pub fn checks(stdout: &str) -> Result<Vec<Check>, String> {
    serde_json::from_str(stdout).map_err(|e| unreadable("checks", &e))
}

/// The review threads query's answer.
pub fn threads(stdout: &str) -> Result<Vec<ReviewThread>, String> {
    #[derive(Deserialize)]
    struct Nodes<T> {
        nodes: Vec<T>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Comment {
        id: String,
        #[serde(default)]
        body: String,
        author: Option<Author>,
        created_at: Option<String>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Thread {
        id: String,
        #[serde(default)]
        is_resolved: bool,
        #[serde(default)]
        path: String,
        line: Option<u64>,
        diff_side: Option<String>,
        comments: Nodes<Comment>,
    }
    let value: serde_json::Value =
        serde_json::from_str(stdout).map_err(|e| unreadable("review threads", &e))?;
    let nodes = &value["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"];
    let threads: Vec<Thread> =
        serde_json::from_value(nodes.clone()).map_err(|e| unreadable("review threads", &e))?;
    Ok(threads
        .into_iter()
        .map(|t| ReviewThread {
            id: t.id,
            resolved: t.is_resolved,
            path: t.path,
            line: t.line,
            side: t.diff_side,
            comments: t
                .comments
                .nodes
                .into_iter()
                .map(|c| ThreadComment {
                    id: c.id,
                    author: c.author.and_then(|a| a.login),
                    body: c.body,
                    created_at: c.created_at,
                })
                .collect(),
        })
        .collect())
}

/// The URL a reply mutation returned, if any.
pub fn reply_url(stdout: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(stdout).ok()?;
    value["data"]["addPullRequestReviewThreadReply"]["comment"]["url"]
        .as_str()
        .map(str::to_owned)
}

/// The last line of gh's output that is a URL (gh prints the created comment's address).
pub fn printed_url(stdout: &str) -> Option<String> {
    stdout
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with("https://") || l.starts_with("http://"))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_requests_checks_and_threads_read_gh_json() {
        let pr = r#"{"number":7,"title":"T","body":"B","url":"https://github.com/o/r/pull/7","state":"OPEN","isDraft":false,"headRefName":"feat","headRefOid":"abc","baseRefName":"main","author":{"login":"ana"},"reviewDecision":"","mergeable":"MERGEABLE","additions":3,"deletions":1,"changedFiles":2,"updatedAt":"2026-11-30T00:00:00Z"}"#;
        let detail = pull_request(pr).unwrap();
        assert_eq!(
            (detail.summary.number, detail.head_sha.as_str()),
            (7, "abc")
        );
        assert_eq!(detail.review_decision, None, "an empty decision is none");
        assert_eq!(detail.summary.author.as_deref(), Some("ana"));
        assert_eq!(pull_requests(&format!("[{pr}]")).unwrap().len(), 1);
        assert!(pull_request("{").is_err());
        let checks =
            checks(r#"[{"name":"ci","state":"FAILURE","bucket":"fail","link":"https://x"}]"#)
                .unwrap();
        assert_eq!(checks[0].bucket, "fail");
        let threads = threads(r#"{"data":{"repository":{"pullRequest":{"reviewThreads":{"nodes":[{"id":"PRRT_1","isResolved":false,"path":"a.rs","line":3,"diffSide":"RIGHT","comments":{"nodes":[{"id":"c1","body":"hm","author":{"login":"bo"},"createdAt":"t"}]}}]}}}}}"#).unwrap();
        assert_eq!(threads[0].comments[0].author.as_deref(), Some("bo"));
        assert_eq!(
            repository(r#"{"nameWithOwner":"o/r","url":"u"}"#).unwrap(),
            ("o/r".into(), None)
        );
        let with_default =
            r#"{"nameWithOwner":"o/r","url":"u","defaultBranchRef":{"name":"trunk"}}"#;
        assert_eq!(
            repository(with_default).unwrap().1.as_deref(),
            Some("trunk")
        );
        assert_eq!(
            commits("a\0one\x1e\nb\0two\x1e\n"),
            [("a".into(), "one".into()), ("b".into(), "two".into())]
        );
        assert_eq!(pr_number("https://github.com/o/r/pull/12\n"), Some(12));
        assert_eq!(
            printed_url("done\nhttps://github.com/o/r/pull/7#issuecomment-1\n").as_deref(),
            Some("https://github.com/o/r/pull/7#issuecomment-1")
        );
    }
}
