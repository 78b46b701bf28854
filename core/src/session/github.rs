//! GitHub in the session: the workspace probe behind `workspace_updated` (git, then gh: auth,
//! repository, the branch's pull request and its checks), and the reads and writes clients
//! ask for, each a short chain of gh commands run with gh's quiet environment and a timeout.

use super::owners::Owner;
use std::collections::BTreeMap;
use std::time::Instant;

use crate::effects::EffectId;
use crate::github::{gh, parse};
use crate::protocol::events::{Event, RequestFailed};

use super::review::Loaded;
use crate::protocol::github::{
    EditPullRequest, GetPullRequest, GithubDone, GithubState, ListPullRequests, MergePullRequest,
    OpenPullRequest, PostPullRequestComment, PreviewCommit, PreviewPullRequest, PullRequestFetched,
    PullRequestFilter, PullRequestOpened, PullRequestPreview, PullRequestReviewPreview,
    PullRequestsListed, ReplyToReviewThread, ResolveReviewThread, ReviewThreadResolved, Verdict,
    WorkspaceUpdated,
};

use super::Session;
use super::step_runner::{Advance, StepRunner};
use crate::github::probe::Probe;
use crate::github::requests::{Answer, Failed, Kind, Request};
use crate::protocol::codec::Incoming;

mod pull_request_reviews;
mod waiting;

/// The GitHub part of the session.
#[derive(Debug, Default)]
pub(super) struct Github {
    /// The workspace probe, while one runs (at most one does).
    probe: StepRunner<Probe>,
    /// The clients' requests under way.
    requests: StepRunner<Request>,
    /// Whether a workspace probe runs.
    probing: bool,
    /// Whether the running probe's result is sent even if nothing changed.
    announce: bool,
    /// A probe was asked for while one ran: run again after it.
    again: Option<bool>,
    /// What was last sent.
    last: Option<WorkspaceUpdated>,
    /// When to probe again.
    next_poll: Option<Instant>,
    /// The head commit last seen per `(repository, number)` (`None`: the checkout's own), which
    /// a merge must still find.
    heads: BTreeMap<(Option<String>, u64), String>,
    /// The repository's default branch, from the probe.
    default_branch: Option<String>,
    /// Previewed pull requests not opened yet, by request id.
    previews: BTreeMap<String, PullRequestPreview>,
    /// Previewed pull request reviews not posted yet, by request id.
    review_previews: BTreeMap<String, ReviewPreview>,
    /// A review body being written: its effect, request and file.
    writing: Option<(EffectId, String, String)>,
    /// Actions waiting for the running probe to learn what they default to.
    waiting: Vec<Incoming>,
    /// Why the last probe found no GitHub, when a command of it failed.
    probe_failure: Option<String>,
}

/// A pull request review luxe prepared, with what a confirmation needs.
#[derive(Debug, Clone)]
struct ReviewPreview {
    preview: PullRequestReviewPreview,
    repository: String,
    number: u64,
    verdict: Option<Verdict>,
    body: String,
}

impl Github {
    /// The repository's default branch, once the probe read it.
    pub(super) fn default_branch(&self) -> Option<&str> {
        self.default_branch.as_deref()
    }

    /// The workspace as last sent.
    pub(super) fn last(&self) -> Option<&WorkspaceUpdated> {
        self.last.as_ref()
    }

