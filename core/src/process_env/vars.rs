//! [`EnvVars`]: luxe's own environment as io read it at start, for core to decide from.

use std::collections::BTreeMap;

/// Every variable of luxe's environment whose name is UTF-8, as io read it at start.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct EnvVars {
    /// Each value; `Err` holds one that is not UTF-8, made lossy.
    vars: BTreeMap<String, Result<String, String>>,
}

impl std::fmt::Debug for EnvVars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Values are keys and tokens: never in a log.
        f.debug_set().entries(self.vars.keys()).finish()
    }
}

impl EnvVars {
    /// The variables as read: each name with its value, or with its lossy text when the value
    /// is not UTF-8.
    pub fn new(vars: impl IntoIterator<Item = (String, Result<String, String>)>) -> Self {
        Self {
            vars: vars.into_iter().collect(),
        }
    }

    /// The value of `name`; an empty value, or one that is not UTF-8, counts as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        match self.vars.get(name)? {
            Ok(value) if !value.is_empty() => Some(value),
            _ => None,
        }
    }

    /// The value of `name` as a path, lossy when it is not UTF-8; an empty one is unset.
    pub fn path(&self, name: &str) -> Option<&str> {
        let (Ok(value) | Err(value)) = self.vars.get(name)?;
        (!value.is_empty()).then_some(value.as_str())
    }

    /// Every variable's name (core decides which the model's commands do not inherit).
    pub fn names(&self) -> Vec<String> {
        self.vars.keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_non_utf8_values_are_unset_except_as_paths() {
        let env = EnvVars::new([
            ("EMPTY".to_owned(), Ok(String::new())),
            ("BYTES".to_owned(), Err("/home/\u{fffd}".to_owned())),
            ("SET".to_owned(), Ok("v".to_owned())),
        ]);
        assert_eq!(env.get("EMPTY"), None);
        assert_eq!(env.get("BYTES"), None);
        assert_eq!(env.get("SET"), Some("v"));
        assert_eq!(env.get("MISSING"), None);
        assert_eq!(env.path("BYTES"), Some("/home/\u{fffd}"));
        assert_eq!(env.path("EMPTY"), None);
        assert_eq!(env.names(), ["BYTES", "EMPTY", "SET"]);
        assert_eq!(format!("{env:?}"), r#"{"BYTES", "EMPTY", "SET"}"#);
    }
}
