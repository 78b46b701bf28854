//! Checked drivers shared by the fuzz targets, the property tests and the simulation harness:
//! they feed `Luxe` and assert the protocol's invariants after every step. A panic here is a
//! bug in luxe (or in this file), never an expected outcome.

use std::time::{Duration, Instant};

use crate::config::Config;
use crate::effects::{Input, Output};
use crate::luxe::Luxe;
use crate::output_order::is_effect;
use crate::permissions::redact::secret_values;
use crate::protocol::actions::Action;
use crate::protocol::codec::{Incoming, decode, encode};
use crate::protocol::events::{
    Event, GuidedReviewLoaded, RequestFailed, ReviewChaptersCommitted, ReviewSessionSaved,
};
use crate::protocol::github::{
    GithubDone, PullRequestOpened, PullRequestsListed, ReviewThreadResolved,
};
use crate::protocol::stack::{RestackFailed, Restacked};
use std::collections::{BTreeMap, BTreeSet};

/// Fuzz body for the codec: decoding never panics, a decoded action survives a round trip
/// through its own serialization, and a rejection encodes as one line of JSON.
pub fn codec(data: &[u8]) {
    match decode(data) {
        Ok(None) => {}
        Ok(Some(incoming)) => {
            let action = incoming.action;
            let again = serde_json::to_vec(&action).expect("actions serialize");
            match decode(&again) {
                Ok(Some(back)) => assert_eq!(back.action, action),
                other => panic!("round trip of {action:?} gave {other:?}"),
            }
        }
        Err(rejection) => {
            let mut line = Vec::new();
            encode(&rejection.into_event(), &mut line);
            check_line(&line);
        }
    }
}

