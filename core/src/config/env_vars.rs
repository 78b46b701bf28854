//! What luxe's environment variables ([`EnvVars`]) mean to its config: which name overrides
//! which wait ([`Timings::from_vars`]) and which names configure the providers
//! ([`ProviderVars::from_vars`]). io and the binary only collect the variables.

use std::time::Duration;

use super::{ProviderVars, Timings};
use crate::process_env::EnvVars;

/// A wait that a variable overrides, and where it goes.
type Override = (&'static str, fn(&mut Timings) -> &mut Duration);

/// The variables that override waits, in milliseconds (tests run them short).
const TIMING_VARS: &[Override] = &[
    ("LUXE_BASH_TIMEOUT_MS", |t| &mut t.bash_timeout),
    ("LUXE_RETRY_BASE_MS", |t| &mut t.retry_base),
    ("LUXE_RETRY_MAX_MS", |t| &mut t.retry_max),
    ("LUXE_MODEL_IDLE_TIMEOUT_MS", |t| &mut t.model_idle_timeout),
    ("LUXE_GH_TIMEOUT_MS", |t| &mut t.gh_timeout),
    ("LUXE_GIT_TIMEOUT_MS", |t| &mut t.git_timeout),
    ("LUXE_GITHUB_POLL_MS", |t| &mut t.github_poll),
    ("LUXE_SERVER_PROBE_TIMEOUT_MS", |t| {
        &mut t.server_probe_timeout
    }),
    ("LUXE_WINDOW_WAIT_MS", |t| &mut t.window_wait),
    ("LUXE_MCP_TIMEOUT_MS", |t| &mut t.mcp_timeout),
    ("LUXE_MCP_RESTART_MS", |t| &mut t.mcp_restart),
];

impl Timings {
    /// The default waits, each overridden by its `LUXE_*_MS` variable; a value that is not a
    /// whole number of milliseconds leaves the default.
    pub fn from_vars(vars: &EnvVars) -> Self {
        let mut timings = Self::default();
        for (name, wait) in TIMING_VARS {
            if let Some(ms) = vars.get(name).and_then(|value| value.parse::<u64>().ok()) {
                *wait(&mut timings) = Duration::from_millis(ms);
            }
        }
        timings
    }
}

impl ProviderVars {
    /// The standard provider variables among `vars`.
    pub fn from_vars(vars: &EnvVars) -> Self {
        let var = |name: &str| vars.get(name).map(str::to_owned);
        Self {
            anthropic_api_key: var("ANTHROPIC_API_KEY"),
            anthropic_base_url: var("ANTHROPIC_BASE_URL"),
            openai_api_key: var("OPENAI_API_KEY"),
            openai_base_url: var("OPENAI_BASE_URL"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> EnvVars {
        EnvVars::new(
            pairs
                .iter()
                .map(|(name, value)| ((*name).to_owned(), Ok((*value).to_owned()))),
        )
    }

    #[test]
    fn each_wait_has_its_variable_in_milliseconds() {
        assert_eq!(Timings::from_vars(&EnvVars::default()), Timings::default());
        let all: Vec<(&str, &str)> = TIMING_VARS.iter().map(|(name, _)| (*name, "7")).collect();
        let timings = Timings::from_vars(&vars(&all));
        let seven = Duration::from_millis(7);
        assert_eq!(
            timings,
            Timings {
                bash_timeout: seven,
                retry_base: seven,
                retry_max: seven,
                model_idle_timeout: seven,
                gh_timeout: seven,
                git_timeout: seven,
                github_poll: seven,
                server_probe_timeout: seven,
                window_wait: seven,
                mcp_timeout: seven,
                mcp_restart: seven,
                ..Timings::default()
            }
        );
        assert_eq!(
            timings.max_attempts,
            Timings::default().max_attempts,
            "not a wait"
        );
    }

    #[test]
    fn a_wait_that_is_not_milliseconds_keeps_its_default() {
        for odd in ["", "-1", "1.5", "10s", " 5"] {
            let timings = Timings::from_vars(&vars(&[("LUXE_BASH_TIMEOUT_MS", odd)]));
            assert_eq!(timings, Timings::default(), "{odd:?}");
        }
        let timings = Timings::from_vars(&vars(&[("LUXE_GH_TIMEOUT_MS", "0")]));
        assert_eq!(timings.gh_timeout, Duration::ZERO);
    }

    #[test]
    fn provider_variables_by_their_standard_names() {
        let env = vars(&[
            ("ANTHROPIC_API_KEY", "a-key"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1"),
            ("OPENAI_API_KEY", ""),
        ]);
        assert_eq!(
            ProviderVars::from_vars(&env),
            ProviderVars {
                anthropic_api_key: Some("a-key".into()),
                anthropic_base_url: None,
                openai_api_key: None,
                openai_base_url: Some("http://127.0.0.1:8080/v1".into()),
            }
        );
    }
}
