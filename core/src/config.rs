//! What `Luxe` is started with: plain data that io and the binary gather (flags, environment
//! facts, the session id), so the core never reads the world itself.

use std::time::Duration;

mod env_search;
mod env_vars;
mod home;
pub mod prepare;
mod session_id;
mod settings_read;
mod utc_date;

pub use env_search::{EnvEntry, EnvSearch, WalkedEntry};
pub use home::{Home, Resume, settings_files};
pub use session_id::session_id;
pub use settings_read::{SettingsRead, settings_sources};
pub(crate) use utc_date::civil_from_days;
pub use utc_date::utc_date;

use crate::effects::{EnvFile, SettingsSource};
use crate::model::catalogue::{Provider, ProviderAccess};
use crate::model::wire::Endpoint;
use crate::protocol::MAX_FRAME_BYTES;
use crate::protocol::values::PermissionMode;
use crate::steps::Program;

/// Where each provider is, from the standard environment variables; `None` when unconfigured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Providers {
    /// `ANTHROPIC_API_KEY` (required) and `ANTHROPIC_BASE_URL`.
    pub anthropic: Option<Endpoint>,
    /// `OPENAI_API_KEY` and/or `OPENAI_BASE_URL` (local servers need no key).
    pub openai: Option<Endpoint>,
}

/// The standard provider variables, as io read them (empty values count as unset).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ProviderVars {
    /// `ANTHROPIC_API_KEY`: without it Anthropic is not configured.
    pub anthropic_api_key: Option<String>,
    /// `ANTHROPIC_BASE_URL`; `https://api.anthropic.com` when unset.
    pub anthropic_base_url: Option<String>,
    /// `OPENAI_API_KEY`; unset for a local server that needs no key.
    pub openai_api_key: Option<String>,
    /// `OPENAI_BASE_URL`; `https://api.openai.com/v1` when unset.
    pub openai_base_url: Option<String>,
}

impl std::fmt::Debug for ProviderVars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys never reach logs.
        f.debug_struct("ProviderVars")
            .field(
                "anthropic_api_key",
                &self.anthropic_api_key.as_ref().map(|_| "<set>"),
            )
            .field("anthropic_base_url", &self.anthropic_base_url)
            .field(
                "openai_api_key",
                &self.openai_api_key.as_ref().map(|_| "<set>"),
            )
            .field("openai_base_url", &self.openai_base_url)
            .finish()
    }
}

impl Providers {
    /// The keys that are set, which the redaction gate cuts out like `.env` values.
    pub fn keys(&self) -> impl Iterator<Item = String> + '_ {
        [&self.anthropic, &self.openai]
            .into_iter()
            .flatten()
            .filter_map(|endpoint| endpoint.api_key.clone())
    }

    /// The providers the variables configure: Anthropic needs its key; an OpenAI-compatible
    /// server needs a key or a base URL (local servers such as Ollama have no key).
    pub fn from_vars(vars: &ProviderVars) -> Self {
        let base = |url: &Option<String>, default: &str| {
            url.as_deref()
                .unwrap_or(default)
                .trim_end_matches('/')
                .to_owned()
        };
        Self {
            anthropic: vars.anthropic_api_key.as_ref().map(|key| Endpoint {
                base_url: base(&vars.anthropic_base_url, "https://api.anthropic.com"),
                api_key: Some(key.clone()),
            }),
            openai: (vars.openai_api_key.is_some() || vars.openai_base_url.is_some()).then(|| {
                Endpoint {
                    base_url: base(&vars.openai_base_url, "https://api.openai.com/v1"),
                    api_key: vars.openai_api_key.clone(),
                }
            }),
        }
    }

    /// Which providers can be called.
    pub fn access(&self) -> ProviderAccess {
        ProviderAccess {
            anthropic: self.anthropic.is_some(),
            openai: self.openai.is_some(),
        }
    }

    /// The endpoint of `provider`, when configured.
    pub fn endpoint(&self, provider: Provider) -> Option<&Endpoint> {
        match provider {
            Provider::Anthropic => self.anthropic.as_ref(),
            Provider::OpenAi => self.openai.as_ref(),
        }
    }
}