/// Fuzz body for the whole core: `data` split on LF is fed line by line to a fresh session,
/// every answer checked; then, unless a line closed it, the session must still answer.
pub fn session(now: Instant, data: &[u8]) {
    let mut config = test_config();
    // Small, so that fuzz inputs reach the over-long-line path.
    config.max_frame_bytes = 256;
    let mut checked = Checked::new(config, now);
    for line in data.split(|b| *b == b'\n') {
        checked.line(line);
    }
    if !checked.is_closed() {
        let out = checked.line(br#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
        assert!(
            matches!(out.as_slice(), [Output::Frame(f)] if matches!(f.event(), Event::StateChanged(_))),
            "the session stopped answering: {out:?}"
        );
    }
}

/// The config fuzzing and simulations start from: no flags, no providers, a fixed id.
pub fn test_config() -> Config {
    Config::new("0.1.0", "session-test", "/work/app")
}

/// A `Luxe` whose every step is checked against the protocol's invariants.
#[derive(Debug)]
pub struct Checked {
    luxe: Luxe,
    now: Instant,
    exited: bool,
    start: Vec<Output>,
    ledger: Ledger,
    /// The values of the config's `.env` files, which no frame or request body may carry.
    secrets: Vec<String>,
    /// The last frame drained since the last flush: io may still hold it.
    unflushed: Option<Event>,
}

impl Checked {
    /// Starts a session; `config` must be valid. The start-up frames are checked and kept for
    /// [`Checked::take_start`].
    pub fn new(config: Config, now: Instant) -> Self {
        let secrets = config
            .env_files
            .iter()
            .flat_map(|file| secret_values(&file.bytes))
            .collect();
        let luxe = Luxe::new(config, now).expect("a valid config");
        let mut checked = Self {
            luxe,
            now,
            exited: false,
            start: Vec::new(),
            ledger: Ledger::default(),
            secrets,
            unflushed: None,
        };
        checked.ledger.starting = true;
        checked.start = checked.drain();
        checked.ledger.starting = false;
        match checked.start.first() {
            Some(Output::Frame(frame)) if matches!(frame.event(), Event::Ready(_)) => {}
            other => panic!("ready must come first, got {other:?}"),
        }
        checked
    }

    /// The outputs `Luxe::new` queued (`ready`, `state_changed`); empty after the first call.
    pub fn take_start(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.start)
    }

    /// Whether an `Exit` was drained.
    pub fn is_closed(&self) -> bool {
        self.exited
    }

    /// The virtual clock.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Moves the clock forward, running timers that fall due, and returns their outputs.
    pub fn advance(&mut self, by: Duration) -> Vec<Output> {
        let target = self.now + by;
        let mut out = Vec::new();
        while let Some(deadline) = self.luxe.poll_timeout().filter(|d| *d <= target) {
            self.now = self.now.max(deadline);
            self.luxe.handle_timeout(self.now);
            out.extend(self.drain());
        }
        self.now = target;
        out
    }

    /// Feeds any input and drains, checking the invariants every output must keep.
    pub fn input(&mut self, input: Input<'_>) -> Vec<Output> {
        let opened = match &input {
            Input::FileOpened { id, result: Ok(_) } => {
                if let Some(open) = self.ledger.open_files.get_mut(id) {
                    open.1 = true;
                }
                Some(*id)
            }
            Input::FileOpened { id, result: Err(_) } => {
                // io holds nothing for an open that failed.
                self.ledger.open_files.remove(id);
                None
            }
            _ => None,
        };
        self.luxe.handle_input(self.now, input);
        let out = self.drain();
        if let Some(id) = opened {
            assert!(
                self.ledger.open_turn.is_some() || !self.ledger.open_files.contains_key(&id),
                "{id:?} was opened after its turn and is still held"
            );
        }
        out
    }

    /// Feeds one client line (LF appended) and checks that it got exactly the answer the
    /// protocol promises for it.
    pub fn line(&mut self, line: &[u8]) -> Vec<Output> {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        let was_closed = self.exited;
        // A review or GitHub request is answered later (after git, gh or disk), exactly once.
        if let Ok(Some(Incoming {
            action,
            request_id: Some(id),
        })) = decode(line)
            && !was_closed
            && line.len() <= self.luxe.max_frame_bytes()
            && answered_later(&action)
        {
            self.ledger.counted.insert(id.clone());
            *self.ledger.awaiting.entry(id).or_default() += 1;
        }
        let out = self.input(Input::ClientBytes(&bytes));
        if was_closed {
            assert!(out.is_empty(), "output after exit: {out:?}");
            return out;
        }
        let frames: Vec<&Event> = frames(&out).collect();
        if line.len() > self.luxe.max_frame_bytes() {
            assert_one_rejection(&frames, None, line);
            return out;
        }
        match decode(line) {
            Ok(None) => assert!(out.is_empty(), "a blank line was answered: {out:?}"),
            Err(rejection) => {
                assert_eq!(
                    frames,
                    [&rejection.into_event()],
                    "a bad line gets exactly its rejection"
                );
                assert_eq!(out.len(), 1);
            }
            Ok(Some(incoming)) => match incoming.action {
                Action::Close => {
                    assert_eq!(out, [Output::Exit { code: 0 }]);
                }
                // These move a turn along: their frames are checked by the ledger.
                Action::SubmitUserMessage(_)
                | Action::RespondPermission(_)
                | Action::AnswerQuestion(_)
                | Action::InterruptTurn
                | Action::SetPermissionAutoApprove(_)
                | Action::RefreshWorkspace => {}
                // Answered now or later, exactly once: the ledger counts.
                action if answered_later(&action) => {}
                // Started (its end is the ledger's to check) or refused, with its id either way.
                Action::Compact(compact) => {
                    let id = Some(&compact.request_id);
                    let started = frames.iter().any(
                        |f| matches!(f, Event::CompactionStarted(s) if s.request_id.as_ref() == id),
                    );
                    let refused = matches!(frames[..],
                        [Event::ActionRejected(r)] if r.request_id.as_ref() == id);
                    assert!(started || refused, "compact is started or refused: {out:?}");
                }
                // Exactly one frame; effects may come with it (a settings change is recorded).
                _ => {
                    assert_eq!(frames.len(), 1, "one answer per action: {out:?}");
                }
            },
        }
        out
    }

    /// Drains the outputs, checking the order io performs them in: every frame is flushed
    /// before an effect after it starts. The flushes themselves carry nothing and are not
    /// returned.
    fn drain(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        while let Some(output) = self.luxe.poll_output() {
            assert!(!self.exited, "output after exit: {output:?}");
            if is_effect(&output) {
                assert!(
                    self.unflushed.is_none(),
                    "{output:?} starts before {:?} is flushed",
                    self.unflushed
                );
            }
            match &output {
                Output::Flush => {
                    self.unflushed = None;
                    continue;
                }
                Output::Frame(frame) => {
                    let mut line = Vec::new();
                    frame.encode(&mut line);
                    check_line(&line);
                    self.check_redacted(&line);
                    self.ledger.observe(frame.event());
                    self.unflushed = Some(frame.event().clone());
                }
                Output::HttpRequest { request, .. } => {
                    self.check_redacted(&request.body);
                    self.ledger.observe_effect(&output);
                }
                Output::Exit { .. } => self.exited = true,
                effect => self.ledger.observe_effect(effect),
            }
            out.push(output);
        }
        assert_eq!(
            self.exited,
            self.luxe.is_closed(),
            "exit and is_closed disagree"
        );
        out
    }
}

