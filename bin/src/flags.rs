//! The command line (design §3) and how it becomes a [`Config`].

use clap::Parser;
use luxe_core::Config;
use luxe_core::config::{Providers, Requested, SessionFile};
use luxe_core::protocol::values::PermissionMode;
use luxe_core::session::tools::paths::GUARDED_DIRS;
use luxe_core::store;
use luxe_io::{environment, startup};

/// Luxe, a coding agent. `luxe --rpc` speaks JSON frames over stdin and stdout, one per line.
#[derive(Debug, Parser)]
#[command(name = "luxe", version, about)]
pub struct Flags {
    /// Run without a user interface, speaking protocol v2 on stdin and stdout.
    #[arg(long)]
    rpc: bool,
    /// Run as an Agent Client Protocol agent (JSON-RPC on stdin and stdout) for an editor.
    #[arg(long)]
    pub acp: bool,
    /// The model, as provider/model (anthropic/…, openai/…).
    #[arg(long, value_name = "PROVIDER/MODEL")]
    model: Option<String>,
    /// default, accept-edits, bypass or read-only.
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    permission_mode: Option<PermissionMode>,
    /// Continue this directory's most recent session.
    #[arg(short = 'c', long = "continue", conflicts_with = "resume")]
    continue_session: bool,
    /// Resume the session with this id.
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// Let the client publish to GitHub (comments, reviews, pull requests, restacks).
    #[arg(long)]
    github_writes: bool,
    /// Approve every permission prompt without asking.
    #[arg(long)]
    auto_approve: bool,
    /// Only read: no edits, no commands that change anything, no GitHub writes.
    #[arg(long)]
    read_only: bool,
    /// The bypass mode: nothing asks (deny rules still hold).
    #[arg(long)]
    yolo: bool,
    /// Let the project's own allow rules count.
    #[arg(long)]
    trust_project: bool,
    /// Start from a GitHub issue.
    #[arg(long, value_name = "N")]
    issue: Option<u64>,
    /// Check out a pull request's branch and start there.
    #[arg(long, value_name = "N")]
    from_pr: Option<u64>,
    /// Work in a new git worktree.
    #[arg(long, value_name = "NAME", num_args = 0..=1)]
    worktree: Option<Option<String>>,
    /// What to do when a prompt needs an answer and no one can give one (not with --rpc).
    #[arg(long, value_name = "POLICY", num_args = 0..=1)]
    on_ask: Option<Option<String>>,
}

impl Flags {
    /// The session's config, or the one-line reason luxe cannot start with these flags.
    pub fn into_config(self) -> Result<Config, String> {
        if self.acp && self.rpc {
            return Err("--acp and --rpc are two protocols: give one".into());
        }
        if self.acp && (self.continue_session || self.resume.is_some()) {
            return Err(
                "--acp cannot be used with -c or --resume: the editor loads sessions".into(),
            );
        }
        if !self.rpc && !self.acp {
            return Err(
                "this build has no interactive interface: run `luxe --rpc` or `luxe --acp`".into(),
            );
        }
        let requested = Requested {
            issue: self.issue,
            from_pr: self.from_pr,
            worktree: self.worktree.clone(),
            on_ask: self.on_ask.is_some(),
            resume: self.continue_session || self.resume.is_some(),
        };
        if let Some(refusal) = requested.refusal() {
            return Err(refusal);
        }
        let session_id = environment::new_session_id();
        let timings = environment::timings();
        let started_in = environment::cwd()
            .map_err(|err| format!("cannot read the working directory: {err}"))?;
        // --issue, --from-pr and --worktree run before anything reads the directory.
        let prepared = startup::prepare(&requested, &started_in, &session_id, &timings)?;
        let cwd = prepared.cwd.unwrap_or(started_in);
        let home = environment::luxe_home();
        match &home {
            Some(home) => tracing::debug!(home = %home.display(), "LUXE_HOME"),
            None => tracing::warn!("no LUXE_HOME and no home directory"),
        }
        let settings = environment::settings_files(home.as_deref(), std::path::Path::new(&cwd))?;
        let sessions = home.as_ref().map(|h| h.join("sessions"));
        let resume = self.session_to_resume(sessions.as_deref(), &cwd)?;
        let mut config = Config::new(env!("CARGO_PKG_VERSION"), &session_id, &cwd);
        config.issue = prepared.issue;
        config.sessions_dir = sessions.map(|s| s.to_string_lossy().into_owned());
        config.reviews_dir = home
            .as_ref()
            .map(|h| h.join("reviews").to_string_lossy().into_owned());
        config.unix_ms = environment::unix_ms();
        config.resume = resume;
        config.env_files = environment::env_files(std::path::Path::new(&cwd));
        config.model = self.model;
        config.requested = requested;
        config.providers = Providers::from_vars(&environment::provider_vars());
        config.env_names = environment::variable_names();
        config.luxe_home = home
            .as_ref()
            .map(|h| std::path::absolute(h).unwrap_or_else(|_| h.clone()))
            .map(|h| h.to_string_lossy().into_owned());
        let guarded = GUARDED_DIRS.iter().map(|dir| format!("{cwd}/{dir}"));
        config.guarded_resolved = guarded
            .chain(config.luxe_home.clone())
            .filter_map(|path| environment::resolved(&path))
            .collect();
        config.settings = settings;
        config.timings = timings;
        config.rng_seed = environment::random_seed();
        config.platform = environment::platform();
        config.today = environment::today();
        config.permission_mode = self.permission_mode;
        config.yolo = self.yolo;
        config.read_only = self.read_only;
        config.auto_approve = self.auto_approve;
        config.github_writes = self.github_writes;
        config.trust_project = self.trust_project;
        Ok(config)
    }
}

impl Flags {
    /// The stored session `-c` or `--resume` names, read whole; an error is the line luxe exits
    /// with.
    fn session_to_resume(
        &self,
        dir: Option<&std::path::Path>,
        cwd: &str,
    ) -> Result<Option<SessionFile>, String> {
        if self.resume.is_none() && !self.continue_session {
            return Ok(None);
        }
        let dir = dir.ok_or("no LUXE_HOME and no home directory: no sessions are kept")?;
        let path = match &self.resume {
            Some(id) => dir.join(store::file_name(id)?),
            None => {
                let candidates = environment::session_candidates(dir);
                let latest = store::latest_for(&candidates, cwd)
                    .ok_or_else(|| format!("-c: no session to continue in {cwd}"))?;
                std::path::PathBuf::from(latest)
            }
        };
        let bytes = std::fs::read(&path).map_err(|err| match &self.resume {
            Some(id) if err.kind() == std::io::ErrorKind::NotFound => {
                format!("--resume: no session {id} in {}", dir.display())
            }
            _ => format!("{}: {err}", path.display()),
        })?;
        Ok(Some(SessionFile {
            path: path.to_string_lossy().into_owned(),
            bytes,
        }))
    }
}

fn parse_mode(name: &str) -> Result<PermissionMode, String> {
    PermissionMode::parse(name)
        .ok_or_else(|| format!("{name:?} is not one of default, accept-edits, bypass, read-only"))
}