    /// The earliest time GitHub work waits for.
    pub(super) fn deadline(&self) -> Option<Instant> {
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

impl Session {
    /// Probes the checkout and its pull request; `announce` sends the result even when nothing
    /// changed (start, `refresh_workspace`, after a write; a poll sends only changes).
    pub(super) fn probe_workspace(&mut self, now: Instant, announce: bool) {
        if self.github.probing {
            let again = self.github.again.unwrap_or(false) || announce;
            self.github.again = Some(again);
            return;
        }
        self.github.next_poll = None;
        self.github.announce = announce;
        self.github.probe_failure = None;
        self.github.probing = true;
        let advance = self.github.probe.start(Probe::default());
        self.advance_probe(now, advance);
    }

    /// Runs the probe's next command, or takes what it found.
    fn advance_probe(&mut self, now: Instant, advance: Advance<Probe>) {
        if let Some((_, found)) = self.drive(now, Owner::Github, |s| &mut s.github.probe, advance) {
            if let Some(default_branch) = found.default_branch {
                self.github.default_branch = default_branch;
            }
            if let Some(head) = found.head {
                self.github.heads.insert((None, head.0), head.1);
            }
            self.github.probe_failure = found.failure;
            self.probe_done(now, found.workspace);
        }
    }

    /// Starts a client's request.
    fn start_request(&mut self, now: Instant, request: Request) {
        let advance = self.github.requests.start(request);
        self.advance_request(now, advance);
    }

    /// Runs a request's next command, or applies its answer.
    fn advance_request(&mut self, now: Instant, advance: Advance<Request>) {
        if let Some((request, answer)) =
            self.drive(now, Owner::Github, |s| &mut s.github.requests, advance)
        {
            self.request_done(now, request, answer);
        }
    }

    /// `preview_pull_request`: the commits of the head not on the base, and a drafted title
    /// and description (with the open review's chapters, if any).
    pub(super) fn preview_pull_request(&mut self, now: Instant, preview: PreviewPullRequest) {
        let last = self.github.last.as_ref();
        let head = preview.head.or_else(|| last.and_then(|w| w.branch.clone()));
        let base = preview.base.or_else(|| self.github.default_branch.clone());
        let (Some(head), Some(base)) = (head, base) else {
            return self.emit(Event::GithubReadFailed(RequestFailed {
                request_id: preview.request_id,
                reason: self.github.unknown("no head or base branch known: name them, or refresh_workspace (the base defaults to the repository's default branch, the head to the current branch)"),
            }));
        };
        self.start_request(now, Request::preview(preview.request_id, base, head));
    }

    /// `open_pull_request`: push the head, then open what the preview of this request showed.
    pub(super) fn open_pull_request(
        &mut self,
        now: Instant,
        open: OpenPullRequest,
    ) -> Result<(), String> {
        let Some(draft) = self.github.previews.get_mut(&open.request_id) else {
            return Err("no preview to confirm: send preview_pull_request with this request_id first (a pull request opens once)".into());
        };
        if let Some(title) = open.title {
            draft.title = title;
        }
        if let Some(description) = open.description {
            draft.description = description;
        }
        let request = Request::open(open.request_id, draft, open.draft.unwrap_or(false));
        self.start_request(now, request);
        Ok(())
    }

    /// Takes a gh or git result of GitHub work.
    pub(super) fn github_effect(&mut self, now: Instant, input: &crate::effects::Input<'_>) {
        if let crate::effects::Input::FileWritten { id, result } = input
            && self.github.writing.as_ref().is_some_and(|(w, ..)| w == id)
        {
            if let Some((_, request_id, path)) = self.github.writing.take() {
                self.review_body_written(now, request_id, path, result.clone());
            }
            return;
        }
        if let Some(advance) = self.github.requests.handle(input) {
            return self.advance_request(now, advance);
        }
        if let Some(advance) = self.github.probe.handle(input) {
            self.advance_probe(now, advance);
        }
    }

    /// Kills gh commands past their deadline and starts a due poll.
    pub(super) fn github_timeout(&mut self, now: Instant) {
        let mut overdue = self.github.probe.overdue(now);
        overdue.extend(self.github.requests.overdue(now));
        self.kill_all(overdue);
        if self.github.next_poll.is_some_and(|at| at <= now) {
            self.github.next_poll = None;
            self.probe_workspace(now, false);
        }
    }

    /// The probe finished: send what it found, and plan the next poll.
    fn probe_done(&mut self, now: Instant, workspace: WorkspaceUpdated) {
        self.github.probing = false;
        let changed = self.github.last.as_ref() != Some(&workspace);
        if changed || self.github.announce {
            self.emit(Event::WorkspaceUpdated(Box::new(workspace.clone())));
        }
        if workspace.github == GithubState::Ready {
            self.github.next_poll = Some(now + self.timings.github_poll);
        }
        self.github.last = Some(workspace);
        // Answered before a queued probe starts, so they never wait for a second one.
        for incoming in self.github.take_waiting() {
            self.handle_incoming(now, incoming);
        }
        if let Some(announce) = self.github.again.take() {
            self.probe_workspace(now, announce);
        }
    }

    /// `list_pull_requests`.
    pub(super) fn list_pull_requests(&mut self, now: Instant, list: ListPullRequests) {
        let args = gh::pr_list(
            list.state.unwrap_or(PullRequestFilter::Open),
            list.repository.as_deref(),
        );
        self.start_request(now, Request::list(list.request_id, args));
    }

    /// `get_pull_request`: the pull request, then its review threads.
    pub(super) fn get_pull_request(&mut self, now: Instant, get: GetPullRequest) {
        let Some(graphql_repository) = get
            .repository
            .clone()
            .or_else(|| self.github.last.as_ref().and_then(|w| w.repository.clone()))
        else {
            let reason = self.github.unknown("no GitHub repository is known for this checkout: name one with `repository`, or refresh_workspace");
            return self.emit(Event::GithubReadFailed(RequestFailed {
                request_id: get.request_id,
                reason,
            }));
        };
        let request = Request::get(
            get.request_id,
            get.number,
            get.repository,
            graphql_repository,
        );
        self.start_request(now, request);
    }

    /// `post_pull_request_comment`.
    pub(super) fn post_pull_request_comment(&mut self, now: Instant, post: PostPullRequestComment) {
        let args = gh::pr_comment(post.number, &post.body, post.repository.as_deref());
        self.start_request(now, Request::comment(post.request_id, args));
    }

    /// `reply_to_review_thread`.
    pub(super) fn reply_to_review_thread(&mut self, now: Instant, reply: ReplyToReviewThread) {
        let args = gh::thread_reply(&reply.thread_id, &reply.body);
        self.start_request(now, Request::reply(reply.request_id, args));
    }

    /// `resolve_review_thread`.
    pub(super) fn resolve_review_thread(&mut self, now: Instant, resolve: ResolveReviewThread) {
        let resolved = resolve.resolved.unwrap_or(true);
        let request = Request::resolve(resolve.request_id, resolve.thread_id, resolved);
        self.start_request(now, request);
    }

    /// `edit_pull_request`.
    pub(super) fn edit_pull_request(&mut self, now: Instant, edit: EditPullRequest) {
        let failed = |reason: &str| {
            Event::PullRequestEditFailed(RequestFailed {
                request_id: edit.request_id.clone(),
                reason: reason.to_owned(),
            })
        };
        let ready = edit
            .draft
            .map(|draft| gh::pr_ready(edit.number, draft, edit.repository.as_deref()));
        let args = gh::pr_edit(
            edit.number,
            edit.title.as_deref(),
            edit.body.as_deref(),
            edit.base.as_deref(),
            edit.repository.as_deref(),
        );
        // The fields first (`gh pr edit`), then draft or ready (`gh pr ready`), one answer.
        let (args, then) = match (args, ready) {
            (Some(args), ready) => (args, ready),
            (None, Some(ready)) => (ready, None),
            (None, None) => {
                return self.emit(failed("nothing to change: give title, body, base or draft"));
            }
        };
        self.start_request(now, Request::edit(edit.request_id, args, then));
    }

    /// `merge_pull_request`: at the head luxe last saw, read first if it saw none.
    pub(super) fn merge_pull_request(&mut self, now: Instant, merge: MergePullRequest) {
        let key = (merge.repository.clone(), merge.number);
        let head = self.github.heads.get(&key).cloned();
        let request = Request::merge(merge.request_id.clone(), merge, head.as_deref());
        self.start_request(now, request);
    }

    /// A request ended: remember the head it read, then answer it.
    fn request_done(&mut self, now: Instant, request: Request, answer: Result<Answer, Failed>) {
        if let Some((key, head)) = request.learned_head() {
            self.github.heads.insert(key.clone(), head.clone());
        }
        let request_id = request.request_id.clone();
        let answer = match answer {
            Ok(answer) => answer,
            Err(Failed { reason, gh_state }) => {
                if let (Some(state), Some(last)) = (gh_state, self.github.last.as_mut())
                    && last.github != state
                {
                    last.github = state;
                    let update = Box::new(last.clone());
                    self.emit(Event::WorkspaceUpdated(update));
                }
                return self.emit(failure_event(request.kind(), request_id, reason));
            }
        };
        let wrote = answer.wrote();
        match answer {
            Answer::Listed(pull_requests) => {
                self.emit(Event::PullRequestsListed(PullRequestsListed {
                    request_id,
                    pull_requests,
                }))
            }
            Answer::Fetched { repository, detail } => {
                self.github
                    .heads
                    .insert((repository, detail.summary.number), detail.head_sha.clone());
                self.emit(Event::PullRequestFetched(Box::new(PullRequestFetched {
                    request_id,
                    pull_request: *detail,
                })));
            }
            Answer::Commented(url) => {
                self.emit(Event::PullRequestCommentPosted(GithubDone {
                    request_id,
                    url,
                }));
            }
            Answer::Replied(url) => {
                self.emit(Event::ReviewThreadReplied(GithubDone { request_id, url }));
            }
            Answer::Resolved {
                thread_id,
                resolved,
            } => self.emit(Event::ReviewThreadResolved(ReviewThreadResolved {
                request_id,
                thread_id,
                resolved,
            })),
            Answer::Edited(url) => {
                self.emit(Event::PullRequestEdited(GithubDone { request_id, url }))
            }
            Answer::Merged {
                number,
                repository,
                url,
            } => {
                self.github.heads.remove(&(repository, number));
                self.emit(Event::PullRequestMerged(GithubDone { request_id, url }));
            }
            Answer::Commits {
                base,
                head,
                commits,
            } => {
                let (title, description) = self.draft_pull_request(&head, &commits);
                let preview = PullRequestPreview {
                    request_id: request_id.clone(),
                    title,
                    description,
                    base,
                    head,
                    commits,
                };
                self.github.previews.insert(request_id, preview.clone());
                self.emit(Event::PullRequestPreview(Box::new(preview)));
            }
            Answer::Opened { number, url } => {
                self.github.previews.remove(&request_id);
                self.emit(Event::PullRequestOpened(PullRequestOpened {
                    request_id,
                    number,
                    url,
                }));
            }
            Answer::ReviewDiff {
                review_id,
                number,
                repository,
                head_sha,
                diff,
            } => self.review_diff_read(
                request_id,
                &review_id,
                (number, repository),
                head_sha,
                &diff,
            ),
            Answer::TargetDiff { target, patch } => {
                let loaded = Loaded::Patch {
                    root: self.cwd.clone(),
                    patch,
                };
                self.read_session(now, request_id, target, loaded);
            }
            Answer::ReviewHead(stdout) => self.review_head_read(request_id, &stdout),
            Answer::ReviewPosted(url) => {
                self.github.review_previews.remove(&request_id);
                self.emit(Event::PullRequestReviewPosted(GithubDone {
                    request_id,
                    url,
                }));
            }
        }
        if wrote {
            self.probe_workspace(now, true);
        }
    }

    /// A title and description for a pull request of `head` holding `commits`.
    fn draft_pull_request(&self, head: &str, commits: &[PreviewCommit]) -> (String, String) {
        let title = match commits {
            [only] => only.subject.clone(),
            _ => head.replace(['-', '_', '/'], " "),
        };
        let mut description = String::from("## Commits\n");
        for commit in commits {
            let short = parse::short_sha(&commit.sha);
            description.push_str(&format!("- {} ({short})\n", commit.subject));
        }
        if let Some(chapters) = self.review_chapters() {
            description.push_str("\n## Chapters\n");
            for (title, summary) in chapters {
                description.push_str(&format!("- **{title}**: {summary}\n"));
            }
        }
        (title, description)
    }
}

/// The event a request of `kind` fails with.
fn failure_event(kind: Kind, request_id: String, reason: String) -> Event {
    let failed = RequestFailed { request_id, reason };
    match kind {
        Kind::Read => Event::GithubReadFailed(failed),
        Kind::Comment => Event::PullRequestCommentPostFailed(failed),
        Kind::Reply => Event::ReviewThreadReplyFailed(failed),
        Kind::Resolve => Event::ReviewThreadResolveFailed(failed),
        Kind::Edit => Event::PullRequestEditFailed(failed),
        Kind::Merge => Event::PullRequestMergeFailed(failed),
        Kind::Open => Event::PullRequestOpenFailed(failed),
        Kind::LoadReview => Event::GuidedReviewFailed(failed),
        Kind::PostReview => Event::PullRequestReviewPostFailed(failed),
    }
}