impl Checked {
    /// Asserts that `bytes` (a frame, a request body) carry no `.env` value.
    fn check_redacted(&self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        for secret in &self.secrets {
            assert!(
                !text.contains(secret.as_str()),
                "a .env value got out: {text}"
            );
        }
    }
}

/// Whether `action` is answered once, possibly later (after git, gh or the disk): review and
/// GitHub requests.
fn answered_later(action: &Action) -> bool {
    matches!(
        action,
        Action::LoadGuidedReview(_)
            | Action::EditReview(_)
            | Action::RequestAgentReview(_)
            | Action::CommitReviewChapters(_)
            | Action::ListPullRequests(_)
            | Action::GetPullRequest(_)
            | Action::PostPullRequestComment(_)
            | Action::ReplyToReviewThread(_)
            | Action::ResolveReviewThread(_)
            | Action::EditPullRequest(_)
            | Action::MergePullRequest(_)
            | Action::PreviewPullRequest(_)
            | Action::OpenPullRequest(_)
            | Action::PreviewPullRequestReview(_)
            | Action::PostPullRequestReview(_)
            | Action::PreviewStack(_)
            | Action::OpenStack(_)
            | Action::PlanRestack(_)
            | Action::Restack(_)
    )
}

/// The frames among `outputs`.
pub fn frames(outputs: &[Output]) -> impl Iterator<Item = &Event> {
    outputs.iter().filter_map(|o| match o {
        Output::Frame(frame) => Some(frame.event()),
        _ => None,
    })
}

/// Asserts that `line` is one LF-terminated JSON object with a string `kind`.
pub fn check_line(line: &[u8]) {
    let body = line.strip_suffix(b"\n").expect("a frame ends with LF");
    assert!(!body.contains(&b'\n'), "a frame is one line");
    let value: serde_json::Value = serde_json::from_slice(body).expect("a frame is JSON");
    assert!(
        value["kind"].is_string(),
        "a frame has a string kind: {value}"
    );
}

fn assert_one_rejection(frames: &[&Event], kind: Option<&str>, line: &[u8]) {
    match frames {
        [Event::ActionRejected(rejected)] => assert_eq!(rejected.kind.as_deref(), kind),
        other => panic!(
            "{:?} must get exactly one action_rejected, got {other:?}",
            String::from_utf8_lossy(&line[..line.len().min(200)])
        ),
    }
}

/// What the frames so far promise, checked as each one arrives: one `turn_ended` per
/// `turn_started`, every prompt settled exactly once and before its turn ends, every tool call
/// finished, one `compaction_ended` per `compaction_started` (inside its turn, or outside any
/// turn for `compact`), no answer shown while compacting, and no tool work or model request
/// outside a turn or compaction (so none after an interrupt).
#[derive(Debug, Default)]
struct Ledger {
    open_turn: Option<String>,
    /// Review and GitHub requests not answered yet, by request id (a count, as ids repeat).
    awaiting: BTreeMap<String, u32>,
    /// Every request id ever counted in `awaiting`.
    counted: BTreeSet<String>,
    /// `(request_id, turn_id)` of the compaction under way.
    open_compaction: Option<(Option<String>, Option<String>)>,
    turns_seen: BTreeSet<String>,
    open_prompts: BTreeSet<String>,
    settled_prompts: BTreeSet<String>,
    open_calls: BTreeSet<String>,
    /// Files opened for tools and not yet read, replaced or closed: what for, and whether io
    /// has answered that it holds them.
    open_files: BTreeMap<crate::effects::EffectId, (crate::effects::OpenFor, bool)>,
    starting: bool,
}

