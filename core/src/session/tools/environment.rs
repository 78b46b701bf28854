//! The environment of the commands Luxe runs for the model (the `bash` tool): Luxe's own, less
//! the providers' keys and every variable whose name looks like a secret, so that `env` or
//! `echo $GITHUB_TOKEN` cannot hand the model a credential. gh and git that Luxe runs for itself
//! keep the whole environment: they need the user's tokens to do their work.

/// Parts of a name that mark a variable as a secret, compared without case (the defaults
/// Codex's shell environment policy strips, and the other common spellings).
const SECRET_MARKS: [&str; 6] = ["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// The providers' credentials: never passed, whatever the settings say, since a command the
/// model runs could send the key the user pays with anywhere.
const PROVIDER_KEYS: [&str; 3] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// Whether a variable named `name` is withheld unless the settings pass it.
fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKS.iter().any(|mark| upper.contains(mark))
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
        ]);
        assert_eq!(
            withheld(&env, &[]),
            names(&[
                "ANTHROPIC_API_KEY",
                "AWS_SECRET_ACCESS_KEY",
                "DB_PASSWORD",
                "GITHUB_TOKEN",
                "GOOGLE_APPLICATION_CREDENTIALS",
                "MYSQL_PWD_PASSWD",
                "OPENAI_API_KEY",
                "gh_token",
            ])
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
