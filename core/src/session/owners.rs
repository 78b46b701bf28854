//! The session's effect namespace: every effect id is handed out together with the feature
//! that will take its results, so a result goes straight to its owner instead of each feature
//! being asked in turn whether it is theirs.

use std::collections::BTreeMap;

use crate::effects::{EffectId, Input};

/// The feature that waits for an effect's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner {
    /// Appends to the session file.
    Store,
    /// `list_sessions`' read of the sessions directory.
    Listing,
    /// `complete_path`'s listing of the working directory.
    Completion,
    /// The guided review: its diff, its session file.
    Review,
    /// `commit_review_chapters`' git commands and patch files.
    Commit,
    /// The workspace probe and the GitHub requests.
    Github,
    /// The stack flows' git and gh commands and files (`preview_stack`, `open_stack`,
    /// `plan_restack`, `restack`).
    Stacks,
    /// Questions to a local model server about its model.
    ServerProbe,
    /// The start-up probes (`git status`, `AGENTS.md`).
    ProjectContext,
    /// The model's (or a compaction's) streamed response.
    Model,
    /// A tool call's work.
    Tool,
    /// The MCP servers: their processes and HTTP requests.
    Mcp,
}

/// Effect ids issued and not yet finished, with their owners.
#[derive(Debug, Default)]
pub(super) struct Owners {
    last: u64,
    waiting: BTreeMap<EffectId, Owner>,
}

impl Owners {
    /// A new id whose results go to `owner`.
    pub(super) fn issue(&mut self, owner: Owner) -> EffectId {
        self.last += 1;
        let id = EffectId(self.last);
        self.waiting.insert(id, owner);
        id
    }

    /// Who takes `input`; the last result of an effect ends its entry. `None` for a result
    /// nobody waits for (one issued by no one, or a late one after the end).
    pub(super) fn route(&mut self, input: &Input<'_>) -> Option<Owner> {
        let (id, last) = input.result_of()?;
        if last {
            self.waiting.remove(&id)
        } else {
            self.waiting.get(&id).copied()
        }
    }

    /// Forgets an effect whose results are no longer wanted (a cancelled request): io drops
    /// them, so no last result will end its entry.
    pub(super) fn forget(&mut self, id: EffectId) {
        self.waiting.remove(&id);
    }

    /// How many effects are waiting for results, for the properties' leak checks.
    #[cfg(test)]
    pub(super) fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

/// The MCP machine's effects are the MCP feature's.
impl crate::mcp::EffectIds for Owners {
    fn issue(&mut self) -> EffectId {
        Owners::issue(self, Owner::Mcp)
    }

    fn forget(&mut self, id: EffectId) {
        Owners::forget(self, id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reaches_the_owner_of_its_id_and_the_last_one_ends_it() {
        let mut owners = Owners::default();
        let http = owners.issue(Owner::Model);
        let git = owners.issue(Owner::Github);
        assert_ne!(http, git);
        let body = Input::HttpBody {
            id: http,
            bytes: b"x",
        };
        assert_eq!(owners.route(&body), Some(Owner::Model));
        assert_eq!(owners.route(&body), Some(Owner::Model));
        let exited = Input::ProcessExited {
            id: git,
            status: Ok(Some(0)),
        };
        assert_eq!(owners.route(&exited), Some(Owner::Github));
        assert_eq!(owners.route(&exited), None, "a late repeat goes nowhere");
        assert_eq!(
            owners.route(&Input::HttpEnded { id: http }),
            Some(Owner::Model)
        );
        assert_eq!(owners.waiting(), 0);
    }

    #[test]
    fn an_id_never_issued_or_forgotten_has_no_owner() {
        let mut owners = Owners::default();
        assert_eq!(owners.route(&Input::HttpEnded { id: EffectId(9) }), None);
        let id = owners.issue(Owner::Model);
        owners.forget(id);
        assert_eq!(owners.route(&Input::HttpBody { id, bytes: b"late" }), None);
        assert_eq!(owners.route(&Input::ClientEof), None);
    }

    quickcheck::quickcheck! {
        /// Against a reference model: ids are never reused, a result reaches the owner its id
        /// was issued with until that effect's last result, and nothing else reaches anyone.
        fn results_reach_their_owner_until_the_last(ops: Vec<(u8, u8, bool)>) -> bool {
            let all = [Owner::Store, Owner::Review, Owner::Github, Owner::Model, Owner::Tool];
            let mut owners = Owners::default();
            let mut model = BTreeMap::new();
            let mut issued = Vec::new();
            ops.into_iter().all(|(op, pick, last)| {
                if op % 3 == 0 || issued.is_empty() {
                    let owner = all[usize::from(pick) % all.len()];
                    let id = owners.issue(owner);
                    let fresh = !issued.contains(&id);
                    issued.push(id);
                    model.insert(id, owner);
                    return fresh;
                }
                // Sometimes an id nobody issued.
                let id = match issued.get(usize::from(pick) % (issued.len() + 1)) {
                    Some(id) => *id,
                    None => EffectId(u64::MAX),
                };
                let input = if last {
                    Input::HttpEnded { id }
                } else {
                    Input::HttpBody { id, bytes: b"" }
                };
                let expected = if last { model.remove(&id) } else { model.get(&id).copied() };
                owners.route(&input) == expected && owners.waiting() == model.len()
            })
        }
    }
}
