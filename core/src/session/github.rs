//! GitHub in the session: the workspace probe behind `workspace_updated` (git, then gh: auth,
//! repository, the branch's pull request and its checks), and the reads and writes clients
//! ask for, each a short chain of gh commands run with gh's quiet environment and a timeout.
//! [`Github`] owns all of it; what belongs to other features (the actions that waited for the
//! probe, a pull request loaded as a review, the open review's chapters in a description)
//! comes back as a [`Then`] for the session to route.

use std::collections::BTreeMap;
use std::ops::Add;
use std::time::{Duration, Instant};

use crate::effects::Input;
use crate::github::probe::Probe;
use crate::github::requests::{Answer, Failed, Request};
use crate::protocol::actions::Action;
use crate::protocol::codec::{Incoming, Rejection};
use crate::protocol::events::{Event, RequestFailed};
use crate::protocol::github::{
    GetPullRequest, GithubDone, GithubState, MergePullRequest, OpenPullRequest, PreviewCommit,
    PreviewPullRequest, PullRequestFetched, PullRequestOpened, PullRequestPreview,
    PullRequestsListed, ReviewThreadResolved, WorkspaceUpdated,
};
use crate::protocol::guided_review::ReviewTarget;

use super::outbox::Outbox;
use super::owners::Owner;
use super::step_runner::{Advance, Shell, StepRunner};

mod actions;
mod pull_request_reviews;
#[cfg(test)]
mod tests;
mod waiting;

use actions::{
    draft_pull_request, edit_pull_request, failure_event, list_pull_requests,
    post_pull_request_comment, reply_to_review_thread, resolve_review_thread,
};
use pull_request_reviews::ReviewPreview;

/// The GitHub part of the session. Time is whatever the caller measures deadlines in
/// (`Instant` in a session), so the machine is driven without a clock.
#[derive(Debug)]
pub(super) struct Github<At = Instant> {
    /// The workspace probe, while one runs (at most one does).
    probe: StepRunner<Probe, At>,
    /// The clients' requests under way.
    requests: StepRunner<Request, At>,
    /// Whether a workspace probe runs.
    probing: bool,
    /// Whether the running probe's result is sent even if nothing changed.
    announce: bool,
    /// A probe was asked for while one ran: run again after it.
    again: Option<bool>,
    /// What was last sent.
    last: Option<WorkspaceUpdated>,
    /// When to probe again.
    next_poll: Option<At>,
    /// The head commit last seen per `(repository, number)` (`None`: the checkout's own), which
    /// a merge must still find.
    heads: BTreeMap<(Option<String>, u64), String>,
    /// The repository's default branch, from the probe.
    default_branch: Option<String>,
    /// Previewed pull requests not opened yet, by request id.
    previews: BTreeMap<String, PullRequestPreview>,
    /// Previewed pull request reviews not posted yet, by request id.
    review_previews: BTreeMap<String, ReviewPreview>,
    /// Actions waiting for the running probe to learn what they default to.
    waiting: Vec<Incoming>,
    /// Why the last probe found no GitHub, when a command of it failed.
    probe_failure: Option<String>,
}

/// What the session must do after GitHub moved, for the parts other features own.
#[derive(Debug, PartialEq)]
#[must_use]
pub(super) enum Then {
    /// Nothing: the work runs on, or it ended with its own frames.
    Nothing,
    /// The probe ended: answer these actions that waited for it, in the order they came, then
    /// call [`Github::probe_queued`].
    ProbeEnded(Vec<Incoming>),
    /// A pull request's commits were read: call [`Github::previewed`] with the open review's
    /// chapters.
    Draft {
        request_id: String,
        base: String,
        head: String,
        commits: Vec<PreviewCommit>,
    },
    /// The diff a pull request review of `review_id` is previewed against.
    ReviewDiff {
        request_id: String,
        review_id: String,
        /// The pull request and the repository the review named.
        pull: (u64, Option<String>),
        head_sha: String,
        diff: String,
    },
    /// A pull request's diff, to load as the review of `target`.
    TargetDiff {
        request_id: String,
        target: ReviewTarget,
        patch: String,
    },
}