/// Every wait luxe makes, so tests can run them in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    /// A `bash` call's timeout when the model sets none.
    pub bash_timeout: Duration,
    /// The first retry delay; each later one doubles, up to `retry_max`.
    pub retry_base: Duration,
    /// The longest retry delay (also caps `retry-after`).
    pub retry_max: Duration,
    /// Model requests per turn step, the first included.
    pub max_attempts: u32,
    /// How long a model response may send nothing before it counts as a network failure.
    pub model_idle_timeout: Duration,
    /// How long one `gh` command may run.
    pub gh_timeout: Duration,
    /// How long one git command luxe runs for itself over the network or the history (a push,
    /// a fetch, rebuilding a branch) may run.
    pub git_timeout: Duration,
    /// How often the workspace is probed again while gh is usable.
    pub github_poll: Duration,
    /// How long a question to a local server about its model (`/props`, `/v1/models`) may
    /// take before it is given up; it never delays `ready`.
    pub server_probe_timeout: Duration,
    /// How long a turn's first request waits for that question's answer when it is still
    /// under way (`LUXE_WINDOW_WAIT_MS`), so that the request fits the window the server runs.
    pub window_wait: Duration,
    /// How long a request to an MCP server may wait for its answer when its settings give no
    /// `timeout` (`LUXE_MCP_TIMEOUT_MS`).
    pub mcp_timeout: Duration,
    /// The wait before a failed MCP server may be started again, doubling with each failure in
    /// a row up to a minute (`LUXE_MCP_RESTART_MS`).
    pub mcp_restart: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Self {
            bash_timeout: Duration::from_secs(120),
            retry_base: Duration::from_secs(1),
            retry_max: Duration::from_secs(60),
            max_attempts: 5,
            model_idle_timeout: Duration::from_secs(300),
            gh_timeout: Duration::from_secs(30),
            git_timeout: Duration::from_secs(300),
            github_poll: Duration::from_secs(60),
            server_probe_timeout: Duration::from_secs(5),
            window_wait: Duration::from_secs(2),
            mcp_timeout: Duration::from_secs(60),
            mcp_restart: Duration::from_secs(1),
        }
    }
}

impl Timings {
    /// How long one command of `program` may run (a `gh pr checkout` fetches too: gh's).
    pub fn program_timeout(&self, program: Program) -> Duration {
        match program {
            Program::Gh => self.gh_timeout,
            Program::Git | Program::Rm => self.git_timeout,
        }
    }
}

/// Flags that ask for a kind of session before the first frame (design §3).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requested {
    /// `--issue N`: the issue's title and body open the first turn's message.
    pub issue: Option<u64>,
    /// `--from-pr N`: `gh pr checkout N` runs before `ready`.
    pub from_pr: Option<u64>,
    /// `--worktree [NAME]`: `Some(None)` without a name, and one is made from the session id.
    pub worktree: Option<Option<String>>,
    /// `--on-ask` was given: refused here, where the client answers prompts itself (see
    /// [`Requested::refusal`]).
    pub on_ask: bool,
    /// `-c` or `--resume` was given.
    pub resume: bool,
}

impl Requested {
    /// Why the requested session cannot start, if it cannot. `--on-ask` is refused by design:
    /// the client answers prompts itself. (`--issue`, `--from-pr` and `--worktree` are prepared
    /// by io before start-up; see [`prepare`].)
    pub fn refusal(&self) -> Option<String> {
        if self.on_ask {
            return Some(
                "--on-ask cannot be used with --rpc: your client answers prompts itself".into(),
            );
        }
        // Refused before the worktree is made: a new directory has no session to continue.
        if self.worktree.is_some() && self.resume {
            return Some(
                "--worktree cannot be used with -c or --resume: a new worktree has no session to continue"
                    .into(),
            );
        }
        None
    }
}

/// A stored session to resume, as io read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// Where it is; later records are appended here.
    pub path: String,
    /// Its whole content.
    pub bytes: Vec<u8>,
}

/// The most directory entries io looks at under cwd for `.env` files at start: enough for any
/// project, and a bound on the start-up of one started in a home directory.
pub const ENV_SEARCH_MAX_ENTRIES: usize = 200_000;

