//! Placeholder analysis, replaced by the full one on branch perm-bash.

/// What a command line does, as far as permissions care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// One simple command.
    pub simple: bool,
    /// Some word names a `.env` file.
    pub names_env_file: bool,
    /// When the command may publish to GitHub.
    pub github_write: Option<String>,
}

/// Analyses a command line.
pub fn analyze(command: &str) -> CommandAnalysis {
    CommandAnalysis {
        simple: !command.contains([';', '&', '|', '`', '$', '\n', '>', '(']),
        names_env_file: command.split_whitespace().any(super::is_env_file),
        github_write: command.contains("git push").then(|| "git push".to_owned()),
    }
}
