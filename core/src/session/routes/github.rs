//! The session's routing for GitHub and stacks: what the GitHub and stacks machines are lent,
//! and where their answers (`github::Then`, a stack that moved) go.

use std::time::Instant;

use crate::effects::Input;
use crate::github::diff_lines::DiffLines;
use crate::protocol::github::{PostPullRequestReview, PreviewPullRequestReview};
use crate::protocol::guided_review::ReviewTarget;
use crate::protocol::stack::{OpenStack, PlanRestack, PreviewStack, Restack};
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

impl Session {
    /// After a stack was pushed or opened (or failed to be), the workspace is probed again.
    fn stacks_moved(&mut self, now: Instant, moved: bool) {
        if moved {
            self.probe_workspace(now, true);
        }
    }

    /// `preview_stack`: the pull requests the stack's branches would open as, bottom first
    /// (`stack_preview`), read with git and `gh`; writes nothing.
    pub(in crate::session) fn preview_stack(&mut self, now: Instant, preview: PreviewStack) {
        let at = (now, self.wall_ms(now));
        let workspace = self.github.workspace();
        let moved = (self.stacks).preview(&mut self.outbox, shell!(self), at, preview, &workspace);
        self.stacks_moved(now, moved);
    }

    /// `open_stack`: pushes the previewed branches and opens (or adopts) their pull requests,
    /// each based on the one below; confirmed again after a failure, it does what is left.
    pub(in crate::session) fn open_stack(
        &mut self,
        now: Instant,
        open: OpenStack,
    ) -> Result<(), String> {
        let at = (now, self.wall_ms(now));
        let moved = (self.stacks).open(&mut self.outbox, shell!(self), at, open)?;
        self.stacks_moved(now, moved);
        Ok(())
    }

    /// `plan_restack`: fetches, reads the open pull requests and their branches, and answers
    /// `restack_planned` with what a restack would move, or why it would not.
    pub(in crate::session) fn plan_restack(&mut self, now: Instant, plan: PlanRestack) {
        let at = (now, self.wall_ms(now));
        let workspace = self.github.workspace();
        let moved = (self.stacks).plan(&mut self.outbox, shell!(self), at, plan, &workspace);
        self.stacks_moved(now, moved);
    }

    /// `restack`, refused while a turn runs.
    pub(in crate::session) fn restack(
        &mut self,
        now: Instant,
        restack: Restack,
    ) -> Result<(), String> {
        let at = (now, self.wall_ms(now));
        let turn_running = self.turns.is_running();
        let moved =
            (self.stacks).restack(&mut self.outbox, shell!(self), at, restack, turn_running)?;
        self.stacks_moved(now, moved);
        Ok(())
    }

    /// Routes a command's end to its flow.
    pub(in crate::session) fn stack_effect(&mut self, now: Instant, input: &Input<'_>) {
        let at = (now, self.wall_ms(now));
        let moved = (self.stacks).handle(&mut self.outbox, shell!(self), at, input);
        self.stacks_moved(now, moved);
    }
}
