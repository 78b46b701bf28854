//! GitHub in the session: the workspace probe behind `workspace_updated` (git, then gh: auth,
//! repository, the branch's pull request and its checks), and the reads and writes clients
//! ask for, each a short chain of gh commands run with gh's quiet environment and a timeout.

use super::owners::Owner;
use std::collections::BTreeMap;
use std::time::Instant;

use crate::effects::EffectId;
use crate::git::status::{STATUS_ARGS, parse as parse_status};
use crate::github::diff_lines::DiffLines;
use crate::github::{gh, parse};
use crate::protocol::events::{Event, RequestFailed};
use crate::review::source::ReviewTarget;

use super::pr_review::{comments_for, review_body};
use super::review::Loaded;
use crate::protocol::github::{
    EditPullRequest, GetPullRequest, GithubDone, GithubState, ListPullRequests, MergePullRequest,
    OpenPullRequest, PostPullRequestComment, PostPullRequestReview, PreviewCommit,
    PreviewPullRequest, PreviewPullRequestReview, PullRequestDetail, PullRequestFetched,
    PullRequestFilter, PullRequestOpened, PullRequestPreview, PullRequestReviewPreview,
    PullRequestsListed, ReplyToReviewThread, ResolveReviewThread, ReviewThreadResolved, Verdict,
    WorkspaceUpdated,
};

use super::Session;
use super::commands::Commands;
use crate::protocol::codec::Incoming;

mod waiting;

/// One command of GitHub work, and what it is for.
#[derive(Debug)]
pub(super) enum Job {
    /// A step of the workspace probe.
    Probe(ProbeStep),
    /// A step of a client's request.
    Request { request_id: String, step: Step },
}

/// The workspace probe, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ProbeStep {
    Git,
    Auth,
    Repo,
    PullRequest,
    Checks,
}

/// A request's steps.
#[derive(Debug)]
pub(super) enum Step {
    List,
    /// Read the pull request; `graphql_repository` is where its threads are asked for,
    /// `repository` what the client named.
    View {
        repository: Option<String>,
        graphql_repository: String,
    },
    Threads {
        repository: Option<String>,
        detail: Box<PullRequestDetail>,
    },
    Comment,
    Reply,
    Resolve {
        thread_id: String,
        resolved: bool,
    },
    /// Edit; `then` is the `gh pr ready` to run after, if the draft state changes too.
    Edit {
        then: Option<Vec<String>>,
    },
    MergeHead {
        merge: MergePullRequest,
    },
    Merge {
        number: u64,
        repository: Option<String>,
    },
    /// The commits of a preview.
    PreviewLog {
        base: String,
        head: String,
    },
    /// Push the head of a confirmed preview.
    Push {
        draft: bool,
    },
    /// Open it.
    Create,
    /// The pull request's diff, for a review preview.
    ReviewDiff {
        review_id: String,
        number: u64,
        repository: Option<String>,
        head_sha: String,
    },
    /// The pull request's head now, before posting.
    ReviewHead,
    /// Post the review.
    ReviewPost,
    /// A `pull_request` review: its head first, remembered for posting.
    TargetHead {
        target: ReviewTarget,
    },
    /// Then its diff.
    TargetDiff {
        target: ReviewTarget,
    },
}

impl Step {
    /// The failure event of the request this step serves.
    fn failed(&self, request_id: String, reason: String) -> Event {
        let failed = RequestFailed { request_id, reason };
        match self {
            Self::List | Self::View { .. } | Self::Threads { .. } => {
                Event::GithubReadFailed(failed)
            }
            Self::Comment => Event::PullRequestCommentPostFailed(failed),
            Self::Reply => Event::ReviewThreadReplyFailed(failed),
            Self::Resolve { .. } => Event::ReviewThreadResolveFailed(failed),
            Self::Edit { .. } => Event::PullRequestEditFailed(failed),
            Self::MergeHead { .. } | Self::Merge { .. } => Event::PullRequestMergeFailed(failed),
            Self::PreviewLog { .. } => Event::GithubReadFailed(failed),
            Self::Push { .. } | Self::Create => Event::PullRequestOpenFailed(failed),
            Self::ReviewDiff { .. } => Event::GithubReadFailed(failed),
            Self::TargetHead { .. } | Self::TargetDiff { .. } => Event::GuidedReviewFailed(failed),
            Self::ReviewHead | Self::ReviewPost => Event::PullRequestReviewPostFailed(failed),
        }
    }
}

