//! The command line (design §3) and how it becomes a [`Config`].

use clap::Parser;
use luxe_core::Config;
use luxe_core::config::{
    Fresh, Home, ProviderVars, Providers, Requested, Resume, SessionFile, Timings, settings_files,
};
use luxe_core::protocol::values::PermissionMode;
use luxe_interface::OnAsk;
use luxe_io::{environment, prepare};

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
    /// With -p: what a permission prompt gets, since nobody can answer it (deny or allow).
    #[arg(long, value_name = "POLICY", num_args = 0..=1)]
    on_ask: Option<Option<String>>,
    /// Run one turn without the interface and print the answer (the text, or stdin's).
    #[arg(short = 'p', long = "print", value_name = "TEXT", num_args = 0..=1)]
    print: Option<Option<String>>,
}

/// Which way into Luxe the flags ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontDoor {
    /// `--rpc`: protocol frames on stdin and stdout.
    Rpc,
    /// `--acp`: an editor's agent.
    Acp,
    /// `-p`: one turn; its text (`None`: read stdin) and what prompts get.
    Print(Option<String>, OnAsk),
    /// The full-screen interface.
    Interface,
}

impl Flags {
    /// The front door these flags open, or the one-line reason they cannot.
    pub fn front_door(&self) -> Result<FrontDoor, String> {
        let doors = [self.rpc, self.acp, self.print.is_some()];
        if doors.iter().filter(|d| **d).count() > 1 {
            return Err("--rpc, --acp and -p are three ways in: give one".into());
        }
        let on_ask = match self.on_ask.as_ref().map(|policy| policy.as_deref()) {
            None => OnAsk::default(),
            Some(policy) if self.print.is_some() => OnAsk::parse(policy.unwrap_or("deny"))?,
            // --rpc's refusal is the session's own (its client answers prompts itself).
            Some(_) if self.rpc => OnAsk::default(),
            Some(_) => {
                return Err(
                    "--on-ask is for -p: here prompts are answered by you or your editor".into(),
                );
            }
        };
        Ok(match (&self.print, self.rpc, self.acp) {
            (Some(text), _, _) => FrontDoor::Print(text.clone(), on_ask),
            (None, true, _) => FrontDoor::Rpc,
            (None, _, true) => FrontDoor::Acp,
            (None, false, false) => FrontDoor::Interface,
        })
    }

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
        let requested = Requested {
            issue: self.issue,
            from_pr: self.from_pr,
            worktree: self.worktree.clone(),
            on_ask: self.on_ask.is_some() && self.rpc,
            resume: self.continue_session || self.resume.is_some(),
        };
        if let Some(refusal) = requested.refusal() {
            return Err(refusal);
        }
        let session_id = environment::new_session_id();
        let vars = environment::vars();
        let timings = Timings::from_vars(&vars);
        let started_in = environment::cwd()
            .map_err(|err| format!("cannot read the working directory: {err}"))?;
        // --issue, --from-pr and --worktree run before anything reads the directory.
        let prepared = prepare::prepare(&requested, &started_in, &session_id, &timings)?;
        let cwd = prepared.cwd.unwrap_or(started_in);
        let home = Home::from_vars(&vars, environment::home_dir().as_deref());
        match &home {
            Some(home) => tracing::debug!(home = home.path(), "LUXE_HOME"),
            None => tracing::warn!("no LUXE_HOME and no home directory"),
        }
        let settings = environment::settings_files(&settings_files(home.as_ref(), &cwd))?;
        let sessions = home.as_ref().map(Home::sessions_dir);
        let resume = self.session_to_resume(sessions.as_deref(), &cwd)?;
        let mut config = Config::new(env!("CARGO_PKG_VERSION"), &session_id, &cwd);
        config.issue = prepared.issue;
        config.sessions_dir = sessions;
        config.reviews_dir = home.as_ref().map(Home::reviews_dir);
        config.unix_ms = environment::unix_ms();
        config.resume = resume;
        config.env_files = environment::env_files(std::path::Path::new(&cwd));
        config.model = self.model;
        config.requested = requested;
        config.providers = Providers::from_vars(&ProviderVars::from_vars(&vars));
        config.env_names = vars.names();
        config.mcp_env = luxe_core::mcp::config::HostEnv::from_vars(&vars);
        config.luxe_home = home.as_ref().map(|h| environment::absolute(h.path()));
        config.guarded_resolved = environment::resolved_guards(&cwd, config.luxe_home.as_deref());
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
        dir: Option<&str>,
        cwd: &str,
    ) -> Result<Option<SessionFile>, String> {
        let resume = match &self.resume {
            Some(id) => Resume::Id(id.clone()),
            None if self.continue_session => Resume::Latest,
            None => return Ok(None),
        };
        read_session(&resume, dir, cwd).map(Some)
    }
}

/// The stored session `resume` names, read whole; an error is one line saying why not.
fn read_session(resume: &Resume, dir: Option<&str>, cwd: &str) -> Result<SessionFile, String> {
    let path = resume.path(dir, cwd, environment::session_heads)?;
    let bytes = std::fs::read(&path).map_err(|err| {
        let absent = err.kind() == std::io::ErrorKind::NotFound;
        resume.unreadable(dir.unwrap_or_default(), &path, absent, &err.to_string())
    })?;
    Ok(SessionFile { path, bytes })
}

/// The config of the session the interface starts in place of the one `base` started
/// (`/new`, or `/sessions` resuming the stored session `resume`), as core decides it.
pub fn next_session(base: &Config, resume: Option<&str>) -> Result<Config, String> {
    let resume = match resume {
        Some(id) => Some(read_session(
            &Resume::Id(id.to_owned()),
            base.sessions_dir.as_deref(),
            &base.cwd,
        )?),
        None => None,
    };
    let fresh = Fresh {
        session_id: environment::new_session_id(),
        unix_ms: environment::unix_ms(),
        rng_seed: environment::random_seed(),
        today: environment::today(),
    };
    Ok(base.next_session(fresh, resume))
}

fn parse_mode(name: &str) -> Result<PermissionMode, String> {
    PermissionMode::parse(name)
        .ok_or_else(|| format!("{name:?} is not one of default, accept-edits, bypass, read-only"))
}
