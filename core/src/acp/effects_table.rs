//! Effect ids across sessions: each session numbers its effects from 1, so the host gives io
//! ids of its own and routes each result back to the session and id it stands for.

use std::collections::{BTreeMap, HashMap};

use crate::effects::{EffectId, Input, Output};

/// Which hosted session, by the host's slot number.
pub(crate) type Slot = u64;

/// Whose an outer effect id is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// A session's effect, under its own id.
    Session(Slot, EffectId),
    /// The host's own (preparing a directory, reading a session file, listing sessions).
    Host,
}

/// The ids the host gives io, and whose effect each stands for: every session numbers its own from
/// 1, so the host renumbers them to keep them apart.
#[derive(Debug, Default)]
pub(crate) struct EffectTable {
    next: u64,
    outer: HashMap<EffectId, Owner>,
    inner: BTreeMap<(Slot, EffectId), EffectId>,
}

impl EffectTable {
    /// A fresh id for an effect of the host's own.
    pub(crate) fn own(&mut self) -> EffectId {
        let id = self.fresh();
        self.outer.insert(id, Owner::Host);
        id
    }

    fn fresh(&mut self) -> EffectId {
        self.next += 1;
        EffectId(self.next)
    }

    fn start(&mut self, slot: Slot, inner: EffectId) -> EffectId {
        let id = self.fresh();
        self.outer.insert(id, Owner::Session(slot, inner));
        self.inner.insert((slot, inner), id);
        id
    }

    /// The outer id of a session's running effect; an id the session never used (a bug) maps
    /// to one io does not know, which io ignores.
    fn running(&self, slot: Slot, inner: EffectId) -> EffectId {
        self.inner
            .get(&(slot, inner))
            .copied()
            .unwrap_or(EffectId(0))
    }

    fn retire(&mut self, outer: EffectId) {
        if let Some(Owner::Session(slot, inner)) = self.outer.remove(&outer) {
            self.inner.remove(&(slot, inner));
        }
    }

    /// Whose `outer` is, if anyone's.
    pub(crate) fn owner(&self, outer: EffectId) -> Option<Owner> {
        self.outer.get(&outer).copied()
    }

    /// Forgets every effect of `slot` (a closed session), returning the outer ids still live.
    pub(crate) fn forget(&mut self, slot: Slot) -> Vec<EffectId> {
        let live: Vec<EffectId> = self
            .inner
            .iter()
            .filter(|((s, _), _)| *s == slot)
            .map(|(_, outer)| *outer)
            .collect();
        for outer in &live {
            self.retire(*outer);
        }
        live
    }

    /// A session's output in io's numbering.
    pub(crate) fn outward(&mut self, slot: Slot, output: Output) -> Output {
        match output {
            Output::HttpRequest { id, request } => Output::HttpRequest {
                id: self.start(slot, id),
                request,
            },
            Output::HttpExchange { id, request } => Output::HttpExchange {
                id: self.start(slot, id),
                request,
            },
            Output::SpawnPiped {
                id,
                program,
                args,
                cwd,
                env,
            } => Output::SpawnPiped {
                id: self.start(slot, id),
                program,
                args,
                cwd,
                env,
            },
            Output::WriteStdin { id, bytes } => Output::WriteStdin {
                id: self.running(slot, id),
                bytes,
            },
            Output::CancelHttp { id } => {
                let outer = self.running(slot, id);
                self.retire(outer);
                Output::CancelHttp { id: outer }
            }
            Output::ReadFile {
                id,
                path,
                max_bytes,
            } => Output::ReadFile {
                id: self.start(slot, id),
                path,
                max_bytes,
            },
            Output::WriteFile { id, path, bytes } => Output::WriteFile {
                id: self.start(slot, id),
                path,
                bytes,
            },
            Output::Spawn {
                id,
                program,
                args,
                cwd,
                env,
                unset,
                stdin,
            } => Output::Spawn {
                id: self.start(slot, id),
                program,
                args,
                stdin,
                cwd,
                env,
                unset,
            },
            Output::Kill { id } => Output::Kill {
                id: self.running(slot, id),
            },
            Output::AppendFile { id, path, bytes } => Output::AppendFile {
                id: self.start(slot, id),
                path,
                bytes,
            },
            Output::ReadSessions { id, dir } => Output::ReadSessions {
                id: self.start(slot, id),
                dir,
            },
            Output::OpenFile { id, path, purpose } => Output::OpenFile {
                id: self.start(slot, id),
                path,
                purpose,
            },
            Output::ReadOpened {
                id,
                handle,
                max_bytes,
            } => Output::ReadOpened {
                id: self.start(slot, id),
                handle: self.running(slot, handle),
                max_bytes,
            },
            Output::ReplaceOpened { id, handle, bytes } => {
                let handle = self.running(slot, handle);
                self.retire(handle);
                Output::ReplaceOpened {
                    id: self.start(slot, id),
                    handle,
                    bytes,
                }
            }
            Output::CloseOpened { handle } => {
                let handle = self.running(slot, handle);
                self.retire(handle);
                Output::CloseOpened { handle }
            }
            Output::ResolvePath { id, path } => Output::ResolvePath {
                id: self.start(slot, id),
                path,
            },
            Output::Search {
                id,
                root,
                pattern,
                glob,
                case_insensitive,
                max_results,
            } => Output::Search {
                id: self.start(slot, id),
                root,
                pattern,
                glob,
                case_insensitive,
                max_results,
            },
            Output::ListFiles {
                id,
                root,
                pattern,
                max_results,
            } => Output::ListFiles {
                id: self.start(slot, id),
                root,
                pattern,
                max_results,
            },
            Output::ReadDiff { id, cwd, target } => Output::ReadDiff {
                id: self.start(slot, id),
                cwd,
                target,
            },
            Output::PrepareSite { id, cwd } => Output::PrepareSite {
                id: self.start(slot, id),
                cwd,
            },
            other @ (Output::Frame(_)
            | Output::Flush
            | Output::Message(_)
            | Output::Log(_)
            | Output::Exit { .. }
            | Output::SyncFile { .. }
            | Output::HttpFarewell { .. }) => other,
        }
    }

