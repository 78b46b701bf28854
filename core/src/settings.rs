//! Settings files (`$LUXE_HOME/settings.json`, `.luxe/settings.json`), parsed strictly: a file
//! that does not parse stops start-up with `file:line:column: what is wrong`.

use serde::Deserialize;

/// A settings file as io read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsSource {
    /// Where it was read, for messages.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// What a settings file says (the Permissions capability adds `permissions`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Settings {
    /// The default model, `provider/model`.
    #[serde(default)]
    pub model: Option<String>,
}

/// Parses one file; the error is `path:line:column: message`.
pub fn parse(source: &SettingsSource) -> Result<Settings, String> {
    serde_json::from_str(&source.text).map_err(|err| {
        let message = err.to_string();
        // serde_json appends " at line L column C"; the position goes in front instead.
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        format!("{}:{}:{}: {message}", source.path, err.line(), err.column())
    })
}

/// The model the files name: the last file that names one wins (project after user).
pub fn model(sources: &[SettingsSource]) -> Result<Option<String>, String> {
    let mut model = None;
    for source in sources {
        if let Some(m) = parse(source)?.model {
            model = Some(m);
        }
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(text: &str) -> SettingsSource {
        SettingsSource {
            path: "/home/u/.luxe/settings.json".into(),
            text: text.into(),
        }
    }

    #[test]
    fn broken_file_names_file_line_and_column() {
        let err = parse(&src("{\n  \"model\": \"openai/x\",\n}")).unwrap_err();
        assert_eq!(err, "/home/u/.luxe/settings.json:3:1: trailing comma");
        let err = parse(&src("{\"model\": 5}")).unwrap_err();
        assert!(err.starts_with("/home/u/.luxe/settings.json:1:"), "{err}");
    }

    #[test]
    fn later_files_win() {
        let user = src(r#"{"model":"anthropic/claude-haiku-4-5"}"#);
        let project = src(r#"{"model":"openai/gpt-5"}"#);
        assert_eq!(
            model(&[user.clone(), project]).unwrap().as_deref(),
            Some("openai/gpt-5")
        );
        assert_eq!(
            model(&[user, src("{}")]).unwrap().as_deref(),
            Some("anthropic/claude-haiku-4-5")
        );
    }
}
