//! The project's context for the system prompt ([`ProjectContext`]): `git status` and the
//! project's `AGENTS.md`, probed at start-up.

use super::outbox::Outbox;
use super::owners::Owner;
use crate::effects::{EffectId, Input, Output};
use crate::git::status::{self, GitStatus, NO_OPTIONAL_LOCKS, STATUS_ARGS};

/// The most of `AGENTS.md` read.
const AGENTS_MD_MAX: u64 = 64 * 1024;

#[derive(Debug, Default)]
enum Probe<T> {
    #[default]
    NotStarted,
    Pending(EffectId),
    Done(T),
}

/// What the start-up probes found of the project so far.
#[derive(Debug, Default)]
pub(super) struct ProjectContext {
    git: Probe<Option<GitStatus>>,
    git_stdout: Vec<u8>,
    agents_md: Probe<Option<String>>,
}

impl ProjectContext {
    /// Starts every probe through `outbox`; `unset` is what git does not inherit.
    pub(super) fn start(&mut self, outbox: &mut Outbox, cwd: &str, unset: &[String]) {
        let git = outbox.issue(Owner::ProjectContext, |id| Output::Spawn {
            id,
            program: "git".to_owned(),
            args: STATUS_ARGS.iter().map(|a| (*a).to_owned()).collect(),
            cwd: cwd.to_owned(),
            env: vec![(
                NO_OPTIONAL_LOCKS.0.to_owned(),
                NO_OPTIONAL_LOCKS.1.to_owned(),
            )],
            unset: unset.to_vec(),
            stdin: Vec::new(),
        });
        let root = cwd.trim_end_matches('/');
        let agents = outbox.issue(Owner::ProjectContext, |id| Output::ReadFile {
            id,
            path: format!("{root}/AGENTS.md"),
            max_bytes: AGENTS_MD_MAX,
        });
        self.git = Probe::Pending(git);
        self.agents_md = Probe::Pending(agents);
    }

    /// Takes `input` if it belongs to a probe.
    pub(super) fn handle(&mut self, input: &Input<'_>) -> bool {
        match (input, &self.git, &self.agents_md) {
            (Input::ProcessOutput { id, bytes, stream }, Probe::Pending(git), _) if id == git => {
                if *stream == crate::effects::Stream::Stdout {
                    self.git_stdout.extend_from_slice(bytes);
                }
                true
            }
            (Input::ProcessExited { id, status: exit }, Probe::Pending(git), _) if id == git => {
                let found = matches!(exit, Ok(Some(0)))
                    .then(|| status::parse(&String::from_utf8_lossy(&self.git_stdout)));
                self.git = Probe::Done(found);
                self.git_stdout = Vec::new();
                true
            }
            (Input::FileRead { id, result }, _, Probe::Pending(agents)) if id == agents => {
                let text = result
                    .as_ref()
                    .ok()
                    .map(|c| String::from_utf8_lossy(&c.bytes).into_owned());
                self.agents_md = Probe::Done(text);
                true
            }
            _ => false,
        }
    }

    /// Probes that found no checkout and no `AGENTS.md`, for tests of what waits on them.
    #[cfg(test)]
    pub(super) fn found_nothing() -> Self {
        Self {
            git: Probe::Done(None),
            git_stdout: Vec::new(),
            agents_md: Probe::Done(None),
        }
    }

    /// Whether every probe is done.
    pub(super) fn is_ready(&self) -> bool {
        matches!(
            (&self.git, &self.agents_md),
            (Probe::Done(_), Probe::Done(_))
        )
    }

    /// The git status (`None` outside a checkout or before the probe ends).
    pub(super) fn git(&self) -> Option<&GitStatus> {
        match &self.git {
            Probe::Done(status) => status.as_ref(),
            _ => None,
        }
    }

    /// `AGENTS.md`, when the project has one.
    pub(super) fn agents_md(&self) -> Option<&str> {
        match &self.agents_md {
            Probe::Done(text) => text.as_deref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::{FileContent, Stream};

    /// The probes' effects, started: `(git status, AGENTS.md)`.
    fn started(context: &mut ProjectContext) -> (EffectId, EffectId) {
        let mut outbox = Outbox::default();
        context.start(&mut outbox, "/work/p/", &["OPENAI_API_KEY".to_owned()]);
        let outputs: Vec<Output> = std::iter::from_fn(|| outbox.pop()).collect();
        match &outputs[..] {
            [
                Output::Spawn {
                    id: git,
                    program,
                    unset,
                    ..
                },
                Output::ReadFile {
                    id: agents, path, ..
                },
            ] => {
                assert_eq!(
                    (program.as_str(), path.as_str()),
                    ("git", "/work/p/AGENTS.md")
                );
                assert_eq!(unset, &["OPENAI_API_KEY"], "git inherits no key");
                (*git, *agents)
            }
            other => panic!("not the two probes: {other:?}"),
        }
    }

    #[test]
    fn ready_once_both_probes_end_with_what_they_found() {
        let mut context = ProjectContext::default();
        let (git, agents) = started(&mut context);
        let stdout = b"# branch.oid abc\n# branch.head main\n";
        for input in [
            Input::ProcessOutput {
                id: git,
                stream: Stream::Stdout,
                bytes: stdout,
            },
            Input::ProcessOutput {
                id: git,
                stream: Stream::Stderr,
                bytes: b"# branch.head other\n",
            },
            Input::ProcessExited {
                id: git,
                status: Ok(Some(0)),
            },
        ] {
            assert!(context.handle(&input));
            assert!(!context.is_ready(), "AGENTS.md is not read yet");
        }
        assert_eq!(
            context.git().and_then(|g| g.branch.as_deref()),
            Some("main")
        );
        let unrelated = Input::FileRead {
            id: EffectId(agents.0 + 100),
            result: Ok(FileContent::whole(b"no".to_vec())),
        };
        assert!(!context.handle(&unrelated));
        let read = Input::FileRead {
            id: agents,
            result: Ok(FileContent::whole(b"Use tabs.".to_vec())),
        };
        assert!(context.handle(&read));
        assert!(context.is_ready());
        assert_eq!(context.agents_md(), Some("Use tabs."));
    }

    #[test]
    fn outside_a_checkout_and_without_agents_md_it_is_ready_with_nothing() {
        let mut context = ProjectContext::default();
        assert!(!context.is_ready(), "not before it starts");
        let (git, agents) = started(&mut context);
        let exited = Input::ProcessExited {
            id: git,
            status: Ok(Some(128)),
        };
        let missing = Input::FileRead {
            id: agents,
            result: Err("not found".to_owned()),
        };
        assert!(context.handle(&missing) && context.handle(&exited));
        assert!(context.is_ready());
        assert!(context.git().is_none() && context.agents_md().is_none());
    }
}
