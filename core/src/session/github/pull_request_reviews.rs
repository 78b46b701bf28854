//! Pull request reviews in the session: a pull request loaded as a guided review (its head,
//! then its diff, through gh), the preview of the review the findings would post, and posting
//! it (its body written to a file for gh).

use crate::session::owners::Owner;
use std::time::Instant;

use crate::github::diff_lines::DiffLines;
use crate::github::parse;
use crate::protocol::events::{Event, RequestFailed};
use crate::protocol::review::ReviewTarget;

use crate::protocol::github::{
    PostPullRequestReview, PreviewPullRequestReview, PullRequestReviewPreview,
};
use crate::session::pr_review::{comments_for, review_body};

use super::ReviewPreview;
use crate::github::requests::Request;
use crate::session::Session;

impl Session {
    /// `load_guided_review` of a pull request: its head, then its diff, through gh.
    pub(in crate::session) fn load_pull_request_review(
        &mut self,
        now: Instant,
        request_id: String,
        target: ReviewTarget,
    ) {
        if let Some(request) = Request::load_review(request_id, target) {
            self.start_request(now, request);
        }
    }

    /// `preview_pull_request_review`: read the pull request's diff, then draft the comments.
    pub(in crate::session) fn preview_pull_request_review(
        &mut self,
        now: Instant,
        request: PreviewPullRequestReview,
    ) -> Result<(), String> {
        let review = self.check_open(&request.review_id)?;
        let last = self.github.last.as_ref();
        let (number, repository) = match &review.target {
            ReviewTarget::PullRequest { number, repository } => (*number, repository.clone()),
            ReviewTarget::Branch { .. } => match last.and_then(|w| w.pull_request.as_ref()) {
                Some(pr) => (pr.number, None),
                None => return Err(self.github.unknown("this branch has no pull request on GitHub (or gh cannot tell): refresh_workspace, or open one")),
            },
            _ => return Err("only a branch or pull_request review can be posted as a pull request review".into()),
        };
        if repository.is_none() && last.and_then(|w| w.repository.as_ref()).is_none() {
            return Err(self
                .github
                .unknown("no GitHub repository is known for this checkout: refresh_workspace"));
        }
        let Some(head_sha) = self
            .github
            .heads
            .get(&(repository.clone(), number))
            .cloned()
        else {
            return Err("the pull request's head is not known yet: refresh_workspace".into());
        };
        let request = Request::review_diff(
            request.request_id,
            request.review_id,
            (number, repository),
            head_sha,
        );
        self.start_request(now, request);
        Ok(())
    }

    pub(super) fn review_diff_read(
        &mut self,
        request_id: String,
        review_id: &str,
        (number, named): (u64, Option<String>),
        head_sha: String,
        diff: &str,
    ) {
        let repository =
            named.or_else(|| self.github.last.as_ref().and_then(|w| w.repository.clone()));
        let drafted = match (
            self.check_open(review_id),
            self.review_session(),
            repository,
        ) {
            (Ok(review), Some(session), Some(repository)) => {
                let (comments, skipped, suggested_verdict) =
                    comments_for(review, session, &DiffLines::parse(diff));
                Some((
                    session.revision,
                    comments,
                    skipped,
                    suggested_verdict,
                    repository,
                ))
            }
            _ => None,
        };
        let Some((session_revision, comments, skipped, suggested_verdict, repository)) = drafted
        else {
            return self.emit(Event::GithubReadFailed(RequestFailed {
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
        self.github.review_previews.insert(
            request_id,
            ReviewPreview {
                preview: preview.clone(),
                repository,
                number,
                verdict: None,
                body: String::new(),
            },
        );
        self.emit(Event::PullRequestReviewPreview(Box::new(preview)));
    }

    /// `post_pull_request_review`: refused without a preview; fails if the findings or the
    /// head moved since it; else posts what it showed.
    pub(in crate::session) fn post_pull_request_review(
        &mut self,
        now: Instant,
        post: PostPullRequestReview,
    ) -> Result<(), String> {
        let revision = self.review_session().map(|s| s.revision);
        let Some(prepared) = self.github.review_previews.get_mut(&post.request_id) else {
            return Err("no preview to confirm: send preview_pull_request_review with this request_id first (a review posts once)".into());
        };
        prepared.verdict = Some(post.verdict);
        prepared.body = post.body.unwrap_or_default();
        let shown = prepared.preview.session_revision;
        let number = prepared.number;
        let repository = prepared.repository.clone();
        if revision != Some(shown) {
            let now_at = revision.map_or_else(|| "none".to_owned(), |r| r.to_string());
            self.emit(Event::PullRequestReviewPostFailed(RequestFailed {
                request_id: post.request_id,
                reason: format!("the findings changed after the preview (revision {shown}, now {now_at}): preview again"),
            }));
            return Ok(());
        }
        let request = Request::review_head(post.request_id, &repository, number);
        self.start_request(now, request);
        Ok(())
    }

    /// The head now: unchanged, the body is written for gh to post.
    pub(super) fn review_head_read(&mut self, request_id: String, stdout: &str) {
        let Some(prepared) = self.github.review_previews.get(&request_id).cloned() else {
            return;
        };
        let failed = |reason: String| {
            Event::PullRequestReviewPostFailed(RequestFailed {
                request_id: request_id.clone(),
                reason,
            })
        };
        match parse::head_sha(stdout) {
            Ok(head) if head == prepared.preview.head_sha => {}
            Ok(head) => {
                return self.emit(failed(format!(
                    "the pull request's head moved since the preview ({} → {head}): preview again",
                    prepared.preview.head_sha
                )));
            }
            Err(reason) => return self.emit(failed(reason)),
        }
        let Some(dir) = self.review_dir() else {
            return self.emit(failed("no LUXE_HOME to write the review's body in".into()));
        };
        let verdict = prepared
            .verdict
            .unwrap_or(prepared.preview.suggested_verdict);
        let bytes = review_body(
            &prepared.preview.head_sha,
            verdict,
            &prepared.body,
            &prepared.preview.comments,
        );
        let id = self.effect_id(Owner::Github);
        let path = format!("{}/post-{}.json", dir.trim_end_matches('/'), id.0);
        self.github.writing = Some((id, request_id, path.clone()));
        self.port
            .push(crate::effects::Output::WriteFile { id, path, bytes });
    }

    /// The body is on disk: post it.
    pub(super) fn review_body_written(
        &mut self,
        now: Instant,
        request_id: String,
        path: String,
        result: Result<(), String>,
    ) {
        let Some(prepared) = self.github.review_previews.get(&request_id).cloned() else {
            return;
        };
        if let Err(err) = result {
            return self.emit(Event::PullRequestReviewPostFailed(RequestFailed {
                request_id,
                reason: format!("the review's body could not be written: {err}"),
            }));
        }
        let request =
            Request::review_post(request_id, &prepared.repository, prepared.number, &path);
        self.start_request(now, request);
    }
}
