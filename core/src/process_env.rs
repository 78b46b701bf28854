//! Luxe's own environment ([`EnvVars`], as io read it) and what the processes it starts get of
//! it. The commands Luxe runs for the model (the `bash` tool) get Luxe's own, less the
//! providers' keys and every variable whose name looks like a secret, so that `env` or
//! `echo $GITHUB_TOKEN` cannot hand the model a credential. gh and git that Luxe runs for itself
//! keep the rest of the environment (they need the user's tokens to do their work) but not the
//! providers' keys either: a hook or `core.fsmonitor` the model wrote would run inside them; nor
//! does an MCP server, whatever its settings name.

mod vars;

pub use vars::EnvVars;

/// Parts of a name that mark a variable as a secret, compared without case (the defaults
/// Codex's shell environment policy strips, and the other common spellings).
const SECRET_MARKS: [&str; 7] = [
    "KEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "DATABASE_URL",
];

/// Endings that mark one too (`MYSQL_PWD`, `NPM_AUTH`, `GITLAB_PAT`, `SENTRY_DSN`), where the
/// same letters inside a name mean nothing secret (`PWD`, `GIT_AUTHOR_NAME`).
const SECRET_ENDINGS: [&str; 4] = ["_PWD", "_AUTH", "_PAT", "_DSN"];

/// The providers' credentials: never passed, whatever the settings say, since a command the
/// model runs could send the key the user pays with anywhere.
const PROVIDER_KEYS: [&str; 3] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// Whether `name` is one of the providers' credentials, which no process luxe starts gets.
pub fn is_provider_key(name: &str) -> bool {
    PROVIDER_KEYS.contains(&name)
}

/// Whether a variable named `name` is withheld unless the settings pass it.
fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKS.iter().any(|mark| upper.contains(mark))
        || SECRET_ENDINGS.iter().any(|end| upper.ends_with(end))
}

/// The providers' keys among `names`: what no command Luxe starts, its own included, gets.
pub fn provider_keys(names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|name| PROVIDER_KEYS.contains(&name.as_str()))
        .cloned()
        .collect()
}

/// The names among `names` (Luxe's environment) that the model's commands do not get: the
/// providers' keys always, the secret-looking ones unless `pass` names them exactly.
pub fn withheld(names: &[String], pass: &[String]) -> Vec<String> {
    let mut out: Vec<String> = names
        .iter()
        .filter(|name| {
            PROVIDER_KEYS.contains(&name.as_str())
                || (looks_secret(name) && !pass.iter().any(|p| p == *name))
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn secret_looking_names_and_provider_keys_are_withheld() {
        let env = names(&[
            "PATH",
            "HOME",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "gh_token",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "MYSQL_PWD_PASSWD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "LANG",
            "SSH_AUTH_SOCK",
            "PWD",
            "GIT_AUTHOR_NAME",
            "MYSQL_PWD",
            "NPM_AUTH",
            "GITLAB_PAT",
            "SENTRY_DSN",
            "DATABASE_URL",
        ]);
        assert_eq!(
            withheld(&env, &[]),
            names(&[
                "ANTHROPIC_API_KEY",
                "AWS_SECRET_ACCESS_KEY",
                "DATABASE_URL",
                "DB_PASSWORD",
                "GITHUB_TOKEN",
                "GITLAB_PAT",
                "GOOGLE_APPLICATION_CREDENTIALS",
                "MYSQL_PWD",
                "MYSQL_PWD_PASSWD",
                "NPM_AUTH",
                "OPENAI_API_KEY",
                "SENTRY_DSN",
                "gh_token",
            ])
        );
    }

    #[test]
    fn luxes_own_commands_lose_only_the_providers_keys() {
        let env = names(&[
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "PATH",
        ]);
        assert_eq!(
            provider_keys(&env),
            names(&["OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN"])
        );
    }

    #[test]
    fn settings_pass_named_ones_but_never_a_providers_key() {
        let env = names(&["GITHUB_TOKEN", "NPM_TOKEN", "OPENAI_API_KEY"]);
        let pass = names(&["GITHUB_TOKEN", "OPENAI_API_KEY", "github_token"]);
        assert_eq!(
            withheld(&env, &pass),
            names(&["NPM_TOKEN", "OPENAI_API_KEY"])
        );
    }
}