impl Ledger {
    fn observe(&mut self, event: &Event) {
        let in_turn = self.open_turn.is_some();
        match event {
            Event::TurnStarted(t) => {
                assert!(
                    self.open_compaction.is_none(),
                    "turn {} started during a compaction",
                    t.turn_id
                );
                assert!(
                    !in_turn,
                    "turn {} started inside {:?}",
                    t.turn_id, self.open_turn
                );
                assert!(self.turns_seen.insert(t.turn_id.clone()), "turn id reused");
                self.open_turn = Some(t.turn_id.clone());
            }
            Event::TurnEnded(t) => {
                // An open still on its way is closed when its answer comes (checked there).
                assert!(
                    self.open_files.values().all(|(_, answered)| !answered),
                    "turn {} ended with files held open: {:?}",
                    t.turn_id,
                    self.open_files
                );
                assert!(
                    self.open_compaction.is_none(),
                    "turn {} ended with its compaction open",
                    t.turn_id
                );
                assert_eq!(
                    self.open_turn.take().as_ref(),
                    Some(&t.turn_id),
                    "turn_ended without its turn_started"
                );
                assert!(
                    self.open_prompts.is_empty(),
                    "turn ended with prompts open: {:?}",
                    self.open_prompts
                );
                assert!(
                    self.open_calls.is_empty(),
                    "turn ended with tool calls open: {:?}",
                    self.open_calls
                );
            }
            Event::CompactionStarted(c) => {
                assert!(
                    self.open_compaction.is_none(),
                    "a compaction inside another"
                );
                assert_eq!(
                    c.turn_id, self.open_turn,
                    "a compaction belongs to its turn"
                );
                assert_eq!(c.request_id.is_some(), c.turn_id.is_none());
                self.open_compaction = Some((c.request_id.clone(), c.turn_id.clone()));
            }
            Event::CompactionEnded(c) => {
                assert_eq!(
                    self.open_compaction.take(),
                    Some((c.request_id.clone(), c.turn_id.clone())),
                    "compaction_ended without its compaction_started"
                );
                assert!(c.error.is_some() || c.tokens_after > 0);
            }
            Event::GuidedReviewLoaded(GuidedReviewLoaded { request_id, .. })
            | Event::GuidedReviewFailed(RequestFailed { request_id, .. })
            | Event::ReviewSessionSaveFailed(RequestFailed { request_id, .. })
            | Event::ReviewChaptersCommitFailed(RequestFailed { request_id, .. })
            | Event::ReviewChaptersCommitted(ReviewChaptersCommitted { request_id, .. })
            | Event::ReviewSessionSaved(ReviewSessionSaved {
                request_id: Some(request_id),
                ..
            })
            | Event::GithubReadFailed(RequestFailed { request_id, .. })
            | Event::PullRequestCommentPostFailed(RequestFailed { request_id, .. })
            | Event::ReviewThreadReplyFailed(RequestFailed { request_id, .. })
            | Event::ReviewThreadResolveFailed(RequestFailed { request_id, .. })
            | Event::PullRequestEditFailed(RequestFailed { request_id, .. })
            | Event::PullRequestMergeFailed(RequestFailed { request_id, .. })
            | Event::PullRequestsListed(PullRequestsListed { request_id, .. })
            | Event::PullRequestCommentPosted(GithubDone { request_id, .. })
            | Event::ReviewThreadReplied(GithubDone { request_id, .. })
            | Event::PullRequestEdited(GithubDone { request_id, .. })
            | Event::PullRequestMerged(GithubDone { request_id, .. })
            | Event::ReviewThreadResolved(ReviewThreadResolved { request_id, .. }) => {
                self.answered(request_id);
            }
            Event::PullRequestFetched(fetched) => self.answered(&fetched.request_id),
            Event::PullRequestPreview(preview) => self.answered(&preview.request_id),
            Event::PullRequestReviewPreview(preview) => self.answered(&preview.request_id),
            Event::PullRequestReviewPosted(GithubDone { request_id, .. })
            | Event::PullRequestReviewPostFailed(RequestFailed { request_id, .. }) => {
                self.answered(request_id);
            }
            Event::PullRequestOpened(PullRequestOpened { request_id, .. })
            | Event::PullRequestOpenFailed(RequestFailed { request_id, .. }) => {
                self.answered(request_id);
            }
            Event::StackPreview(preview) => self.answered(&preview.request_id),
            Event::StackOpened(opened) => self.answered(&opened.request_id),
            Event::StackOpenFailed(failed) => self.answered(&failed.request_id),
            Event::RestackPlanned(planned) => self.answered(&planned.request_id),
            Event::Restacked(Restacked {
                request_id: Some(request_id),
                ..
            })
            | Event::RestackFailed(RestackFailed {
                request_id: Some(request_id),
                ..
            }) => self.answered(request_id),
            Event::ActionRejected(r) => {
                if let Some(id) = &r.request_id
                    && self.awaiting.contains_key(id)
                {
                    self.answered(id);
                }
            }
            Event::PermissionRequested(p) => self.open_prompt(&p.id),
            Event::QuestionAsked(q) => self.open_prompt(&q.id),
            Event::PermissionResolved(p) => self.settle_prompt(&p.id),
            Event::QuestionResolved(q) => self.settle_prompt(&q.id),
            Event::ToolStarted(t) => {
                assert!(in_turn, "tool_started outside a turn");
                assert!(self.open_calls.insert(t.call_id.clone()), "call id reused");
            }
            Event::ToolFinished(t) => {
                assert!(
                    self.open_calls.remove(&t.call_id),
                    "tool_finished for {} which is not running",
                    t.call_id
                );
            }
            Event::TokenDelta(_) | Event::ThinkingDelta(_) => {
                assert!(in_turn, "{} outside a turn", event.kind());
                assert!(self.open_compaction.is_none(), "a summary was shown");
            }
            Event::ModelRetrying(_) => {
                assert!(
                    in_turn || self.open_compaction.is_some(),
                    "a retry of nothing"
                );
            }
            Event::ToolOutputDelta(_)
            | Event::TurnUsage(_)
            | Event::TurnSteered(_)
            | Event::PlanUpdated(_)
            | Event::FilesChanged(_) => {
                assert!(in_turn, "{} outside a turn", event.kind());
            }
            _ => {}
        }
    }