/// The GitHub part of the session.
#[derive(Debug, Default)]
pub(super) struct Github {
    commands: Commands<Job>,
    /// The workspace the running probe is filling in.
    probing: Option<WorkspaceUpdated>,
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
        match (self.commands.deadline(), self.next_poll) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

impl Session {
    /// Probes the checkout and its pull request; `announce` sends the result even when nothing
    /// changed (start, `refresh_workspace`, after a write; a poll sends only changes).
    pub(super) fn probe_workspace(&mut self, now: Instant, announce: bool) {
        if self.github.probing.is_some() {
            let again = self.github.again.unwrap_or(false) || announce;
            self.github.again = Some(again);
            return;
        }
        self.github.next_poll = None;
        self.github.announce = announce;
        self.github.probe_failure = None;
        self.github.probing = Some(WorkspaceUpdated {
            branch: None,
            head_sha: None,
            upstream: None,
            ahead: 0,
            behind: 0,
            dirty: false,
            repository: None,
            github: GithubState::Ready,
            pull_request: None,
        });
        let args = STATUS_ARGS.iter().map(|a| (*a).to_owned()).collect();
        let id = self.spawn(Owner::Github, "git", args, self.cwd.clone(), Vec::new());
        let timeout = self.timings.gh_timeout;
        self.github
            .commands
            .start(id, Job::Probe(ProbeStep::Git), now, Some(timeout));
    }

    /// Runs `gh args` for `job`.
    fn run_gh(&mut self, now: Instant, args: Vec<String>, job: Job) {
        let id = self.spawn(Owner::Github, "gh", args, self.cwd.clone(), gh::env());
        let timeout = self.timings.gh_timeout;
        self.github.commands.start(id, job, now, Some(timeout));
    }

    /// Runs `gh args` as `step` of request `request_id`.
    fn gh_request(&mut self, now: Instant, args: Vec<String>, request_id: String, step: Step) {
        self.run_gh(now, args, Job::Request { request_id, step });
    }

    /// Runs `git args` (a log, or a push) as `step` of request `request_id`.
    fn git_request(&mut self, now: Instant, args: Vec<String>, request_id: String, step: Step) {
        let id = self.spawn(
            Owner::Github,
            "git",
            args,
            self.cwd.clone(),
            super::stack::git_env(),
        );
        let timeout = self.timings.git_timeout;
        let job = Job::Request { request_id, step };
        self.github.commands.start(id, job, now, Some(timeout));
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
        let args = gh::git_log(&format!("origin/{base}"), &head);
        let step = Step::PreviewLog { base, head };
        self.git_request(now, args, preview.request_id, step);
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
        let args = gh::git_push(&draft.head);
        let step = Step::Push {
            draft: open.draft.unwrap_or(false),
        };
        self.git_request(now, args, open.request_id, step);
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
        let (_, finished) = self.github.commands.handle(input);
        if let Some(done) = finished {
            let result = Outcome {
                failure: done.gh_failure(),
                stdout: String::from_utf8_lossy(&done.stdout).into_owned(),
            };
            match done.purpose {
                Job::Probe(step) => self.probe_step_done(now, step, &result),
                Job::Request { request_id, step } => {
                    self.request_step_done(now, request_id, step, &result);
                }
            }
        }
    }

    /// Kills gh commands past their deadline and starts a due poll.
    pub(super) fn github_timeout(&mut self, now: Instant) {
        let overdue = self.github.commands.overdue(now);
        self.kill_all(overdue);
        if self.github.next_poll.is_some_and(|at| at <= now) {
            self.github.next_poll = None;
            self.probe_workspace(now, false);
        }
    }

