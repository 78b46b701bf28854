//! The GitHub requests clients send, each a short chain of gh (or git) commands as a pure
//! [`Flow`]: what to run first, what each output means, what runs next, and what the request
//! ends with. The session starts a request with what it knows (the repository, a head it saw),
//! spawns each command, and applies the answer (events, the heads it remembers).

use crate::protocol::github::{
    MergePullRequest, PreviewCommit, PullRequestDetail, PullRequestPreview, PullRequestSummary,
};
use crate::protocol::guided_review::ReviewTarget;
use crate::steps::{Cmd, Flow, Next, Ran};

use super::{gh, parse};

/// Which request a chain serves: it names the failure event a client gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `list_pull_requests`, `get_pull_request`, `preview_pull_request`, and the diff of
    /// `preview_pull_request_review`.
    Read,
    /// `post_pull_request_comment`.
    Comment,
    /// `reply_to_review_thread`.
    Reply,
    /// `resolve_review_thread`.
    Resolve,
    /// `edit_pull_request`.
    Edit,
    /// `merge_pull_request`.
    Merge,
    /// `open_pull_request`.
    Open,
    /// `load_guided_review` of a pull request.
    LoadReview,
    /// `post_pull_request_review`.
    PostReview,
}

/// What a request ended with, for the session to apply.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The pull requests listed.
    Listed(Vec<PullRequestSummary>),
    /// A pull request with its threads; `repository` is what the client named.
    Fetched {
        /// The repository the client named, `None` for the checkout's.
        repository: Option<String>,
        /// The pull request.
        detail: Box<PullRequestDetail>,
    },
    /// A comment posted, at this address if gh printed one.
    Commented(Option<String>),
    /// A reply posted.
    Replied(Option<String>),
    /// A thread resolved or reopened.
    Resolved {
        /// The thread's GraphQL id, as the request named it.
        thread_id: String,
        /// Its state now.
        resolved: bool,
    },
    /// A pull request edited.
    Edited(Option<String>),
    /// A pull request merged.
    Merged {
        /// The merged pull request's number; with `repository`, the head luxe stops keeping.
        number: u64,
        /// The repository the client named.
        repository: Option<String>,
        /// Its address, if gh printed one.
        url: Option<String>,
    },
    /// The commits a pull request of `head` onto `base` would hold.
    Commits {
        /// The branch it would merge into, by its name on origin: the commits are those not on
        /// `origin/<base>`.
        base: String,
        /// The branch its changes come from, as the preview named it (else the current branch).
        head: String,
        /// Oldest first.
        commits: Vec<PreviewCommit>,
    },
    /// A pull request opened.
    Opened {
        /// The new pull request's number, read from the address gh printed.
        number: u64,
        /// The new pull request's page, as gh printed it.
        url: String,
    },
    /// A pull request's diff, for a review preview of the review `review_id`.
    ReviewDiff {
        /// The `review_id` the `preview_pull_request_review` named: the review whose findings are
        /// drafted.
        review_id: String,
        /// The pull request.
        number: u64,
        /// The repository the review named.
        repository: Option<String>,
        /// The head the preview is of.
        head_sha: String,
        /// gh's unified diff.
        diff: String,
    },
    /// A pull request review target's diff, read at its head.
    TargetDiff {
        /// The pull request target `load_guided_review` named; the review built from `patch` is
        /// loaded as it.
        target: ReviewTarget,
        /// gh's unified diff.
        patch: String,
    },
    /// What `gh` printed for the pull request's head, before a review is posted.
    ReviewHead(String),
    /// A review posted, at this address if GitHub said.
    ReviewPosted(Option<String>),
}

impl Answer {
    /// Whether the request changed GitHub, so the workspace is probed again.
    pub fn wrote(&self) -> bool {
        matches!(
            self,
            Self::Commented(_)
                | Self::Replied(_)
                | Self::Resolved { .. }
                | Self::Edited(_)
                | Self::Merged { .. }
                | Self::Opened { .. }
                | Self::ReviewPosted(_)
        )
    }
}

