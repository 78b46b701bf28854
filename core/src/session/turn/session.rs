//! The turns machine in the session: the desk it lends (`turn_desk!`), and what the session
//! does for a [`Then`] — run the answer's tool calls, let the review hear that a turn ended,
//! start the next queued message.

use std::time::Instant;

use crate::effects::Input;
use crate::protocol::actions::Compact;
use crate::protocol::events::Event;
use crate::protocol::values::TurnSource;

use super::{Queued, Then};
use crate::session::Session;

/// What a turn borrows of `$session` ([`super::TurnDesk`]): a macro so that the borrow is of
/// those fields alone, and the turns machine (and the tool calls it holds) stays free.
macro_rules! turn_desk {
    ($session:expr) => {
        $crate::session::turn::TurnDesk {
            port: &mut $session.port,
            store: &mut $session.store,
            rng: &mut $session.rng,
            probes: &mut $session.probes,
            model: $session.model.as_ref(),
            mode: $session.mode,
            thinking: $session.thinking,
            providers: &$session.facts.providers,
            timings: &$session.facts.timings,
            cwd: &$session.facts.cwd,
            platform: &$session.facts.platform,
            today: &$session.facts.today,
            context: &$session.context,
            redactor: &$session.redactor,
            questions: $session.facts.questions,
            mcp: &$session.mcp,
            permission_mode: $session.gate.mode(),
            auto_approve: $session.auto_approve,
            trust_project: $session.facts.trust_project,
        }
    };
}
pub(in crate::session) use turn_desk;

impl Session {
    /// Does what the turns need of the other rooms, until nothing is left.
    pub(in crate::session) fn follow_turn(&mut self, now: Instant, mut then: Then) {
        loop {
            then = match then {
                Then::Nothing => return,
                Then::RunTools => return self.run_next_tool(now),
                Then::Ended(ended) => {
                    if let Some(task) = &ended.review {
                        self.review_turn_ended(
                            now,
                            task,
                            &ended.answer,
                            ended.reported,
                            &ended.why,
                        );
                    }
                    if ended.changed_files {
                        self.refresh_review();
                    }
                    let closed = self.closed;
                    (self.turns).after_run(&mut turn_desk!(self), now, closed)
                }
                Then::Free => {
                    let closed = self.closed;
                    (self.turns).after_run(&mut turn_desk!(self), now, closed)
                }
            };
        }
    }

    /// Starts a turn for `queued`, or queues it behind the running one.
    pub(in crate::session) fn submit(&mut self, now: Instant, queued: Queued, source: TurnSource) {
        let then = (self.turns).submit(&mut turn_desk!(self), now, queued, source);
        self.follow_turn(now, then);
    }

    /// `steer_turn`: the text joins the next request.
    pub(in crate::session) fn steer(&mut self, text: String) -> Result<(), &'static str> {
        let steered = self.turns.steer(text)?;
        self.emit(Event::TurnSteered(steered));
        Ok(())
    }

    /// `compact`: summarize now, unless a turn runs or there is nothing older to summarize.
    pub(in crate::session) fn compact(
        &mut self,
        now: Instant,
        request: Compact,
    ) -> Result<(), String> {
        let then = (self.turns).compact(&mut turn_desk!(self), now, request)?;
        self.follow_turn(now, then);
        Ok(())
    }

    /// The start-up probes finished: a turn that waited for them sends its first request.
    pub(in crate::session) fn context_ready(&mut self, now: Instant) {
        let then = (self.turns).context_ready(&mut turn_desk!(self), now);
        self.follow_turn(now, then);
    }

    /// An HTTP input of the model request under way.
    pub(in crate::session) fn model_input(&mut self, now: Instant, input: Input<'_>) {
        let then = (self.turns).handle_http(&mut turn_desk!(self), now, input);
        self.follow_turn(now, then);
    }

    /// Runs a due timer of the turn, or of its tool calls.
    pub(in crate::session) fn turn_timeout(&mut self, now: Instant) {
        let then = (self.turns).handle_timeout(&mut turn_desk!(self), now);
        self.follow_turn(now, then);
        self.tool_timeout(now);
    }

    /// `interrupt_turn`: stop whatever runs, settle open prompts, end the turn. The client
    /// hears that the turn ended before io cancels its stream or kills its command.
    pub(in crate::session) fn interrupt(&mut self, now: Instant) {
        let mut cleanup = match self.turns.take_tools() {
            Some(tools) => self.interrupt_tools(tools),
            None => Vec::new(),
        };
        let (then, model_cleanup) = (self.turns).interrupt(&mut turn_desk!(self));
        cleanup.extend(model_cleanup);
        self.follow_turn(now, then);
        self.port.extend(cleanup);
    }

    /// Sends `state_changed`.
    pub(in crate::session) fn emit_state(&mut self) {
        let streaming = self.turns.is_running();
        turn_desk!(self).emit_state(streaming);
    }
}