    fn probe_step_done(&mut self, now: Instant, step: ProbeStep, result: &Outcome) {
        let Some(workspace) = self.github.probing.as_mut() else {
            return;
        };
        let next = match step {
            ProbeStep::Git => {
                if result.ok() {
                    let status = parse_status(&result.stdout);
                    workspace.branch = status.branch;
                    workspace.head_sha = status.head;
                    workspace.upstream = status.upstream;
                    workspace.ahead = status.ahead;
                    workspace.behind = status.behind;
                    workspace.dirty = status.dirty;
                }
                Some((gh::auth_status(), ProbeStep::Auth))
            }
            ProbeStep::Auth => match result.failure() {
                None => Some((gh::repo_view(), ProbeStep::Repo)),
                Some((state, reason)) => {
                    workspace.github = state.unwrap_or(GithubState::Unauthenticated);
                    self.github.probe_failure = Some(format!("gh auth status: {reason}"));
                    None
                }
            },
            ProbeStep::Repo => match parse::repository(&result.stdout) {
                Ok((repository, default_branch)) if result.ok() => {
                    workspace.repository = Some(repository);
                    self.github.default_branch = default_branch;
                    Some((gh::current_pr(), ProbeStep::PullRequest))
                }
                parsed => {
                    let (state, reason) = match (result.failure(), parsed) {
                        (Some((state, reason)), _) => (state, reason),
                        (None, Err(reason)) => (None, reason),
                        (None, Ok(_)) => (None, String::new()),
                    };
                    workspace.github = state.unwrap_or(GithubState::NoRemote);
                    self.github.probe_failure = Some(format!("gh repo view: {reason}"));
                    None
                }
            },
            ProbeStep::PullRequest => match parse::branch_pull_request(&result.stdout) {
                Ok(pr) if result.ok() => {
                    if let Ok(head) = parse::head_sha(&result.stdout) {
                        self.github.heads.insert((None, pr.number), head);
                    }
                    let number = pr.number;
                    workspace.pull_request = Some(pr);
                    Some((gh::pr_checks(number, None), ProbeStep::Checks))
                }
                // No pull request for this branch (or none readable): the dock shows none.
                _ => None,
            },
            ProbeStep::Checks => {
                // gh exits 8 while checks are pending; its JSON is still the answer.
                if let (Ok(checks), Some(pr)) = (
                    parse::checks(&result.stdout),
                    workspace.pull_request.as_mut(),
                ) {
                    pr.checks = checks;
                }
                None
            }
        };
        match next {
            Some((args, step)) => self.run_gh(now, args, Job::Probe(step)),
            None => self.probe_done(now),
        }
    }

    /// The probe finished: send what it found, and plan the next poll.
    fn probe_done(&mut self, now: Instant) {
        let Some(workspace) = self.github.probing.take() else {
            return;
        };
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
        self.gh_request(now, args, list.request_id, Step::List);
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
        let args = gh::pr_view(get.number, get.repository.as_deref());
        self.gh_request(
            now,
            args,
            get.request_id,
            Step::View {
                repository: get.repository,
                graphql_repository,
            },
        );
    }

    /// `post_pull_request_comment`.
    pub(super) fn post_pull_request_comment(&mut self, now: Instant, post: PostPullRequestComment) {
        let args = gh::pr_comment(post.number, &post.body, post.repository.as_deref());
        self.gh_request(now, args, post.request_id, Step::Comment);
    }

    /// `reply_to_review_thread`.
    pub(super) fn reply_to_review_thread(&mut self, now: Instant, reply: ReplyToReviewThread) {
        let args = gh::thread_reply(&reply.thread_id, &reply.body);
        self.gh_request(now, args, reply.request_id, Step::Reply);
    }

    /// `resolve_review_thread`.
    pub(super) fn resolve_review_thread(&mut self, now: Instant, resolve: ResolveReviewThread) {
        let resolved = resolve.resolved.unwrap_or(true);
        let args = gh::thread_resolve(&resolve.thread_id, resolved);
        self.gh_request(
            now,
            args,
            resolve.request_id,
            Step::Resolve {
                thread_id: resolve.thread_id,
                resolved,
            },
        );
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
        self.gh_request(now, args, edit.request_id, Step::Edit { then });
    }

    /// `merge_pull_request`: at the head luxe last saw, read first if it saw none.
    pub(super) fn merge_pull_request(&mut self, now: Instant, merge: MergePullRequest) {
        let key = (merge.repository.clone(), merge.number);
        let request_id = merge.request_id.clone();
        match self.github.heads.get(&key).cloned() {
            Some(head) => {
                let args = gh::pr_merge(
                    merge.number,
                    merge.method,
                    merge.delete_branch.unwrap_or(false),
                    &head,
                    merge.repository.as_deref(),
                );
                let step = Step::Merge {
                    number: merge.number,
                    repository: merge.repository,
                };
                self.gh_request(now, args, request_id, step);
            }
            None => {
                let args = gh::pr_head(merge.number, merge.repository.as_deref());
                let step = Step::MergeHead { merge };
                self.gh_request(now, args, request_id, step);
            }
        }
    }