/// Why a request failed, and what a failed gh implies for the dock (logged out, missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    /// In gh's words, or what luxe could not make of its output.
    pub reason: String,
    /// The dock state a gh failure implies, when it implies one.
    pub gh_state: Option<crate::protocol::github::GithubState>,
}

/// Where a request is.
#[derive(Debug, Clone)]
enum Step {
    List,
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
    /// `then` is the `gh pr ready` to run after, when the draft state changes too.
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
    PreviewLog {
        base: String,
        head: String,
    },
    Push {
        create: Vec<String>,
    },
    Create,
    ReviewDiff {
        review_id: String,
        number: u64,
        repository: Option<String>,
        head_sha: String,
    },
    TargetHead {
        target: ReviewTarget,
    },
    TargetDiff {
        target: ReviewTarget,
    },
    ReviewHead,
    ReviewPost,
}

/// One client request as a chain of commands.
#[derive(Debug, Clone)]
pub struct Request {
    /// The client's request id, echoed by every answer.
    pub request_id: String,
    kind: Kind,
    first: Option<Cmd>,
    step: Step,
    /// A pull request head read on the way, by `(repository, number)`.
    learned: Option<((Option<String>, u64), String)>,
}

impl Request {
    fn new(request_id: String, kind: Kind, first: Cmd, step: Step) -> Self {
        Self {
            request_id,
            kind,
            first: Some(first),
            step,
            learned: None,
        }
    }

    /// `list_pull_requests`, with gh's arguments.
    pub fn list(request_id: String, args: Vec<String>) -> Self {
        Self::new(request_id, Kind::Read, Cmd::gh(args), Step::List)
    }

    /// `get_pull_request` of `number`; its threads are asked of `graphql_repository`.
    pub fn get(
        request_id: String,
        number: u64,
        repository: Option<String>,
        graphql_repository: String,
    ) -> Self {
        let first = Cmd::gh(gh::pr_view(number, repository.as_deref()));
        let step = Step::View {
            repository,
            graphql_repository,
        };
        Self::new(request_id, Kind::Read, first, step)
    }

    /// `post_pull_request_comment`.
    pub fn comment(request_id: String, args: Vec<String>) -> Self {
        Self::new(request_id, Kind::Comment, Cmd::gh(args), Step::Comment)
    }

    /// `reply_to_review_thread`.
    pub fn reply(request_id: String, args: Vec<String>) -> Self {
        Self::new(request_id, Kind::Reply, Cmd::gh(args), Step::Reply)
    }

    /// `resolve_review_thread`.
    pub fn resolve(request_id: String, thread_id: String, resolved: bool) -> Self {
        let first = Cmd::gh(gh::thread_resolve(&thread_id, resolved));
        let step = Step::Resolve {
            thread_id,
            resolved,
        };
        Self::new(request_id, Kind::Resolve, first, step)
    }

    /// `edit_pull_request`: `args` first, then `then` (`gh pr ready`) if given, one answer.
    pub fn edit(request_id: String, args: Vec<String>, then: Option<Vec<String>>) -> Self {
        Self::new(request_id, Kind::Edit, Cmd::gh(args), Step::Edit { then })
    }

    /// `merge_pull_request` at `head`, the head luxe last saw; read first when it saw none.
    pub fn merge(request_id: String, merge: MergePullRequest, head: Option<&str>) -> Self {
        match head {
            Some(head) => {
                let first = Cmd::gh(merge_args(&merge, head));
                let step = Step::Merge {
                    number: merge.number,
                    repository: merge.repository,
                };
                Self::new(request_id, Kind::Merge, first, step)
            }
            None => {
                let first = Cmd::gh(gh::pr_head(merge.number, merge.repository.as_deref()));
                Self::new(request_id, Kind::Merge, first, Step::MergeHead { merge })
            }
        }
    }

