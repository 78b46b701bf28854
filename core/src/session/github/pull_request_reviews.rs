//! Pull request reviews: a pull request loaded as a guided review (its head, then its diff,
//! through gh), the preview of the review the findings would post, and posting it (its body
//! given to gh on stdin). [`Github`] keeps the previews; the session's routing
//! (`routes/github.rs`) hands it what the guided review knows (the open review's target, its
//! findings and revision).

use std::ops::Add;
use std::time::Duration;

use crate::github::parse;
use crate::github::requests::Request;
use crate::protocol::events::{Event, RequestFailed};
use crate::protocol::github::{
    PostPullRequestReview, PreviewPullRequestReview, PullRequestReviewPreview, ReviewComment,
    SkippedFinding, Verdict,
};
use crate::protocol::guided_review::ReviewTarget;
use crate::session::guided_review::posting::review_body;
use crate::session::outbox::Outbox;
use crate::session::step_runner::Shell;

use super::{Github, Then};

/// A review's comments drafted against a pull request's diff: the review session's revision
/// they come from, the comments, the findings left out, and the verdict they suggest.
pub(in crate::session) type Drafted = (u64, Vec<ReviewComment>, Vec<SkippedFinding>, Verdict);

/// A pull request review luxe prepared, with what a confirmation needs.
#[derive(Debug, Clone)]
pub(super) struct ReviewPreview {
    preview: PullRequestReviewPreview,
    repository: String,
    number: u64,
    verdict: Option<Verdict>,
    body: String,
}

impl<At: Copy + Ord + Add<Duration, Output = At>> Github<At> {
    /// `load_guided_review` of a pull request: its head, then its diff ([`Then::TargetDiff`]).
    pub(in crate::session) fn load_review(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        request_id: String,
        target: ReviewTarget,
    ) -> Then {
        let Some(request) = Request::load_review(request_id, target) else {
            return Then::Nothing;
        };
        self.start_request(outbox, shell, now, request)
    }

    /// `preview_pull_request_review` of the open review of `target`: read the pull request's
    /// diff, then draft the comments ([`Then::ReviewDiff`]).
    pub(in crate::session) fn preview_review(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        request: PreviewPullRequestReview,
        target: &ReviewTarget,
    ) -> Result<Then, String> {
        let last = self.last.as_ref();
        let (number, repository) = match target {
            ReviewTarget::PullRequest { number, repository } => (*number, repository.clone()),
            ReviewTarget::Branch { .. } => match last.and_then(|w| w.pull_request.as_ref()) {
                Some(pr) => (pr.number, None),
                None => return Err(self.unknown("this branch has no pull request on GitHub (or gh cannot tell): refresh_workspace, or open one")),
            },
            _ => return Err("only a branch or pull_request review can be posted as a pull request review".into()),
        };
        if repository.is_none() && last.and_then(|w| w.repository.as_ref()).is_none() {
            return Err(
                self.unknown("no GitHub repository is known for this checkout: refresh_workspace")
            );
        }
        let Some(head_sha) = self.heads.get(&(repository.clone(), number)).cloned() else {
            return Err("the pull request's head is not known yet: refresh_workspace".into());
        };
        let request = Request::review_diff(
            request.request_id,
            request.review_id,
            (number, repository),
            head_sha,
        );
        Ok(self.start_request(outbox, shell, now, request))
    }

    /// Sends the preview of the review `drafted` against the diff of pull request `number`
    /// (in the repository the review named, else the checkout's), and keeps it for
    /// `post_pull_request_review`; `None` when the review closed meanwhile.
    pub(in crate::session) fn review_previewed(
        &mut self,
        outbox: &mut Outbox,
        request_id: String,
        (number, named): (u64, Option<String>),
        head_sha: String,
        drafted: Option<Drafted>,
    ) {
        let repository = named.or_else(|| self.last.as_ref().and_then(|w| w.repository.clone()));
        let (Some((session_revision, comments, skipped, suggested_verdict)), Some(repository)) =
            (drafted, repository)
        else {
            return outbox.emit(Event::GithubReadFailed(RequestFailed {
                request_id,
                reason: "the review was closed before its preview was ready".into(),
            }));
        };
        let preview = PullRequestReviewPreview {
            request_id: request_id.clone(),
            session_revision,
            head_sha,
            comments,
            skipped,
            suggested_verdict,
        };
        self.review_previews.insert(
            request_id,
            ReviewPreview {
                preview: preview.clone(),
                repository,
                number,
                verdict: None,
                body: String::new(),
            },
        );
        outbox.emit(Event::PullRequestReviewPreview(Box::new(preview)));
    }

    /// `post_pull_request_review`: refused without a preview; fails if the findings moved
    /// since it (`revision` is the open review session's now), else reads the head, then posts
    /// ([`Github::review_post`]).
    pub(in crate::session) fn post_review(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        post: PostPullRequestReview,
        revision: Option<u64>,
    ) -> Result<Then, String> {
        let Some(prepared) = self.review_previews.get_mut(&post.request_id) else {
            return Err("no preview to confirm: send preview_pull_request_review with this request_id first (a review posts once)".into());
        };
        prepared.verdict = Some(post.verdict);
        prepared.body = post.body.unwrap_or_default();
        let shown = prepared.preview.session_revision;
        let number = prepared.number;
        let repository = prepared.repository.clone();
        if revision != Some(shown) {
            let now_at = revision.map_or_else(|| "none".to_owned(), |r| r.to_string());
            outbox.emit(Event::PullRequestReviewPostFailed(RequestFailed {
                request_id: post.request_id,
                reason: format!("the findings changed after the preview (revision {shown}, now {now_at}): preview again"),
            }));
            return Ok(Then::Nothing);
        }
        let request = Request::review_head(post.request_id, &repository, number);
        Ok(self.start_request(outbox, shell, now, request))
    }

    /// The head now (what gh printed): unchanged, the request that posts the body (gh reads
    /// it on stdin, so nothing of it is left on disk, whatever gh answers); moved or
    /// unreadable, the post fails.
    pub(super) fn review_post(
        &mut self,
        outbox: &mut Outbox,
        request_id: String,
        stdout: &str,
    ) -> Option<Request> {
        let prepared = self.review_previews.get(&request_id)?;
        let failed = |reason: String| {
            Event::PullRequestReviewPostFailed(RequestFailed {
                request_id: request_id.clone(),
                reason,
            })
        };
        match parse::head_sha(stdout) {
            Ok(head) if head == prepared.preview.head_sha => {}
            Ok(head) => {
                outbox.emit(failed(format!(
                    "the pull request's head moved since the preview ({} → {head}): preview again",
                    prepared.preview.head_sha
                )));
                return None;
            }
            Err(reason) => {
                outbox.emit(failed(reason));
                return None;
            }
        }
        let verdict = prepared
            .verdict
            .unwrap_or(prepared.preview.suggested_verdict);
        let body = review_body(
            &prepared.preview.head_sha,
            verdict,
            &prepared.body,
            &prepared.preview.comments,
        );
        let (repository, number) = (&prepared.repository, prepared.number);
        Some(Request::review_post(request_id, repository, number, body))
    }
}