    fn request_step_done(
        &mut self,
        now: Instant,
        request_id: String,
        step: Step,
        result: &Outcome,
    ) {
        if let Some((state, reason)) = result.failure() {
            if let (Some(state), Some(last)) = (state, self.github.last.as_mut())
                && last.github != state
            {
                last.github = state;
                let update = Box::new(last.clone());
                self.emit(Event::WorkspaceUpdated(update));
            }
            return self.emit(step.failed(request_id, reason));
        }
        let stdout = result.stdout.as_str();
        let wrote = match step {
            Step::List => {
                match parse::pull_requests(stdout) {
                    Ok(pull_requests) => self.emit(Event::PullRequestsListed(PullRequestsListed {
                        request_id,
                        pull_requests,
                    })),
                    Err(reason) => self.emit(Event::GithubReadFailed(RequestFailed {
                        request_id,
                        reason,
                    })),
                }
                false
            }
            Step::View {
                repository,
                graphql_repository,
            } => {
                match parse::pull_request(stdout) {
                    Ok(detail) => {
                        let args = gh::review_threads(&graphql_repository, detail.summary.number);
                        let step = Step::Threads {
                            repository,
                            detail: Box::new(detail),
                        };
                        self.gh_request(now, args, request_id, step);
                    }
                    Err(reason) => self.emit(Event::GithubReadFailed(RequestFailed {
                        request_id,
                        reason,
                    })),
                }
                false
            }
            Step::Threads {
                repository,
                mut detail,
            } => {
                match parse::threads(stdout) {
                    Ok(threads) => {
                        detail.threads = threads;
                        self.github
                            .heads
                            .insert((repository, detail.summary.number), detail.head_sha.clone());
                        self.emit(Event::PullRequestFetched(Box::new(PullRequestFetched {
                            request_id,
                            pull_request: *detail,
                        })));
                    }
                    Err(reason) => self.emit(Event::GithubReadFailed(RequestFailed {
                        request_id,
                        reason,
                    })),
                }
                false
            }
            Step::Comment => {
                self.emit(Event::PullRequestCommentPosted(GithubDone {
                    request_id,
                    url: parse::printed_url(stdout),
                }));
                true
            }
            Step::Reply => {
                self.emit(Event::ReviewThreadReplied(GithubDone {
                    request_id,
                    url: parse::reply_url(stdout),
                }));
                true
            }
            Step::Resolve {
                thread_id,
                resolved,
            } => {
                self.emit(Event::ReviewThreadResolved(ReviewThreadResolved {
                    request_id,
                    thread_id,
                    resolved,
                }));
                true
            }
            Step::Edit { then: Some(args) } => {
                let step = Step::Edit { then: None };
                self.gh_request(now, args, request_id, step);
                false
            }
            Step::Edit { then: None } => {
                self.emit(Event::PullRequestEdited(GithubDone {
                    request_id,
                    url: parse::printed_url(stdout),
                }));
                true
            }
            Step::MergeHead { merge } => {
                match parse::head_sha(stdout) {
                    Ok(head) => {
                        self.github
                            .heads
                            .insert((merge.repository.clone(), merge.number), head);
                        self.merge_pull_request(now, merge);
                    }
                    Err(reason) => self.emit(Event::PullRequestMergeFailed(RequestFailed {
                        request_id,
                        reason,
                    })),
                }
                false
            }
            Step::PreviewLog { base, head } => {
                let commits: Vec<PreviewCommit> = parse::commits(stdout)
                    .into_iter()
                    .map(|(sha, subject)| PreviewCommit { sha, subject })
                    .collect();
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
                false
            }
            Step::Push { draft } => {
                match self.github.previews.get(&request_id) {
                    Some(p) => {
                        let args = gh::pr_create(&p.title, &p.description, &p.base, &p.head, draft);
                        self.gh_request(now, args, request_id, Step::Create);
                    }
                    None => self.emit(Event::PullRequestOpenFailed(RequestFailed {
                        request_id,
                        reason: "the preview is gone".into(),
                    })),
                }
                false
            }
            Step::Create => {
                // gh prints the new pull request's address; without one, luxe cannot say what
                // opened, so it says so rather than answer a number it does not know.
                let opened =
                    parse::printed_url(stdout).and_then(|url| Some((parse::pr_number(&url)?, url)));
                let Some((number, url)) = opened else {
                    self.emit(Event::PullRequestOpenFailed(RequestFailed {
                        request_id,
                        reason: "gh pr create printed no pull request address: check GitHub before confirming again".into(),
                    }));
                    return;
                };
                self.github.previews.remove(&request_id);
                self.emit(Event::PullRequestOpened(PullRequestOpened {
                    request_id,
                    number,
                    url,
                }));
                true
            }
            Step::ReviewDiff {
                review_id,
                number,
                repository,
                head_sha,
            } => {
                self.review_diff_read(
                    request_id,
                    &review_id,
                    (number, repository),
                    head_sha,
                    stdout,
                );
                false
            }
            Step::TargetHead { target } => {
                let ReviewTarget::PullRequest { number, repository } = &target else {
                    return;
                };
                match parse::head_sha(stdout) {
                    Ok(head) => {
                        self.github
                            .heads
                            .insert((repository.clone(), *number), head);
                        let args = gh::pr_diff_in(*number, repository.as_deref());
                        let step = Step::TargetDiff { target };
                        self.gh_request(now, args, request_id, step);
                    }
                    Err(reason) => self.emit(Event::GuidedReviewFailed(RequestFailed {
                        request_id,
                        reason,
                    })),
                }
                false
            }
            Step::TargetDiff { target } => {
                let loaded = Loaded::Patch {
                    root: self.cwd.clone(),
                    patch: stdout.to_owned(),
                };
                self.read_session(now, request_id, target, loaded);
                false
            }
            Step::ReviewHead => {
                self.review_head_read(request_id, stdout);
                false
            }
            Step::ReviewPost => {
                self.github.review_previews.remove(&request_id);
                let url = serde_json::from_str::<serde_json::Value>(stdout)
                    .ok()
                    .and_then(|v| v["html_url"].as_str().map(str::to_owned));
                self.emit(Event::PullRequestReviewPosted(GithubDone {
                    request_id,
                    url,
                }));
                true
            }
            Step::Merge { number, repository } => {
                self.github.heads.remove(&(repository, number));
                self.emit(Event::PullRequestMerged(GithubDone {
                    request_id,
                    url: parse::printed_url(stdout),
                }));
                true
            }
        };
        if wrote {
            self.probe_workspace(now, true);
        }
    }
}

impl Session {
    /// `load_guided_review` of a pull request: its head, then its diff, through gh.
    pub(super) fn load_pull_request_review(
        &mut self,
        now: Instant,
        request_id: String,
        target: ReviewTarget,
    ) {
        let ReviewTarget::PullRequest { number, repository } = &target else {
            return;
        };
        let args = gh::pr_head(*number, repository.as_deref());
        self.gh_request(now, args, request_id, Step::TargetHead { target });
    }