/// Everything a session starts from.
#[derive(Debug, Clone)]
pub struct Config {
    /// This build's version, for `ready`.
    pub luxe_version: String,
    /// The session's id, made by io (the one id not derived from content or counters).
    pub session_id: String,
    /// The working directory, as io resolved it.
    pub cwd: String,
    /// `--model`, as given (`provider/model`): it wins over the settings files' model; without
    /// either, a configured provider's default is used.
    pub model: Option<String>,
    /// What kind of session the flags ask for.
    pub requested: Requested,
    /// Where session files live (`$LUXE_HOME/sessions`); `None` keeps nothing.
    pub sessions_dir: Option<String>,
    /// Where review sessions live (`$LUXE_HOME/reviews`); `None` keeps nothing.
    pub reviews_dir: Option<String>,
    /// The wall clock at start, in milliseconds since the Unix epoch (thread entries' `at`).
    pub unix_ms: u64,
    /// `--issue`'s issue, read before start-up, for the first turn.
    pub issue: Option<prepare::IssueContext>,
    /// The session `-c` or `--resume` chose.
    pub resume: Option<SessionFile>,
    /// The `.env` files under cwd, read before the first frame.
    pub env_files: Vec<EnvFile>,
    /// Which providers the environment configures, and where they are.
    pub providers: Providers,
    /// Settings files in order of precedence, lowest first (user, then project).
    pub settings: Vec<SettingsSource>,
    /// Every wait.
    pub timings: Timings,
    /// Seeds retry jitter.
    pub rng_seed: u64,
    /// The operating system and architecture, for the system prompt.
    pub platform: String,
    /// Today's date (`YYYY-MM-DD`), for the system prompt.
    pub today: String,
    /// `--permission-mode`, as given: read-only (from anywhere) and `--yolo` win over it, and it
    /// wins over the settings files' mode.
    pub permission_mode: Option<PermissionMode>,
    /// `--yolo`: the `bypass` mode.
    pub yolo: bool,
    /// `--read-only`: wins over every other mode and flag.
    pub read_only: bool,
    /// `--auto-approve`: each permission prompt is approved (`once`) as soon as it is asked.
    pub auto_approve: bool,
    /// Whether someone can answer `ask_user`; without (an ACP client that offers no
    /// elicitation) the tool is not offered.
    pub questions: bool,
    /// `--github-writes`: the client may publish to GitHub (never when read-only).
    pub github_writes: bool,
    /// `--trust-project`: the project's own `allow` rules count.
    pub trust_project: bool,
    /// The longest accepted line in bytes.
    pub max_frame_bytes: usize,
    /// `$LUXE_HOME` as given (absolute), whose files a tool write always asks about.
    pub luxe_home: Option<String>,
    /// `$LUXE_HOME` and each of `GUARDED_DIRS` under cwd with symlinks resolved (for one that
    /// does not exist yet, its deepest existing ancestor resolved), as io found them at start.
    pub guarded_resolved: Vec<String>,
    /// The names of the variables in luxe's environment, for what the model's commands do not
    /// inherit.
    pub env_names: Vec<String>,
    /// Luxe's environment (names and values), for `${VAR}` in MCP server settings and what
    /// stdio MCP servers inherit.
    pub mcp_env: crate::mcp::config::HostEnv,
    /// MCP servers the client gives this session on top of the settings' (an ACP client's
    /// `session/new` `mcpServers`); one named like a configured server replaces it.
    pub extra_mcp_servers: Vec<crate::mcp::config::ServerConfig>,
}

/// What io makes anew for each session: its id, the clock and the seed.
#[derive(Debug, Clone)]
pub struct Fresh {
    /// The new session's id: its start in milliseconds as 12 hex digits, a dash, then 16 random hex
    /// digits (see [`crate::config::session_id()`]).
    pub session_id: String,
    /// The wall clock now, in milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// A new seed for retry jitter.
    pub rng_seed: u64,
    /// Today's date (`YYYY-MM-DD`).
    pub today: String,
}

impl Config {
    /// The config of a session that takes this one's place in the same front door (the
    /// interface's `/new`, or `/sessions` resuming `resume`): the same directory, flags,
    /// settings and providers; `fresh`'s id and clock; none of `--issue`'s, `--from-pr`'s or
    /// `--worktree`'s start-up, which was the first session's.
    pub fn next_session(&self, fresh: Fresh, resume: Option<SessionFile>) -> Config {
        let mut config = self.clone();
        config.session_id = fresh.session_id;
        config.unix_ms = fresh.unix_ms;
        config.rng_seed = fresh.rng_seed;
        config.today = fresh.today;
        config.issue = None;
        config.requested.issue = None;
        config.requested.from_pr = None;
        config.requested.worktree = None;
        config.requested.resume = resume.is_some();
        config.resume = resume;
        config
    }