    /// `preview_pull_request`: the commits of `head` not on `base`.
    pub fn preview(request_id: String, base: String, head: String) -> Self {
        let first = Cmd::git(gh::git_log(&format!("origin/{base}"), &head));
        Self::new(
            request_id,
            Kind::Read,
            first,
            Step::PreviewLog { base, head },
        )
    }

    /// `open_pull_request` of what `preview` showed: push its head, then open it.
    pub fn open(request_id: String, preview: &PullRequestPreview, draft: bool) -> Self {
        let create = gh::pr_create(
            &preview.title,
            &preview.description,
            &preview.base,
            &preview.head,
            draft,
        );
        let first = Cmd::git(gh::git_push(&preview.head));
        Self::new(request_id, Kind::Open, first, Step::Push { create })
    }

    /// `preview_pull_request_review`: the pull request's diff, for the review `review_id`
    /// seen at `head_sha`.
    pub fn review_diff(
        request_id: String,
        review_id: String,
        (number, repository): (u64, Option<String>),
        head_sha: String,
    ) -> Self {
        let first = Cmd::gh(gh::pr_diff_in(number, repository.as_deref()));
        let step = Step::ReviewDiff {
            review_id,
            number,
            repository,
            head_sha,
        };
        Self::new(request_id, Kind::Read, first, step)
    }

    /// `load_guided_review` of a pull request: its head (remembered for posting), then its
    /// diff.
    pub fn load_review(request_id: String, target: ReviewTarget) -> Option<Self> {
        let ReviewTarget::PullRequest { number, repository } = &target else {
            return None;
        };
        let first = Cmd::gh(gh::pr_head(*number, repository.as_deref()));
        let step = Step::TargetHead { target };
        Some(Self::new(request_id, Kind::LoadReview, first, step))
    }

    /// `post_pull_request_review`, first step: the pull request's head now.
    pub fn review_head(request_id: String, repository: &str, number: u64) -> Self {
        let first = Cmd::gh(gh::pr_head(number, Some(repository)));
        Self::new(request_id, Kind::PostReview, first, Step::ReviewHead)
    }

    /// `post_pull_request_review`, once the head is checked: post `body` (gh reads it on
    /// stdin).
    pub fn review_post(request_id: String, repository: &str, number: u64, body: Vec<u8>) -> Self {
        let first = Cmd::gh(gh::review_post(repository, number)).with_stdin(body);
        Self::new(request_id, Kind::PostReview, first, Step::ReviewPost)
    }

    /// Which request this is, for its failure event.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// A pull request head read on the way, which the session remembers whatever the end.
    pub fn learned_head(&self) -> Option<&((Option<String>, u64), String)> {
        self.learned.as_ref()
    }

    fn next(&mut self, step: Step, cmd: Cmd) -> Next<Result<Answer, Failed>> {
        self.step = step;
        Next::Run(cmd)
    }