    /// `preview_pull_request_review`: read the pull request's diff, then draft the comments.
    pub(super) fn preview_pull_request_review(
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
        let args = gh::pr_diff_in(number, repository.as_deref());
        let step = Step::ReviewDiff {
            review_id: request.review_id,
            number,
            repository,
            head_sha,
        };
        self.gh_request(now, args, request.request_id, step);
        Ok(())
    }

    fn review_diff_read(
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
    pub(super) fn post_pull_request_review(
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
        let args = gh::pr_head(number, Some(&repository));
        self.gh_request(now, args, post.request_id, Step::ReviewHead);
        Ok(())
    }

    /// The head now: unchanged, the body is written for gh to post.
    fn review_head_read(&mut self, request_id: String, stdout: &str) {
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
        self.outputs
            .push_back(crate::effects::Output::WriteFile { id, path, bytes });
    }

    /// The body is on disk: post it.
    fn review_body_written(
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
        let args = gh::review_post(&prepared.repository, prepared.number, &path);
        self.gh_request(now, args, request_id, Step::ReviewPost);
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

/// A finished command's result as text.
#[derive(Debug)]
struct Outcome {
    stdout: String,
    /// `None` on success; else the dock state it implies, if any, and the reason.
    failure: Option<(Option<GithubState>, String)>,
}

impl Outcome {
    fn ok(&self) -> bool {
        self.failure.is_none()
    }

    /// `None` on success; else the dock state it implies, if any, and the reason.
    fn failure(&self) -> Option<(Option<GithubState>, String)> {
        self.failure.clone()
    }
}