    fn observe_effect(&mut self, effect: &Output) {
        use crate::effects::OpenFor;
        match effect {
            Output::OpenFile { id, purpose, .. } => {
                assert!(
                    self.open_files.insert(*id, (*purpose, false)).is_none(),
                    "{id:?} opened twice"
                );
            }
            Output::ReadOpened { handle, .. } => match self.open_files.get(handle) {
                Some((OpenFor::Read, true)) => {
                    self.open_files.remove(handle);
                }
                Some((OpenFor::Write, true)) => {}
                _ => panic!("{effect:?} of a file not open"),
            },
            Output::ReplaceOpened { handle, .. } => {
                let purpose = self.open_files.remove(handle);
                assert_eq!(purpose, Some((OpenFor::Write, true)), "{effect:?}");
            }
            Output::CloseOpened { handle } => {
                assert!(
                    self.open_files.remove(handle).is_some(),
                    "{effect:?} of a file not open"
                );
            }
            _ => {}
        }
        let is_tool_work = matches!(
            effect,
            Output::HttpRequest { .. }
                | Output::OpenFile { .. }
                | Output::ReadOpened { .. }
                | Output::ReplaceOpened { .. }
                | Output::WriteFile { .. }
                | Output::Search { .. }
                | Output::ListFiles { .. }
                | Output::Spawn { .. }
                | Output::ReadFile { .. }
        );
        // The start-up probes (git status, AGENTS.md, .env files) run before any turn; a review
        // request works (reads, git) until it is answered, and review progress is saved any time.
        // GitHub's probe (git status, then gh) also runs on refresh and on a poll: only the
        // agent's `bash` is a tool.
        let review_save =
            matches!(effect, Output::WriteFile { path, .. } if path.contains("/reviews/"));
        let not_a_tool = matches!(effect, Output::Spawn { program, .. } if program != "bash");
        if is_tool_work && !self.starting && !review_save && !not_a_tool && self.awaiting.is_empty()
        {
            assert!(
                self.open_turn.is_some() || self.open_compaction.is_some(),
                "{effect:?} outside a turn"
            );
        }
    }

    fn answered(&mut self, request_id: &str) {
        // Requests fed as raw chunks (not through `Checked::line`) were never counted.
        if !self.counted.contains(request_id) {
            return;
        }
        let count = self
            .awaiting
            .get_mut(request_id)
            .unwrap_or_else(|| panic!("{request_id} answered more often than asked"));
        *count -= 1;
        if *count == 0 {
            self.awaiting.remove(request_id);
        }
    }

