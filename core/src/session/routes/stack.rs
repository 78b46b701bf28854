//! The session's routing for stacks: what the stacks machine is lent (the outbox, how luxe runs
//! its own commands, the clock and the workspace GitHub last showed), and the workspace probed
//! again after a stack moved.

use std::time::Instant;

use crate::effects::Input;
use crate::protocol::stack::{OpenStack, PlanRestack, PreviewStack, Restack};
use crate::session::Session;

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