impl<At> Default for Github<At> {
    fn default() -> Self {
        Self {
            probe: StepRunner::default(),
            requests: StepRunner::default(),
            probing: false,
            announce: false,
            again: None,
            last: None,
            next_poll: None,
            heads: BTreeMap::new(),
            default_branch: None,
            previews: BTreeMap::new(),
            review_previews: BTreeMap::new(),
            waiting: Vec::new(),
            probe_failure: None,
        }
    }
}

impl<At: Copy + Ord> Github<At> {
    /// What the last probe found, as the stacks need it.
    pub(super) fn workspace(&self) -> super::stack::Workspace<'_> {
        let not_ready = (self.last.as_ref())
            .filter(|w| w.github != GithubState::Ready)
            .map(|w| self.not_ready(w.github));
        super::stack::Workspace {
            last: self.last.as_ref(),
            default_branch: self.default_branch.as_deref(),
            not_ready,
        }
    }

    /// The earliest time GitHub work waits for.
    pub(super) fn deadline(&self) -> Option<At> {
        [
            self.probe.deadline(),
            self.requests.deadline(),
            self.next_poll,
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

impl<At: Copy + Ord + Add<Duration, Output = At>> Github<At> {
    /// Probes the checkout and its pull request; `announce` sends the result even when nothing
    /// changed (start, `refresh_workspace`, after a write; a poll sends only changes). Asked
    /// while a probe runs, it runs once more after that one.
    pub(super) fn probe(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        announce: bool,
    ) -> Then {
        if self.probing {
            let again = self.again.unwrap_or(false) || announce;
            self.again = Some(again);
            return Then::Nothing;
        }
        self.next_poll = None;
        self.announce = announce;
        self.probe_failure = None;
        self.probing = true;
        let advance = self.probe.start(Probe::default());
        self.advance_probe(outbox, shell, now, advance)
    }

    /// Starts the probe asked for while the last one ran, if one was.
    pub(super) fn probe_queued(&mut self, outbox: &mut Outbox, shell: &Shell<'_>, now: At) -> Then {
        let Some(announce) = self.again.take() else {
            return Then::Nothing;
        };
        self.probe(outbox, shell, now, announce)
    }

    /// Runs the probe's next command, or takes what it found.
    fn advance_probe(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        advance: Advance<Probe>,
    ) -> Then {
        let Some((_, found)) = self.probe.drive(outbox, shell, now, Owner::Github, advance) else {
            return Then::Nothing;
        };
        if let Some(default_branch) = found.default_branch {
            self.default_branch = default_branch;
        }
        if let Some(head) = found.head {
            self.heads.insert((None, head.0), head.1);
        }
        self.probe_failure = found.failure;
        self.probe_done(outbox, shell, now, found.workspace)
    }

    /// The probe finished: send what it found, plan the next poll, and hand back the actions
    /// that waited for it.
    fn probe_done(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        workspace: WorkspaceUpdated,
    ) -> Then {
        self.probing = false;
        let changed = self.last.as_ref() != Some(&workspace);
        if changed || self.announce {
            outbox.emit(Event::WorkspaceUpdated(Box::new(workspace.clone())));
        }
        if workspace.github == GithubState::Ready {
            self.next_poll = Some(now + shell.timings.github_poll);
        }
        self.last = Some(workspace);
        Then::ProbeEnded(self.take_waiting())
    }

    /// Starts a client's GitHub request: runs its first command, or answers it at once when it
    /// needs none.
    fn start_request(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        request: Request,
    ) -> Then {
        let advance = self.requests.start(request);
        self.advance_request(outbox, shell, now, advance)
    }

    /// Runs a request's next command, or applies its answer.
    fn advance_request(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        advance: Advance<Request>,
    ) -> Then {
        let Some((request, answer)) =
            self.requests
                .drive(outbox, shell, now, Owner::Github, advance)
        else {
            return Then::Nothing;
        };
        self.request_done(outbox, shell, now, request, answer)
    }

    /// Answers one of the pull request actions (`preview_pull_request` to
    /// `merge_pull_request`); `Err` is its refusal.
    pub(super) fn act(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        action: Action,
    ) -> Result<Then, Rejection> {
        let request = match action {
            Action::PreviewPullRequest(preview) => self.preview_pull_request(outbox, preview),
            Action::OpenPullRequest(open) => {
                let request_id = open.request_id.clone();
                let opened = self.open_pull_request(open);
                Some(opened.map_err(|reason| Rejection {
                    kind: Some("open_pull_request".into()),
                    reason,
                    request_id: Some(request_id),
                })?)
            }
            Action::ListPullRequests(list) => Some(list_pull_requests(list)),
            Action::GetPullRequest(get) => self.get_pull_request(outbox, get),
            Action::PostPullRequestComment(post) => Some(post_pull_request_comment(post)),
            Action::ReplyToReviewThread(reply) => Some(reply_to_review_thread(reply)),
            Action::ResolveReviewThread(resolve) => Some(resolve_review_thread(resolve)),
            Action::EditPullRequest(edit) => edit_pull_request(outbox, edit),
            Action::MergePullRequest(merge) => Some(self.merge_pull_request(merge)),
            // Not a pull request action: nothing of GitHub's to do.
            _ => None,
        };
        Ok(match request {
            Some(request) => self.start_request(outbox, shell, now, request),
            None => Then::Nothing,
        })
    }

    /// `preview_pull_request`: the commits of the head not on the base (and then a drafted
    /// title and description, [`Then::Draft`]).
    fn preview_pull_request(
        &self,
        outbox: &mut Outbox,
        preview: PreviewPullRequest,
    ) -> Option<Request> {
        let last = self.last.as_ref();
        let head = preview.head.or_else(|| last.and_then(|w| w.branch.clone()));
        let base = preview.base.or_else(|| self.default_branch.clone());
        let (Some(head), Some(base)) = (head, base) else {
            outbox.emit(Event::GithubReadFailed(RequestFailed {
                request_id: preview.request_id,
                reason: self.unknown("no head or base branch known: name them, or refresh_workspace (the base defaults to the repository's default branch, the head to the current branch)"),
            }));
            return None;
        };
        Some(Request::preview(preview.request_id, base, head))
    }

    /// `open_pull_request`: push the head, then open what the preview of this request showed.
    fn open_pull_request(&mut self, open: OpenPullRequest) -> Result<Request, String> {
        let Some(draft) = self.previews.get_mut(&open.request_id) else {
            return Err("no preview to confirm: send preview_pull_request with this request_id first (a pull request opens once)".into());
        };
        if let Some(title) = open.title {
            draft.title = title;
        }
        if let Some(description) = open.description {
            draft.description = description;
        }
        Ok(Request::open(
            open.request_id,
            draft,
            open.draft.unwrap_or(false),
        ))
    }

    /// Takes a gh or git result of GitHub work, or how a review's body was written.
    pub(super) fn handle(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        input: &Input<'_>,
    ) -> Then {
        if let Some(advance) = self.requests.handle(input) {
            return self.advance_request(outbox, shell, now, advance);
        }
        let Some(advance) = self.probe.handle(input) else {
            return Then::Nothing;
        };
        self.advance_probe(outbox, shell, now, advance)
    }

    /// Kills gh commands past their deadline and starts a due poll.
    pub(super) fn handle_timeout(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
    ) -> Then {
        self.probe.kill_overdue(outbox, now);
        self.requests.kill_overdue(outbox, now);
        if self.next_poll.is_some_and(|at| at <= now) {
            self.next_poll = None;
            return self.probe(outbox, shell, now, false);
        }
        Then::Nothing
    }

    /// `get_pull_request`: the pull request, then its review threads.
    fn get_pull_request(&self, outbox: &mut Outbox, get: GetPullRequest) -> Option<Request> {
        let Some(graphql_repository) = get
            .repository
            .clone()
            .or_else(|| self.last.as_ref().and_then(|w| w.repository.clone()))
        else {
            let reason = self.unknown("no GitHub repository is known for this checkout: name one with `repository`, or refresh_workspace");
            outbox.emit(Event::GithubReadFailed(RequestFailed {
                request_id: get.request_id,
                reason,
            }));
            return None;
        };
        Some(Request::get(
            get.request_id,
            get.number,
            get.repository,
            graphql_repository,
        ))
    }

    /// `merge_pull_request`: at the head luxe last saw, read first if it saw none.
    fn merge_pull_request(&self, merge: MergePullRequest) -> Request {
        let key = (merge.repository.clone(), merge.number);
        let head = self.heads.get(&key).cloned();
        Request::merge(merge.request_id.clone(), merge, head.as_deref())
    }

    /// A request ended: remember the head it read, then answer it (and probe again after a
    /// write).
    fn request_done(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        request: Request,
        answer: Result<Answer, Failed>,
    ) -> Then {
        if let Some((key, head)) = request.learned_head() {
            self.heads.insert(key.clone(), head.clone());
        }
        let request_id = request.request_id.clone();
        let answer = match answer {
            Ok(answer) => answer,
            Err(Failed { reason, gh_state }) => {
                if let (Some(state), Some(last)) = (gh_state, self.last.as_mut())
                    && last.github != state
                {
                    last.github = state;
                    let update = Box::new(last.clone());
                    outbox.emit(Event::WorkspaceUpdated(update));
                }
                outbox.emit(failure_event(request.kind(), request_id, reason));
                return Then::Nothing;
            }
        };
        let wrote = answer.wrote();
        let event = match answer {
            Answer::Listed(pull_requests) => Event::PullRequestsListed(PullRequestsListed {
                request_id,
                pull_requests,
            }),
            Answer::Fetched { repository, detail } => {
                self.heads
                    .insert((repository, detail.summary.number), detail.head_sha.clone());
                Event::PullRequestFetched(Box::new(PullRequestFetched {
                    request_id,
                    pull_request: *detail,
                }))
            }
            Answer::Commented(url) => {
                Event::PullRequestCommentPosted(GithubDone { request_id, url })
            }
            Answer::Replied(url) => Event::ReviewThreadReplied(GithubDone { request_id, url }),
            Answer::Resolved {
                thread_id,
                resolved,
            } => Event::ReviewThreadResolved(ReviewThreadResolved {
                request_id,
                thread_id,
                resolved,
            }),
            Answer::Edited(url) => Event::PullRequestEdited(GithubDone { request_id, url }),
            Answer::Merged {
                number,
                repository,
                url,
            } => {
                self.heads.remove(&(repository, number));
                Event::PullRequestMerged(GithubDone { request_id, url })
            }
            Answer::Commits {
                base,
                head,
                commits,
            } => {
                return Then::Draft {
                    request_id,
                    base,
                    head,
                    commits,
                };
            }
            Answer::Opened { number, url } => {
                self.previews.remove(&request_id);
                Event::PullRequestOpened(PullRequestOpened {
                    request_id,
                    number,
                    url,
                })
            }
            Answer::ReviewDiff {
                review_id,
                number,
                repository,
                head_sha,
                diff,
            } => {
                return Then::ReviewDiff {
                    request_id,
                    review_id,
                    pull: (number, repository),
                    head_sha,
                    diff,
                };
            }
            Answer::TargetDiff { target, patch } => {
                return Then::TargetDiff {
                    request_id,
                    target,
                    patch,
                };
            }
            Answer::ReviewHead(stdout) => {
                let Some(post) = self.review_post(outbox, request_id, &stdout) else {
                    return Then::Nothing;
                };
                return self.start_request(outbox, shell, now, post);
            }
            Answer::ReviewPosted(url) => {
                self.review_previews.remove(&request_id);
                Event::PullRequestReviewPosted(GithubDone { request_id, url })
            }
        };
        outbox.emit(event);
        if wrote {
            return self.probe(outbox, shell, now, true);
        }
        Then::Nothing
    }

    /// Sends the preview of a pull request of `head` onto `base` holding `commits`, with a
    /// drafted title and description (listing the open review's `chapters`, title and
    /// summary, if a review is open), and keeps it for `open_pull_request`.
    pub(super) fn previewed(
        &mut self,
        outbox: &mut Outbox,
        request_id: String,
        (base, head): (String, String),
        commits: Vec<PreviewCommit>,
        chapters: Option<Vec<(String, String)>>,
    ) {
        let (title, description) = draft_pull_request(&head, &commits, chapters);
        let preview = PullRequestPreview {
            request_id: request_id.clone(),
            title,
            description,
            base,
            head,
            commits,
        };
        self.previews.insert(request_id, preview.clone());
        outbox.emit(Event::PullRequestPreview(Box::new(preview)));
    }
}