    /// `input`'s owner, with the input in the owner's numbering. The id is forgotten once its
    /// last result is in (an opened file's stays: it is a handle until replaced or closed).
    pub(crate) fn inward<'a>(&mut self, input: Input<'a>) -> Option<(Owner, Input<'a>)> {
        let (outer, _) = input.result_of()?;
        let owner = self.owner(outer)?;
        if is_last(&input) {
            match owner {
                Owner::Host => {
                    self.outer.remove(&outer);
                }
                Owner::Session(..) => self.retire(outer),
            }
        }
        let inner = match owner {
            Owner::Session(_, inner) => inner,
            Owner::Host => outer,
        };
        Some((owner, with_id(input, inner)))
    }
}

/// Whether no more results follow `input` for its id in io's numbering: an opened file's id
/// stays, as the handle its later reads and replaces name.
fn is_last(input: &Input<'_>) -> bool {
    match input {
        Input::FileOpened { result, .. } => result.is_err(),
        other => other.result_of().is_some_and(|(_, last)| last),
    }
}

fn with_id(input: Input<'_>, id: EffectId) -> Input<'_> {
    match input {
        Input::HttpResponse {
            status,
            retry_after,
            ..
        } => Input::HttpResponse {
            id,
            status,
            retry_after,
        },
        Input::HttpHeaders { headers, .. } => Input::HttpHeaders { id, headers },
        Input::HttpBody { bytes, .. } => Input::HttpBody { id, bytes },
        Input::HttpEnded { .. } => Input::HttpEnded { id },
        Input::HttpFailed { error, .. } => Input::HttpFailed { id, error },
        Input::FileRead { result, .. } => Input::FileRead { id, result },
        Input::FileWritten { result, .. } => Input::FileWritten { id, result },
        Input::ProcessOutput { stream, bytes, .. } => Input::ProcessOutput { id, stream, bytes },
        Input::ProcessExited { status, .. } => Input::ProcessExited { id, status },
        Input::SessionsRead { result, .. } => Input::SessionsRead { id, result },
        Input::FileAppended { result, .. } => Input::FileAppended { id, result },
        Input::FileOpened { result, .. } => Input::FileOpened { id, result },
        Input::PathResolved { result, .. } => Input::PathResolved { id, result },
        Input::SearchDone { result, .. } => Input::SearchDone { id, result },
        Input::FilesListed { result, .. } => Input::FilesListed { id, result },
        Input::DiffRead { result, .. } => Input::DiffRead { id, result },
        Input::SitePrepared { result, .. } => Input::SitePrepared { id, result },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sessions_effects_never_collide_and_results_go_home() {
        let mut table = EffectTable::default();
        let spawn = |id| Output::ReadFile {
            id: EffectId(id),
            path: "/a".into(),
            max_bytes: 1,
        };
        let Output::ReadFile { id: a, .. } = table.outward(1, spawn(1)) else {
            panic!()
        };
        let Output::ReadFile { id: b, .. } = table.outward(2, spawn(1)) else {
            panic!()
        };
        assert_ne!(a, b);
        let read = |id| Input::FileRead {
            id,
            result: Err("x".into()),
        };
        let (owner, input) = table.inward(read(b)).unwrap();
        assert_eq!(owner, Owner::Session(2, EffectId(1)));
        assert_eq!(input, read(EffectId(1)));
        assert!(
            table.inward(read(b)).is_none(),
            "the last result retires the id"
        );
        assert!(table.inward(read(EffectId(99))).is_none());
        assert_eq!(table.forget(1), vec![a]);
    }

    #[test]
    fn handles_keep_their_outer_id_until_closed() {
        let mut table = EffectTable::default();
        let open = Output::OpenFile {
            id: EffectId(4),
            path: "/a".into(),
            purpose: crate::effects::OpenFor::Read,
        };
        let Output::OpenFile { id: outer, .. } = table.outward(1, open) else {
            panic!()
        };
        let opened = Input::FileOpened {
            id: outer,
            result: Err("gone".into()),
        };
        assert!(table.inward(opened).is_some());
        let Output::CloseOpened { handle } = table.outward(
            1,
            Output::CloseOpened {
                handle: EffectId(4),
            },
        ) else {
            panic!()
        };
        assert_eq!(handle, EffectId(0), "a failed open is no handle");
    }
}
