//! What a session starts from, decided from its config before the session exists: the
//! settings, the model (and where its name came from), the conversation a resume restores,
//! the permission mode and the redaction gate. Pure; every error is the sentence start-up
//! fails with.

use crate::config::prepare::worktree_name;
use crate::config::{Config, StartError};
use crate::model::catalogue::ModelRef;
use crate::protocol::events::{Started, StartedIssue, StartedWorktree};
use crate::protocol::values::PermissionMode;
use crate::redact::{Redactor, is_weak, secret_values};
use crate::settings::{self, Loaded};
use crate::store::Restored;

/// What start-up decided.
pub(super) struct Decided {
    /// The settings files, merged.
    pub settings: Loaded,
    /// `--model`, else the settings' model, else the default for the providers configured.
    pub model: Option<ModelRef>,
    /// The session a resume continues.
    pub restored: Option<Restored>,
    /// The flags' mode over the settings'.
    pub permission_mode: PermissionMode,
}

/// Decides what a session of `config` starts from, or why it cannot start.
pub(super) fn decide(config: &Config) -> Result<Decided, StartError> {
    if let Some(refusal) = config.requested.refusal() {
        return Err(StartError(refusal));
    }
    let settings = settings::load(&config.settings, config.trust_project).map_err(StartError)?;
    let configured = match &config.model {
        Some(spec) => Some(("--model", spec.clone())),
        None => settings.model.clone().map(|m| ("settings", m)),
    };
    let model = match configured {
        Some((origin, spec)) => Some(
            ModelRef::parse(&spec).map_err(|reason| StartError(format!("{origin}: {reason}")))?,
        ),
        None => ModelRef::default_for(config.providers.access()),
    };
    let restored = match &config.resume {
        Some(file) => Some(
            crate::store::restore(&file.bytes)
                .map_err(|err| StartError(format!("{}: {err}", file.path)))?,
        ),
        None => None,
    };
    let permission_mode = config.effective_permission_mode(settings.mode);
    Ok(Decided {
        settings,
        model,
        restored,
        permission_mode,
    })
}

/// The gate every frame passes: the project's `.env` values, and the providers' keys too — a
/// command can read luxe's own environment (`/proc/$PPID/environ`) even though none it runs
/// inherits them.
pub(super) fn redactor(config: &Config) -> Redactor {
    Redactor::new(
        config
            .env_files
            .iter()
            .flat_map(|file| secret_values(&file.bytes))
            .chain(config.providers.keys().filter(|key| !is_weak(key))),
    )
}

/// The warnings for stderr of a resume: the session file's lines that were skipped.
pub(super) fn warnings(restored: Option<&Restored>) -> Vec<String> {
    restored
        .map(|r| {
            r.skipped
                .iter()
                .map(|s| format!("session file: skipped {s}"))
                .collect()
        })
        .unwrap_or_default()
}

/// What `--issue`, `--from-pr` and `--worktree` did before `ready`, for its `started`; `None`
/// when none was given. The issue's title passes `redactor` like every frame.
pub(super) fn started(config: &Config, redactor: &Redactor) -> Option<Box<Started>> {
    let requested = &config.requested;
    let started = Started {
        issue: config.issue.as_ref().map(|issue| StartedIssue {
            number: issue.number,
            title: redactor.redact(&issue.title).into_owned(),
            url: issue.url.clone(),
        }),
        from_pr: requested.from_pr,
        worktree: requested.worktree.as_ref().map(|given| StartedWorktree {
            path: config.cwd.clone(),
            branch: worktree_name(given.as_deref(), &config.session_id),
        }),
    };
    (started != Started::default()).then(|| Box::new(started))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::new("0.1.0", "s1", "/work/p")
    }

    #[test]
    fn a_bad_model_name_says_where_it_came_from() {
        let mut bad = config();
        bad.model = Some("nonsense".into());
        let Err(StartError(why)) = decide(&bad) else {
            panic!("a bad --model starts nothing");
        };
        assert!(why.starts_with("--model: "), "{why}");
    }

    #[test]
    fn a_resume_of_a_broken_file_names_the_file_and_a_fresh_start_restores_nothing() {
        let fresh = decide(&config()).unwrap_or_else(|StartError(e)| panic!("{e}"));
        assert!(fresh.restored.is_none());
        assert!(warnings(fresh.restored.as_ref()).is_empty());
        let mut resumed = config();
        resumed.resume = Some(crate::config::SessionFile {
            path: "/home/u/.luxe/sessions/x.jsonl".into(),
            bytes: b"not a session\n".to_vec(),
        });
        let Err(StartError(why)) = decide(&resumed) else {
            panic!("a file that is no session is refused");
        };
        assert!(why.starts_with("/home/u/.luxe/sessions/x.jsonl: "), "{why}");
    }
}