    /// A config with every flag off, no model and no provider: what `luxe --rpc` gets in an
    /// empty environment.
    pub fn new(luxe_version: &str, session_id: &str, cwd: &str) -> Self {
        Self {
            luxe_version: luxe_version.to_owned(),
            session_id: session_id.to_owned(),
            cwd: cwd.to_owned(),
            model: None,
            requested: Requested::default(),
            sessions_dir: None,
            reviews_dir: None,
            unix_ms: 0,
            issue: None,
            resume: None,
            env_files: Vec::new(),
            providers: Providers::default(),
            settings: Vec::new(),
            timings: Timings::default(),
            rng_seed: 0,
            platform: "linux x86_64".to_owned(),
            today: "2026-01-01".to_owned(),
            permission_mode: None,
            yolo: false,
            read_only: false,
            auto_approve: false,
            questions: true,
            github_writes: false,
            trust_project: false,
            max_frame_bytes: MAX_FRAME_BYTES,
            env_names: Vec::new(),
            mcp_env: crate::mcp::config::HostEnv::default(),
            extra_mcp_servers: Vec::new(),
            luxe_home: None,
            guarded_resolved: Vec::new(),
        }
    }

    /// The mode in force: read-only (from a flag or a settings file) wins over everything, then
    /// `--yolo`, then `--permission-mode`, then the settings files' mode, else `default`.
    pub fn effective_permission_mode(&self, settings: Option<PermissionMode>) -> PermissionMode {
        let read_only = PermissionMode::ReadOnly;
        if self.read_only || self.permission_mode == Some(read_only) || settings == Some(read_only)
        {
            read_only
        } else if self.yolo {
            PermissionMode::Bypass
        } else {
            self.permission_mode.or(settings).unwrap_or_default()
        }
    }
}

/// Why a session cannot start; the binary prints it as one line and exits 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

#[cfg(test)]
mod next_session_tests {
    use super::*;

    #[test]
    fn a_next_session_keeps_the_flags_and_drops_the_first_ones_start_up() {
        let mut base = Config::new("0", "first", "/repo");
        base.github_writes = true;
        base.requested.from_pr = Some(7);
        base.requested.worktree = Some(None);
        let fresh = Fresh {
            session_id: "second".into(),
            unix_ms: 5,
            rng_seed: 9,
            today: "2026-12-06".into(),
        };
        let file = SessionFile {
            path: "/s/old.jsonl".into(),
            bytes: Vec::new(),
        };
        let next = base.next_session(fresh, Some(file));
        assert_eq!((next.session_id.as_str(), next.rng_seed), ("second", 9));
        assert!(next.github_writes && next.requested.resume && next.resume.is_some());
        assert_eq!(
            (next.requested.from_pr, next.requested.worktree),
            (None, None)
        );
        assert_eq!(next.cwd, "/repo");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_from_variables() {
        let none = Providers::from_vars(&ProviderVars::default());
        assert_eq!(none, Providers::default());
        let vars = ProviderVars {
            anthropic_base_url: Some("http://proxy/".into()),
            openai_base_url: Some("http://127.0.0.1:11434/v1/".into()),
            ..ProviderVars::default()
        };
        let p = Providers::from_vars(&vars);
        assert!(
            p.anthropic.is_none(),
            "a base URL without a key is not enough for Anthropic"
        );
        let openai = p.openai.unwrap();
        assert_eq!(openai.base_url, "http://127.0.0.1:11434/v1");
        assert_eq!(openai.api_key, None);
        let vars = ProviderVars {
            anthropic_api_key: Some("k".into()),
            ..ProviderVars::default()
        };
        let anthropic = Providers::from_vars(&vars).anthropic.unwrap();
        assert_eq!(anthropic.base_url, "https://api.anthropic.com");
    }

    #[test]
    fn read_only_wins_over_yolo_and_modes() {
        let mut config = Config::new("0", "s", "/");
        assert_eq!(
            config.effective_permission_mode(Some(PermissionMode::AcceptEdits)),
            PermissionMode::AcceptEdits
        );
        config.yolo = true;
        assert_eq!(
            config.effective_permission_mode(None),
            PermissionMode::Bypass
        );
        assert_eq!(
            config.effective_permission_mode(Some(PermissionMode::ReadOnly)),
            PermissionMode::ReadOnly
        );
        config.permission_mode = Some(PermissionMode::AcceptEdits);
        assert_eq!(
            config.effective_permission_mode(None),
            PermissionMode::Bypass
        );
        config.read_only = true;
        assert_eq!(
            config.effective_permission_mode(None),
            PermissionMode::ReadOnly
        );
        config.read_only = false;
        config.yolo = false;
        assert_eq!(
            config.effective_permission_mode(Some(PermissionMode::Bypass)),
            PermissionMode::AcceptEdits
        );
        config.permission_mode = Some(PermissionMode::ReadOnly);
        assert_eq!(
            config.effective_permission_mode(None),
            PermissionMode::ReadOnly
        );
    }
}