    /// Where the step after a successful command leads.
    fn succeeded(&mut self, stdout: &str) -> Next<Result<Answer, Failed>> {
        let failed = |reason: String| {
            Next::Done(Err(Failed {
                reason,
                gh_state: None,
            }))
        };
        let answer = match std::mem::replace(&mut self.step, Step::List) {
            Step::List => match parse::pull_requests(stdout) {
                Ok(pull_requests) => Answer::Listed(pull_requests),
                Err(reason) => return failed(reason),
            },
            Step::View {
                repository,
                graphql_repository,
            } => match parse::pull_request(stdout) {
                Ok(detail) => {
                    let args = gh::review_threads(&graphql_repository, detail.summary.number);
                    let step = Step::Threads {
                        repository,
                        detail: Box::new(detail),
                    };
                    return self.next(step, Cmd::gh(args));
                }
                Err(reason) => return failed(reason),
            },
            Step::Threads {
                repository,
                mut detail,
            } => match parse::threads(stdout) {
                Ok(threads) => {
                    detail.threads = threads;
                    Answer::Fetched { repository, detail }
                }
                Err(reason) => return failed(reason),
            },
            Step::Comment => Answer::Commented(parse::printed_url(stdout)),
            Step::Reply => Answer::Replied(parse::reply_url(stdout)),
            Step::Resolve {
                thread_id,
                resolved,
            } => Answer::Resolved {
                thread_id,
                resolved,
            },
            Step::Edit { then: Some(args) } => {
                return self.next(Step::Edit { then: None }, Cmd::gh(args));
            }
            Step::Edit { then: None } => Answer::Edited(parse::printed_url(stdout)),
            Step::MergeHead { merge } => match parse::head_sha(stdout) {
                Ok(head) => {
                    let args = merge_args(&merge, &head);
                    self.learned = Some(((merge.repository.clone(), merge.number), head));
                    let step = Step::Merge {
                        number: merge.number,
                        repository: merge.repository,
                    };
                    return self.next(step, Cmd::gh(args));
                }
                Err(reason) => return failed(reason),
            },
            Step::Merge { number, repository } => Answer::Merged {
                number,
                repository,
                url: parse::printed_url(stdout),
            },
            Step::PreviewLog { base, head } => Answer::Commits {
                base,
                head,
                commits: parse::commits(stdout)
                    .into_iter()
                    .map(|(sha, subject)| PreviewCommit { sha, subject })
                    .collect(),
            },
            Step::Push { create } => return self.next(Step::Create, Cmd::gh(create)),
            // gh prints the new pull request's address; without one, luxe cannot say what
            // opened, so it says so rather than answer a number it does not know.
            Step::Create => match parse::printed_url(stdout)
                .and_then(|url| Some((parse::pr_number(&url)?, url)))
            {
                Some((number, url)) => Answer::Opened { number, url },
                None => {
                    return failed("gh pr create printed no pull request address: check GitHub before confirming again".into());
                }
            },
            Step::ReviewDiff {
                review_id,
                number,
                repository,
                head_sha,
            } => Answer::ReviewDiff {
                review_id,
                number,
                repository,
                head_sha,
                diff: stdout.to_owned(),
            },
            Step::TargetHead { target } => {
                let ReviewTarget::PullRequest { number, repository } = &target else {
                    return failed("only a pull request review reads a pull request".into());
                };
                match parse::head_sha(stdout) {
                    Ok(head) => {
                        let args = gh::pr_diff_in(*number, repository.as_deref());
                        self.learned = Some(((repository.clone(), *number), head));
                        return self.next(Step::TargetDiff { target }, Cmd::gh(args));
                    }
                    Err(reason) => return failed(reason),
                }
            }
            Step::TargetDiff { target } => Answer::TargetDiff {
                target,
                patch: stdout.to_owned(),
            },
            Step::ReviewHead => Answer::ReviewHead(stdout.to_owned()),
            Step::ReviewPost => Answer::ReviewPosted(
                serde_json::from_str::<serde_json::Value>(stdout)
                    .ok()
                    .and_then(|v| v["html_url"].as_str().map(str::to_owned)),
            ),
        };
        Next::Done(Ok(answer))
    }
}

impl Flow for Request {
    type Output = Result<Answer, Failed>;

    fn start(&mut self) -> Next<Self::Output> {
        match self.first.take() {
            Some(cmd) => Next::Run(cmd),
            None => Next::Done(Err(Failed {
                reason: "the request was started twice".into(),
                gh_state: None,
            })),
        }
    }

    fn on(&mut self, ran: Ran) -> Next<Self::Output> {
        match ran.result {
            Ok(stdout) => self.succeeded(&stdout),
            Err(reason) => Next::Done(Err(Failed {
                reason,
                gh_state: ran.gh_state,
            })),
        }
    }
}

/// `gh pr merge` of `merge` at `head`.
fn merge_args(merge: &MergePullRequest, head: &str) -> Vec<String> {
    gh::pr_merge(
        merge.number,
        merge.method,
        merge.delete_branch.unwrap_or(false),
        head,
        merge.repository.as_deref(),
    )
}

#[cfg(test)]
mod tests;
