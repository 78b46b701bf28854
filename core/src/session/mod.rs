//! One Luxe session as a state machine: its settings, conversation and features, and the
//! answer to every decoded action.
//!
//! The rooms, by what they own. Those marked *machine* keep their state in private fields and
//! answer with values (frames, outcomes, what they need of the others) that the session acts
//! on, each with unit tests or a property of its own. What a machine leaves to the other rooms
//! is one shape under one name: its module's `Then` (`#[must_use]`, `Then::Nothing` when
//! nothing is left), which the session's routing follows in a `follow_*` method
//! (`follow_turn`, `follow_tools`, `follow_review`, `follow_commit`, `follow_github`). A
//! machine borrows `outbox.rs`'s `outbox::Outbox` (the output queue and the effect namespace,
//! whose owners' table is `owners.rs`) for one call:
//! - `mod.rs`: the [`Session`] itself — the action gate (`handle_incoming`), start-up (what it
//!   starts from is decided by `start_up.rs`, pure), and routing: an effect's result goes to
//!   the feature its id was issued for (`owners.rs`). `facts.rs` holds what it starts with and
//!   never changes (working directory, providers, timings, what children do not inherit).
//! - the conversation and its turns: `turn/` (*machine*: `turn::Turns` owns the model's
//!   view, the running turn, the queue, the turn count and the session's cost, answering with
//!   a `Then` — say `state_changed` and resume, run the tools, the turn ended, the session is
//!   free; it borrows a `TurnDesk`, `desk.rs`; `running.rs`, one turn's own state; `requests.rs`, its model requests;
//!   `compaction/`, summaries and drops when the window fills, with `budget.rs`, the sizes
//!   requests keep to; `tally.rs`, usage and cost),
//!   `conversation.rs` (*machine*: the model's view, the provider's count and characters per
//!   token), `model_step.rs` (*machine*: one model request — HTTP inputs in, frames and how it
//!   ended out), `unanswered.rs` (calls a failure left without results), `system_prompt.rs`,
//!   `server_probe.rs` (*machine*: what a local server says of its model), `state_changed.rs`
//!   (what `state_changed` says; only the session says it).
//! - tool calls: `tool_run/` (*machine*: an answer's calls from start to result, asking the
//!   session through its `Then` for the review's tools and MCP; `work.rs` — *machine*: the io job
//!   of an allowed call; `asking.rs`, its prompt or question; `ending.rs`, results and
//!   interrupts), `tool_gate.rs` (*machine*: rules,
//!   mode, `.env` identities and Luxe's own places, as verdicts), `tools/` (definitions,
//!   arguments, `bash_run.rs` — *machine*: a command's output — and `views.rs`, what
//!   tools show), `mcp_tools.rs` (the MCP machine, made from the settings),
//!   and what `luxe --acp`'s host needs beyond actions (id, gate, permission mode) in `mod.rs`.
//! - `store.rs` (*machine*: the append-only session file and `list_sessions`).
//! - `project_context.rs` (*machine*: the start-up probes, `git status` and `AGENTS.md`, for
//!   the system prompt).
//! - guided review: `guided_review/` (the open review, its save queue, agent turns on it and
//!   their prompts, posting it to a pull request, committing its chapters, and the session's
//!   routing to them; its `mod.rs` lists them).
//! - GitHub and stacks: `github.rs` (*machine*; `github/waiting.rs`, actions parked until the
//!   probe; `github/pull_request_reviews.rs`, a pull request as a guided review), `stack.rs`
//!   (*machine*), each running pure chains of git/gh commands from `crate::github` and
//!   `crate::stack` (`crate::steps` flows) on `step_runner.rs`; `own_commands.rs` collects the
//!   output of the child processes luxe runs for itself.
//!
//! Everything a session owns — its ids, effect namespace, random numbers, store — is inside
//! the value, so one process can drive several.
//!
//! `Session` is written in `mod.rs` (composition, the gate, routing by owner) and in
//! `routes/`, its routing by feature — `routes/turn.rs` (turns, tool calls, MCP tools, the
//! session file), `routes/guided_review.rs` (guided review, review turns, chapter commits),
//! `routes/github.rs` (GitHub, pull request reviews), `routes/stack.rs` (stacks),
//! `routes/state.rs` (`state_changed`). Those methods only lend a
//! machine the parts it borrows (the outbox, the facts, another machine's answer as a value)
//! and act on what it returns; what to do is decided in the machines, where unit tests reach
//! it without a session.

