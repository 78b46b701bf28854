//! Which settings files a session starts from, from what io found at each candidate path
//! ([`super::settings_files`] names them): an absent file is no settings, and one that is there
//! but cannot be read stops luxe before anything starts, since a rule the user wrote there (a
//! `deny`) must never be dropped without a word.

use crate::effects::{Scope, SettingsSource};

/// What io found at a settings file's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsRead {
    /// The file was read: its whole content, not yet parsed.
    Text(String),
    /// Nothing is there.
    Absent,
    /// Something is there that could not be read as text, in the system's words.
    Failed(String),
}

/// The settings files that exist, in the candidates' order (lowest precedence first); the
/// line luxe exits with when one cannot be read.
pub fn settings_sources(
    reads: impl IntoIterator<Item = (String, Scope, SettingsRead)>,
) -> Result<Vec<SettingsSource>, String> {
    let mut found = Vec::new();
    for (path, scope, read) in reads {
        match read {
            SettingsRead::Text(text) => found.push(SettingsSource { path, text, scope }),
            SettingsRead::Absent => {}
            SettingsRead::Failed(err) => return Err(format!("{path}: {err}")),
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_files_are_no_settings_and_an_unreadable_one_is_fatal() {
        let user = ("/h/settings.json".to_owned(), Scope::User);
        let project = ("/w/.luxe/settings.json".to_owned(), Scope::Project);
        let read = |(path, scope): &(String, Scope), read| (path.clone(), *scope, read);
        assert_eq!(
            settings_sources([
                read(&user, SettingsRead::Absent),
                read(&project, SettingsRead::Text("{}".into())),
            ]),
            Ok(vec![SettingsSource {
                path: project.0.clone(),
                text: "{}".into(),
                scope: Scope::Project,
            }])
        );
        assert_eq!(
            settings_sources([
                read(
                    &user,
                    SettingsRead::Failed("Permission denied (os error 13)".into())
                ),
                read(&project, SettingsRead::Text("{}".into())),
            ]),
            Err("/h/settings.json: Permission denied (os error 13)".to_owned())
        );
        assert_eq!(settings_sources([]), Ok(Vec::new()));
    }
}
