//! The gh requests that client actions become (a list, a comment, a reply, a resolution, an
//! edit), a drafted pull request description, and the event each kind of failed request
//! answers with: pure functions of the action, for [`super::Github`] to run.

use crate::github::requests::{Kind, Request};
use crate::github::{gh, parse};
use crate::protocol::events::{Event, RequestFailed};
use crate::protocol::github::{
    EditPullRequest, ListPullRequests, PostPullRequestComment, PreviewCommit, PullRequestFilter,
    ReplyToReviewThread, ResolveReviewThread,
};

use super::super::outbox::Outbox;

/// `list_pull_requests`: `gh pr list` in the asked state, open ones by default.
pub(super) fn list_pull_requests(list: ListPullRequests) -> Request {
    let args = gh::pr_list(
        list.state.unwrap_or(PullRequestFilter::Open),
        list.repository.as_deref(),
    );
    Request::list(list.request_id, args)
}

/// `post_pull_request_comment`: `gh pr comment N --body …`.
pub(super) fn post_pull_request_comment(post: PostPullRequestComment) -> Request {
    let args = gh::pr_comment(post.number, &post.body, post.repository.as_deref());
    Request::comment(post.request_id, args)
}

/// `reply_to_review_thread`: the GraphQL reply mutation through `gh api graphql`.
pub(super) fn reply_to_review_thread(reply: ReplyToReviewThread) -> Request {
    let args = gh::thread_reply(&reply.thread_id, &reply.body);
    Request::reply(reply.request_id, args)
}

/// `resolve_review_thread`: resolve the thread, or reopen it when `resolved` is `false`.
pub(super) fn resolve_review_thread(resolve: ResolveReviewThread) -> Request {
    let resolved = resolve.resolved.unwrap_or(true);
    Request::resolve(resolve.request_id, resolve.thread_id, resolved)
}

/// `edit_pull_request`: refused on `outbox` when it changes nothing.
pub(super) fn edit_pull_request(outbox: &mut Outbox, edit: EditPullRequest) -> Option<Request> {
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
            outbox.emit(Event::PullRequestEditFailed(RequestFailed {
                request_id: edit.request_id,
                reason: "nothing to change: give title, body, base or draft".into(),
            }));
            return None;
        }
    };
    Some(Request::edit(edit.request_id, args, then))
}

/// A title and description for a pull request of `head` holding `commits`, with the open
/// review's chapters when there is one.
pub(super) fn draft_pull_request(
    head: &str,
    commits: &[PreviewCommit],
    chapters: Option<Vec<(String, String)>>,
) -> (String, String) {
    let title = match commits {
        [only] => only.subject.clone(),
        _ => head.replace(['-', '_', '/'], " "),
    };
    let mut description = String::from("## Commits\n");
    for commit in commits {
        let short = parse::short_sha(&commit.sha);
        description.push_str(&format!("- {} ({short})\n", commit.subject));
    }
    if let Some(chapters) = chapters {
        description.push_str("\n## Chapters\n");
        for (title, summary) in chapters {
            description.push_str(&format!("- **{title}**: {summary}\n"));
        }
    }
    (title, description)
}

/// The event a request of `kind` fails with.
pub(super) fn failure_event(kind: Kind, request_id: String, reason: String) -> Event {
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