/// How luxe runs its own commands ([`step_runner::Shell`]), lent from the session's settings:
/// a macro so the borrow is of those fields alone and the machine and the outbox stay free.
macro_rules! shell {
    ($session:expr) => {
        &$crate::session::step_runner::Shell {
            cwd: &$session.facts.cwd,
            timings: &$session.facts.timings,
            unset: &$session.facts.own_env_unset,
        }
    };
}

mod conversation;
mod facts;
mod github;
mod guided_review;
mod mcp_tools;
mod model_step;
mod outbox;
mod own_commands;
mod owners;
mod path_completion;
mod project_context;
mod routes;
mod server_probe;
mod stack;
mod start_up;
mod state_changed;
mod step_runner;
mod store;
pub mod system_prompt;
#[cfg(test)]
mod test_clock;
mod tool_gate;
mod tool_run;
pub mod tools;
mod turn;
mod unanswered;

use std::time::Instant;

use crate::config::{Config, StartError};
use crate::effects::{Input, Output};
use crate::model::catalogue::{self, ModelRef};
use crate::permissions::Permissions;
use crate::protocol::PROTOCOL_VERSION;
use crate::protocol::actions::Action;
use crate::protocol::codec::{Incoming, Rejection};
use crate::protocol::events::{ErrorEvent, Event, Ready};
use crate::protocol::kinds::is_github_write;
use crate::protocol::values::{Mode, PermissionMode, Thinking, TurnSource};
use crate::redact::Redactor;
use crate::rng::Rng;

use owners::Owner;
use project_context::ProjectContext;
use turn::Queued;

/// A refusal of `kind` under the request's own id.
fn refuse_id(kind: &str, reason: String, request_id: String) -> Rejection {
    Rejection {
        kind: Some(kind.to_owned()),
        reason,
        request_id: Some(request_id),
    }
}

/// Session state and the queue of outputs it produced.
#[derive(Debug)]
pub struct Session {
    session_id: String,
    store: store::Store,
    warnings: Vec<String>,
    /// What the session started with and keeps.
    facts: facts::Facts,
    model: Option<ModelRef>,
    mode: Mode,
    thinking: Thinking,
    /// The permission rules and mode, and the places every tool call is checked against.
    gate: tool_gate::ToolGate,
    redactor: Redactor,
    auto_approve: bool,
    context: ProjectContext,
    /// Questions to the local server about its model, and what servers said of their models.
    probes: server_probe::ServerProbes,
    /// The conversation and its turns.
    turns: turn::Turns,
    review: guided_review::open::ReviewState,
    commit: guided_review::commit_chapters::Commits,
    github: github::Github,
    stacks: stack::Stacks,
    /// `complete_path` requests waiting for their listing.
    completion: path_completion::PathCompletion,
    closed: bool,
    /// The outputs not yet polled, and every effect id issued with who takes its results.
    outbox: outbox::Outbox,
    /// The MCP servers and the calls in flight to them.
    mcp: crate::mcp::Mcp,
}