    fn open_prompt(&mut self, id: &str) {
        assert!(self.open_turn.is_some(), "prompt {id} outside a turn");
        assert!(
            !self.settled_prompts.contains(id) && self.open_prompts.insert(id.to_owned()),
            "prompt id {id} reused"
        );
    }

    fn settle_prompt(&mut self, id: &str) {
        assert!(
            self.open_prompts.remove(id),
            "prompt {id} settled twice or never asked"
        );
        self.settled_prompts.insert(id.to_owned());
    }
}

/// Fuzz body for the stack flows: every flow fed arbitrary command outputs (chunks of `data`
/// split at 0xFF; a chunk's first byte picks success or failure) never panics, and ends once
/// the outputs run out or it answers.
pub fn stack_flows(data: &[u8]) {
    use crate::protocol::stack::{OldHead, RestackMove, StackDraft};
    use crate::stack::open::OpenFlow;
    use crate::stack::plan_flow::{PlanFlow, Planned};
    use crate::stack::preview::PreviewFlow;
    use crate::stack::restack::RestackFlow;
    use crate::steps::{Flow, Next, Ran};

    fn drive<F: Flow>(flow: &mut F, answers: &mut impl Iterator<Item = Ran>) -> Option<F::Output> {
        let mut next = flow.start();
        loop {
            match next {
                Next::Done(done) => return Some(done),
                Next::Run(_) => next = flow.on(answers.next()?),
            }
        }
    }
    let mut answers = data.split(|b| *b == 0xff).map(|chunk| {
        let text = String::from_utf8_lossy(chunk.get(1..).unwrap_or_default()).into_owned();
        if chunk.first().is_some_and(|b| b % 4 == 0) {
            Ran::failed(text)
        } else {
            Ran::ok(text)
        }
    });
    let drafts = match drive(
        &mut PreviewFlow::new(None, None, "main".into(), None),
        &mut answers,
    ) {
        Some(Ok(drafts)) if !drafts.is_empty() => drafts,
        _ => vec![StackDraft {
            branch: "a".into(),
            base: "main".into(),
            title: "t".into(),
            description: "d".into(),
        }],
    };
    let heads = vec!["h".to_owned(); drafts.len()];
    drive(&mut OpenFlow::new(drafts, heads), &mut answers);
    let planned = match drive(&mut PlanFlow::new("main".into()), &mut answers) {
        Some(Ok(planned)) => planned,
        _ => Planned {
            moves: vec![RestackMove {
                branch: "a".into(),
                pull_request: 1,
                old_head: OldHead {
                    local: "l".into(),
                    remote: None,
                },
                old_parent: "p".into(),
                new_parent: "origin/main".into(),
                new_parent_sha: Some("m".into()),
                new_base: "main".into(),
                commits: 1,
            }],
            old_base: BTreeMap::new(),
            checked_out: BTreeMap::new(),
            scratch_dir: data.first().map(|_| "/g".to_owned()),
        },
    };
    drive(&mut RestackFlow::new("f".into(), planned), &mut answers);
}

/// Fuzz body for the shell analysis: any text is analyzed without a panic, and a command
/// built from the same bytes around a denied call (`rm v` under `deny: ["bash(rm *)"]`) is
/// denied in every mode that runs bash.
pub fn shell(data: &[u8]) {
    use crate::permissions::rules::Rule;
    use crate::permissions::{Decision, Permissions, RuleSet, Target};
    use crate::protocol::values::PermissionMode;

    let _ = crate::permissions::shell::analyze(&String::from_utf8_lossy(data));
    let command = crate::permissions::compose::around_denied(data, 8);
    let rules = RuleSet {
        deny: vec![Rule::parse("bash(rm *)").expect("a valid rule")],
        allow: vec![Rule::parse("bash(*)").expect("a valid rule")],
        ..RuleSet::default()
    };
    for mode in [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Bypass,
    ] {
        let decision =
            Permissions::new(mode, rules.clone()).decide("bash", &Target::Command(command.clone()));
        assert!(
            matches!(decision, Decision::Deny { .. }),
            "{mode:?} {command:?}: {decision:?}"
        );
    }
}
