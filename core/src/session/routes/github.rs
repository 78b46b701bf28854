//! The session's routing for GitHub: what the GitHub machine is lent, and where its answers
//! (`github::Then`) go; a pull request's review read, previewed and posted.

use std::time::Instant;

use crate::github::diff_lines::DiffLines;
use crate::protocol::github::{PostPullRequestReview, PreviewPullRequestReview};
use crate::protocol::guided_review::ReviewTarget;
use crate::session::Session;
use crate::session::github;
use crate::session::guided_review::open::Loaded;
use crate::session::guided_review::posting::comments_for;

impl Session {
    /// Probes the workspace (see [`crate::session::github::Github::probe`]) and routes what that leaves.
    pub(in crate::session) fn probe_workspace(&mut self, now: Instant, announce: bool) {
        let then = (self.github).probe(&mut self.outbox, shell!(self), now, announce);
        self.follow_github(now, then);
    }

    /// Does what GitHub left to the session, until nothing is left.
    pub(in crate::session) fn follow_github(&mut self, now: Instant, then: github::Then) {
        match then {
            github::Then::Nothing => {}
            github::Then::ProbeEnded(waiting) => {
                // Answered before a queued probe starts, so they never wait for a second one.
                for incoming in waiting {
                    self.handle_incoming(now, incoming);
                }
                let then = (self.github).probe_queued(&mut self.outbox, shell!(self), now);
                self.follow_github(now, then);
            }
            github::Then::Draft {
                request_id,
                base,
                head,
                commits,
            } => {
                let chapters = self.review_chapters();
                (self.github).previewed(
                    &mut self.outbox,
                    request_id,
                    (base, head),
                    commits,
                    chapters,
                );
            }
            github::Then::ReviewDiff {
                request_id,
                review_id,
                pull,
                head_sha,
                diff,
            } => self.review_diff_read(request_id, &review_id, pull, head_sha, &diff),
            github::Then::TargetDiff {
                request_id,
                target,
                patch,
            } => {
                let root = self.facts.cwd.clone();
                self.read_session(now, request_id, target, Loaded::Patch { root, patch });
            }
        }
    }
}

impl Session {
    /// `load_guided_review` of a pull request.
    pub(in crate::session) fn load_pull_request_review(
        &mut self,
        now: Instant,
        request_id: String,
        target: ReviewTarget,
    ) {
        let then =
            (self.github).load_review(&mut self.outbox, shell!(self), now, request_id, target);
        self.follow_github(now, then);
    }

    /// `preview_pull_request_review` of the open review.
    pub(in crate::session) fn preview_pull_request_review(
        &mut self,
        now: Instant,
        request: PreviewPullRequestReview,
    ) -> Result<(), String> {
        let target = self.check_open(&request.review_id)?.target.clone();
        let then =
            (self.github).preview_review(&mut self.outbox, shell!(self), now, request, &target)?;
        self.follow_github(now, then);
        Ok(())
    }

    /// The diff of a pull request review's preview: the open review's findings drafted
    /// against it.
    pub(in crate::session) fn review_diff_read(
        &mut self,
        request_id: String,
        review_id: &str,
        pull: (u64, Option<String>),
        head_sha: String,
        diff: &str,
    ) {
        let drafted = match (self.check_open(review_id), self.review_session()) {
            (Ok(review), Some(session)) => {
                let (comments, skipped, verdict) =
                    comments_for(review, session, &DiffLines::parse(diff));
                Some((session.revision, comments, skipped, verdict))
            }
            _ => None,
        };
        (self.github).review_previewed(&mut self.outbox, request_id, pull, head_sha, drafted);
    }

    /// `post_pull_request_review`, against the open review session's revision.
    pub(in crate::session) fn post_pull_request_review(
        &mut self,
        now: Instant,
        post: PostPullRequestReview,
    ) -> Result<(), String> {
        let revision = self.review_session().map(|s| s.revision);
        let then =
            (self.github).post_review(&mut self.outbox, shell!(self), now, post, revision)?;
        self.follow_github(now, then);
        Ok(())
    }
}