impl Session {
    /// Starts a session from `config`: queues `ready`, `state_changed` and the start-up probes.
    pub fn start(config: &Config, now: Instant) -> Result<Self, StartError> {
        let start_up::Decided {
            settings: loaded,
            model,
            restored,
            permission_mode,
        } = start_up::decide(config)?;
        let read_only = permission_mode == PermissionMode::ReadOnly;
        let session_id = restored
            .as_ref()
            .map_or_else(|| config.session_id.clone(), |r| r.id.clone());
        let store = match &config.resume {
            Some(file) => store::Store::resumed(config.sessions_dir.as_deref(), file),
            None => store::Store::new(
                config.sessions_dir.as_deref(),
                &session_id,
                &config.cwd,
                &config.today,
            ),
        };
        let mut session = Self {
            session_id,
            store,
            warnings: start_up::warnings(restored.as_ref()),
            facts: facts::Facts {
                cwd: config.cwd.clone(),
                providers: config.providers.clone(),
                timings: config.timings,
                platform: config.platform.clone(),
                today: config.today.clone(),
                tool_env_unset: crate::process_env::withheld(
                    &config.env_names,
                    &loaded.tool_env_pass,
                ),
                own_env_unset: crate::process_env::provider_keys(&config.env_names),
                questions: config.questions,
                trust_project: config.trust_project,
                github_writes: config.github_writes && !read_only,
                clock_origin: (now, config.unix_ms),
            },
            model,
            mode: Mode::default(),
            thinking: Thinking::default(),
            gate: tool_gate::ToolGate::new(
                &config.cwd,
                Permissions::new(permission_mode, loaded.rules),
                config.env_files.iter().filter_map(|f| f.identity).collect(),
                config
                    .luxe_home
                    .iter()
                    .chain(&config.guarded_resolved)
                    .cloned(),
            ),
            redactor: start_up::redactor(config),
            auto_approve: config.auto_approve,
            context: ProjectContext::default(),
            probes: server_probe::ServerProbes::default(),
            turns: turn::Turns::new(
                config.issue.clone(),
                config.timings,
                Rng::new(config.rng_seed),
            ),
            review: guided_review::open::ReviewState::new(config.reviews_dir.clone()),
            commit: guided_review::commit_chapters::commits(),
            github: github::Github::default(),
            stacks: stack::Stacks::default(),
            completion: path_completion::PathCompletion::default(),
            closed: false,
            outbox: outbox::Outbox::default(),
            mcp: mcp_tools::machine(config, loaded.mcp_servers.clone()),
        };
        if let Some((model, mode, thinking)) = restored.as_ref().and_then(|r| r.settings.clone()) {
            // The flag wins over what the session used; otherwise it comes back as it was.
            if config.model.is_none()
                && let Some(model) = model.and_then(|m| ModelRef::parse(&m).ok())
            {
                session.model = Some(model);
            }
            session.mode = mode;
            session.thinking = thinking;
        }
        session.emit(Event::Ready(Ready {
            protocol_version: PROTOCOL_VERSION,
            luxe_version: config.luxe_version.clone(),
            session_id: session.session_id.clone(),
            cwd: config.cwd.clone(),
            github_writes: session.facts.github_writes,
            read_only,
            resumed: restored.is_some(),
            started: start_up::started(config, &session.redactor),
        }));
        session.emit_state();
        let settings =
            store::settings_record(session.model.as_ref(), session.mode, session.thinking);
        session.store.start(&mut session.outbox, &settings);
        if let Some(restored) = restored {
            session.restore(restored);
        }
        (session.context).start(
            &mut session.outbox,
            &session.facts.cwd,
            &session.facts.own_env_unset,
        );
        session.probe_server(now);
        session.probe_workspace(now, true);
        session.start_mcp(now);
        Ok(session)
    }

    /// Warnings for stderr from start-up (lines of a session file that were skipped).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Whether the session has ended (`close`, EOF or a signal); later input is dropped.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The next output, oldest first, through the redaction gate.
    pub fn poll_output(&mut self) -> Option<Output> {
        let output = self.outbox.pop()?;
        Some(self.redactor.gate(output))
    }

