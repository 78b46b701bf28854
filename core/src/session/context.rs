//! The start-up probes: `git status` and the project's `AGENTS.md` for the system prompt.

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

/// What the probes found so far.
#[derive(Debug, Default)]
pub(super) struct Context {
    git: Probe<Option<GitStatus>>,
    git_stdout: Vec<u8>,
    agents_md: Probe<Option<String>>,
}

impl Context {
    /// The outputs that start every probe; `ids` hands out effect ids, `unset` is what git
    /// does not inherit.
    pub(super) fn start(
        &mut self,
        cwd: &str,
        unset: &[String],
        mut ids: impl FnMut() -> EffectId,
    ) -> Vec<Output> {
        let (git, agents) = (ids(), ids());
        self.git = Probe::Pending(git);
        self.agents_md = Probe::Pending(agents);
        let root = cwd.trim_end_matches('/');
        vec![
            Output::Spawn {
                id: git,
                program: "git".to_owned(),
                args: STATUS_ARGS.iter().map(|a| (*a).to_owned()).collect(),
                cwd: cwd.to_owned(),
                env: vec![(
                    NO_OPTIONAL_LOCKS.0.to_owned(),
                    NO_OPTIONAL_LOCKS.1.to_owned(),
                )],
                unset: unset.to_vec(),
            },
            Output::ReadFile {
                id: agents,
                path: format!("{root}/AGENTS.md"),
                max_bytes: AGENTS_MD_MAX,
            },
        ]
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

impl super::Session {
    pub(super) fn start_probes(&mut self) {
        let owners = self.port.owners();
        let outputs = self.context.start(&self.cwd, &self.own_env_unset, || {
            owners.issue(super::owners::Owner::Context)
        });
        self.port.extend(outputs);
    }
}