    /// The earliest deadline: a running turn's, a gh command's, the next workspace poll.
    pub fn poll_timeout(&self) -> Option<Instant> {
        [
            self.turns.deadline(),
            self.github.deadline(),
            self.stacks.deadline(),
            self.probes.deadline(),
            self.mcp_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Runs what is due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        if !self.closed {
            self.turn_timeout(now);
            let then = (self.github).handle_timeout(&mut self.outbox, shell!(self), now);
            self.follow_github(now, then);
            self.stacks.handle_timeout(&mut self.outbox, now);
            self.probes.handle_timeout(&mut self.outbox, now);
            self.context_ready(now);
            self.mcp_timeout(now);
        }
    }

    /// Routes the result of an effect to the feature that issued it; results nobody waits
    /// for (a cancelled request's late bytes, a result after the session's last) are dropped.
    pub fn handle_effect(&mut self, now: Instant, input: Input<'_>) {
        if self.closed {
            return;
        }
        let Some(owner) = self.outbox.owners().route(&input) else {
            return;
        };
        match owner {
            Owner::Store => self.store_result(&input),
            Owner::Listing => self.sessions_read(&input),
            Owner::Completion => {
                if let Some((answer, failure)) = self.completion.listed(&input) {
                    // Answered with no paths; why goes to the log, not to every keystroke's screen.
                    if let Some(failure) = failure {
                        self.outbox.push(Output::Log(failure));
                    }
                    self.emit(Event::PathsCompleted(answer));
                }
            }
            Owner::Review => match input {
                // Taken by value: the core keeps the diff until the review is built.
                Input::DiffRead { id, result } => self.diff_read(now, id, result),
                other => self.review_effect(now, &other),
            },
            Owner::Commit => self.commit_effect(now, &input),
            Owner::Github => {
                let then = (self.github).handle(&mut self.outbox, shell!(self), now, &input);
                self.follow_github(now, then);
            }
            Owner::Stacks => self.stack_effect(now, &input),
            Owner::ServerProbe => {
                if let Some(said) = self.probes.handle(&input) {
                    self.server_said(said);
                }
                // A first request that waited for the server's word on the window goes now
                // if that was the last word (or the probe failed: nothing changes then).
                self.context_ready(now);
            }
            Owner::ProjectContext => {
                if self.context.handle(&input) && self.context.is_ready() {
                    self.context_ready(now);
                }
            }
            Owner::Model => self.model_input(now, input),
            Owner::Tool => self.tool_effect(now, input),
            Owner::Mcp => self.mcp_effect(now, &input),
        }
    }

    /// Answers one decoded line.
    pub fn handle_incoming(&mut self, now: Instant, incoming: Incoming) {
        if self.closed {
            return;
        }
        let Incoming { request_id, action } = incoming;
        let refuse = |kind: &str, reason: &str| Rejection {
            kind: Some(kind.to_owned()),
            reason: reason.to_owned(),
            request_id: request_id.clone(),
        };
        if let Some(reason) = self.gate(action.kind()) {
            return self.reject(refuse(action.kind(), reason));
        }
        let review = match &action {
            Action::PreviewPullRequestReview(p) => self.check_open(&p.review_id).ok(),
            _ => None,
        };
        if self.github.must_wait(&action, review.map(|r| &r.target)) {
            let request_id = request_id.clone();
            if self.github.wait(Incoming { request_id, action }) {
                self.probe_workspace(now, false);
            }
            return;
        }
        match action {
            Action::SubmitUserMessage(message) => {
                let queued = Queued {
                    text: message.text,
                    images: message.images,
                    review: None,
                };
                self.submit(now, queued, TurnSource::User);
            }
            Action::SteerTurn(steer) => {
                if let Err(reason) = self.steer(steer.text) {
                    self.reject(refuse("steer_turn", reason));
                }
            }
            Action::WithdrawQueuedMessage => match self.turns.withdraw_queued() {
                Some(withdrawn) => self.emit(Event::UserMessageWithdrawn(withdrawn)),
                None => self.reject(refuse("withdraw_queued_message", "no message is queued")),
            },
            Action::InterruptTurn => {
                if self.turns.is_running() {
                    self.interrupt(now);
                } else {
                    self.reject(refuse("interrupt_turn", "no turn is running"));
                }
            }
            Action::RespondPermission(reply) => {
                if let Err(reason) = self.respond_permission(now, reply) {
                    self.reject(refuse("respond_permission", &reason));
                }
            }
            Action::AnswerQuestion(answer) => {
                if let Err(reason) = self.answer_question(now, answer) {
                    self.reject(refuse("answer_question", &reason));
                }
            }
            Action::SetModel(set) => match ModelRef::parse(&set.model) {
                Ok(model) => {
                    self.model = Some(model);
                    self.record_settings();
                    self.emit_state();
                    self.probe_server(now);
                }
                Err(reason) => self.reject(refuse("set_model", &reason)),
            },
            Action::SetMode(set) => {
                self.mode = set.mode;
                self.record_settings();
                self.emit_state();
            }
            Action::SetThinking(set) => {
                self.thinking = set.thinking;
                self.record_settings();
                self.emit_state();
            }
            Action::SetPermissionAutoApprove(set) => {
                self.auto_approve = set.enabled;
                self.emit_state();
                if set.enabled {
                    self.auto_approve_open_prompt(now);
                }
            }
            Action::ListModels(list) => {
                let access = self.facts.providers.access();
                let listed = catalogue::listing(list.request_id, access, self.model.as_ref());
                self.emit(Event::ModelsListed(listed));
            }
            Action::ListSessions(list) => self.list_sessions(list.request_id),
            Action::CompletePath(complete) => {
                let cwd = &self.facts.cwd;
                (self.completion).ask(&mut self.outbox, cwd, complete.request_id, complete.prefix);
            }
            Action::Compact(compact) => {
                if let Err(reason) = self.compact(now, compact) {
                    self.reject(refuse("compact", &reason));
                }
            }
            Action::LoadGuidedReview(load) => self.load_review(now, load),
            Action::EditReview(edit) => self.edit_review(now, edit),
            Action::RequestAgentReview(request) => {
                if let Err(rejection) = self.request_agent_review(now, request) {
                    self.reject(rejection);
                }
            }
            Action::CommitReviewChapters(commit) => {
                if let Err(reason) = self.commit_chapters(now, commit) {
                    self.reject(refuse("commit_review_chapters", &reason));
                }
            }
            Action::RefreshWorkspace => self.probe_workspace(now, true),
            Action::PreviewPullRequestReview(preview) => {
                let request_id = preview.request_id.clone();
                if let Err(reason) = self.preview_pull_request_review(now, preview) {
                    self.reject(refuse_id("preview_pull_request_review", reason, request_id));
                }
            }
            Action::PostPullRequestReview(post) => {
                let request_id = post.request_id.clone();
                if let Err(reason) = self.post_pull_request_review(now, post) {
                    self.reject(refuse_id("post_pull_request_review", reason, request_id));
                }
            }
            action @ (Action::PreviewPullRequest(_)
            | Action::OpenPullRequest(_)
            | Action::ListPullRequests(_)
            | Action::GetPullRequest(_)
            | Action::PostPullRequestComment(_)
            | Action::ReplyToReviewThread(_)
            | Action::ResolveReviewThread(_)
            | Action::EditPullRequest(_)
            | Action::MergePullRequest(_)) => {
                match (self.github).act(&mut self.outbox, shell!(self), now, action) {
                    Ok(then) => self.follow_github(now, then),
                    Err(rejection) => self.reject(rejection),
                }
            }
            Action::PreviewStack(preview) => self.preview_stack(now, preview),
            Action::OpenStack(open) => {
                let request_id = open.request_id.clone();
                if let Err(reason) = self.open_stack(now, open) {
                    self.reject(refuse_id("open_stack", reason, request_id));
                }
            }
            Action::PlanRestack(plan) => self.plan_restack(now, plan),
            Action::Restack(restack) => {
                let request_id = restack.request_id.clone();
                if let Err(reason) = self.restack(now, restack) {
                    let mut rejection = refuse("restack", &reason);
                    rejection.request_id = request_id;
                    self.reject(rejection);
                }
            }
            Action::ListMcpServers(list) => self.list_mcp_servers(list.request_id),
            Action::Close => self.close(0),
        }
    }

    /// Asks the server about the current model, unless the catalogue knows it or it was asked.
    fn probe_server(&mut self, now: Instant) {
        if let Some(model) = &self.model {
            let deadline = now + self.facts.timings.server_probe_timeout;
            (self.probes).ask(&mut self.outbox, model, &self.facts.providers, deadline);
        }
    }

    /// Milliseconds since the Unix epoch at `now`.
    fn wall_ms(&self, now: Instant) -> u64 {
        let (origin, unix_ms) = self.facts.clock_origin;
        let since = now.saturating_duration_since(origin).as_millis();
        unix_ms.saturating_add(u64::try_from(since).unwrap_or(u64::MAX))
    }

    /// Answers a line that could not be decoded.
    pub fn reject(&mut self, rejection: Rejection) {
        if !self.closed {
            self.emit(rejection.into_event());
        }
    }

    /// Reports a problem that belongs to no request and no turn.
    pub fn report_error(&mut self, message: String) {
        if !self.closed {
            self.emit(Event::Error(ErrorEvent { message }));
        }
    }

    /// The session's id, as `ready` and the session file carry it.
    pub fn id(&self) -> &str {
        &self.session_id
    }

    /// The redaction gate every frame of this session passes: its `.env` values and the
    /// providers' keys.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Switches the permission mode (ACP's `session/set_mode`) and sends `state_changed`. A
    /// read-only session cannot be switched out of read-only, nor a session into it: start-up
    /// decided that.
    pub fn set_permission_mode(&mut self, mode: PermissionMode) -> Result<(), String> {
        self.gate.switch_mode(mode)?;
        self.emit_state();
        Ok(())
    }

    /// Ends the session with `code`; only the first call counts. Running work is abandoned
    /// (io ends every child process and request on exit); the session file is made durable
    /// first, whatever ended the session (EOF, a signal, a client that stopped reading).
    pub fn close(&mut self, code: i32) {
        if !std::mem::replace(&mut self.closed, true) {
            self.stop_mcp();
            self.store.sync(&mut self.outbox);
            self.outbox.push(Output::Exit { code });
        }
    }

    /// The refusal that applies to `kind` whatever this build supports, if any.
    fn gate(&self, kind: &str) -> Option<&'static str> {
        let read_only = self.gate.mode() == PermissionMode::ReadOnly;
        if read_only && (is_github_write(kind) || kind == "commit_review_chapters") {
            Some("read-only session")
        } else if is_github_write(kind) && !self.facts.github_writes {
            Some("GitHub writes are off: start luxe with --github-writes")
        } else {
            None
        }
    }

    fn emit(&mut self, event: Event) {
        self.outbox.emit(event);
    }
}
