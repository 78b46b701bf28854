//! Where luxe keeps its files ([`Home`]: `$LUXE_HOME`, else `~/.luxe`), which settings files
//! a session reads, and which stored session `-c` or `--resume` opens ([`Resume`]).

use crate::effects::Scope;
use crate::process_env::EnvVars;
use crate::store;

/// `$LUXE_HOME`: sessions in `sessions/`, review sessions in `reviews/`, the user's settings
/// in `settings.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    path: String,
}

impl Home {
    /// `LUXE_HOME` when set (not empty), else `.luxe` in the user's home directory (as io
    /// found it); `None` when neither is known.
    pub fn from_vars(vars: &EnvVars, home_dir: Option<&str>) -> Option<Self> {
        let path = match vars.path("LUXE_HOME") {
            Some(home) => home.to_owned(),
            None => join(home_dir?, ".luxe"),
        };
        Some(Self { path })
    }

    /// The directory, as given (perhaps relative to luxe's working directory).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Where session files live.
    pub fn sessions_dir(&self) -> String {
        join(&self.path, "sessions")
    }

    /// Where review sessions live.
    pub fn reviews_dir(&self) -> String {
        join(&self.path, "reviews")
    }
}

/// The settings files a session in `cwd` reads if they exist, lowest precedence first: the
/// user's (in `home`), then the project's.
pub fn settings_files(home: Option<&Home>, cwd: &str) -> Vec<(String, Scope)> {
    let user = home.map(|home| (join(&home.path, "settings.json"), Scope::User));
    let project = (join(&join(cwd, ".luxe"), "settings.json"), Scope::Project);
    user.into_iter().chain([project]).collect()
}

/// `name` in directory `dir`, one `/` between them.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The stored session the flags ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// `-c`: this directory's most recently written session.
    Latest,
    /// `--resume ID`: the session stored as `ID.jsonl` in the sessions directory, whatever
    /// directory it ran in.
    Id(String),
}

/// Why no stored session can be opened without a home.
const NO_HOME: &str = "no LUXE_HOME and no home directory: no sessions are kept";

impl Resume {
    /// The file to read for a session in `cwd`, in `sessions_dir` (`None` without a home).
    /// `list` reads the directory's session files (path, head, last write), and is
    /// called only for `-c`. An error is the line luxe exits with.
    pub fn path(
        &self,
        sessions_dir: Option<&str>,
        cwd: &str,
        list: impl FnOnce(&str) -> Result<Vec<(String, Vec<u8>, u64)>, String>,
    ) -> Result<String, String> {
        let dir = sessions_dir.ok_or(NO_HOME)?;
        match self {
            Self::Id(id) => Ok(join(dir, &store::file_name(id)?)),
            Self::Latest => {
                // A directory that cannot be read has no session to continue, as one that
                // does not exist.
                let candidates = list(dir).unwrap_or_default();
                store::latest_for(&candidates, cwd)
                    .map(str::to_owned)
                    .ok_or_else(|| format!("-c: no session to continue in {cwd}"))
            }
        }
    }

    /// Why the file at `path` in `sessions_dir` could not be read (`absent`: it does not
    /// exist), as the line luxe exits with.
    pub fn unreadable(&self, sessions_dir: &str, path: &str, absent: bool, error: &str) -> String {
        match self {
            Self::Id(id) if absent => format!("--resume: no session {id} in {sessions_dir}"),
            _ => format!("{path}: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Record, encode};

    fn vars(luxe_home: Option<&str>) -> EnvVars {
        EnvVars::new(luxe_home.map(|home| ("LUXE_HOME".to_owned(), Ok(home.to_owned()))))
    }

    #[test]
    fn luxe_home_else_dot_luxe_in_the_home_directory() {
        let home = Home::from_vars(&vars(Some("/srv/luxe")), Some("/home/u")).unwrap();
        assert_eq!(home.path(), "/srv/luxe");
        assert_eq!(home.sessions_dir(), "/srv/luxe/sessions");
        assert_eq!(home.reviews_dir(), "/srv/luxe/reviews");
        let home = Home::from_vars(&vars(Some("")), Some("/home/u/")).unwrap();
        assert_eq!(home.path(), "/home/u/.luxe", "an empty LUXE_HOME is unset");
        let relative = Home::from_vars(&vars(Some("state/")), None).unwrap();
        assert_eq!(relative.sessions_dir(), "state/sessions");
        assert_eq!(Home::from_vars(&vars(None), None), None);
    }

    #[test]
    fn the_users_settings_then_the_projects() {
        let home = Home::from_vars(&vars(Some("/h")), None);
        assert_eq!(
            settings_files(home.as_ref(), "/work/app"),
            [
                ("/h/settings.json".to_owned(), Scope::User),
                ("/work/app/.luxe/settings.json".to_owned(), Scope::Project),
            ]
        );
        assert_eq!(
            settings_files(None, "/"),
            [("/.luxe/settings.json".to_owned(), Scope::Project)]
        );
    }

    #[test]
    fn resume_by_id_or_the_latest_of_this_directory() {
        // A session's head: its header and a first message.
        let header = |id: &str, cwd: &str| {
            let mut head = encode(&Record::Session {
                version: 1,
                id: id.into(),
                cwd: cwd.into(),
                created: "2026-01-01".into(),
            });
            head.extend(encode(&Record::Message {
                message: crate::model::conversation::Message {
                    role: crate::model::conversation::Role::User,
                    content: Vec::new(),
                },
                by: None,
            }));
            head
        };
        let no_listing = |_: &str| -> Result<Vec<(String, Vec<u8>, u64)>, String> {
            panic!("--resume does not list the directory")
        };
        let by_id = Resume::Id("abc".into());
        assert_eq!(
            by_id.path(Some("/h/sessions"), "/w", no_listing).unwrap(),
            "/h/sessions/abc.jsonl"
        );
        assert_eq!(by_id.path(None, "/w", no_listing).unwrap_err(), NO_HOME);
        let sneaky = Resume::Id("../x".into());
        assert!(sneaky.path(Some("/h"), "/w", no_listing).is_err());

        let listing = |_: &str| {
            Ok(vec![
                ("/h/old.jsonl".to_owned(), header("old", "/w"), 1),
                ("/h/new.jsonl".to_owned(), header("new", "/w"), 5),
                (
                    "/h/other.jsonl".to_owned(),
                    header("other", "/elsewhere"),
                    9,
                ),
            ])
        };
        assert_eq!(
            Resume::Latest.path(Some("/h"), "/w", listing).unwrap(),
            "/h/new.jsonl"
        );
        let unreadable = |_: &str| Err("/h: permission denied".to_owned());
        assert_eq!(
            Resume::Latest
                .path(Some("/h"), "/w", unreadable)
                .unwrap_err(),
            "-c: no session to continue in /w"
        );
    }

    #[test]
    fn a_session_that_cannot_be_read_in_words() {
        let by_id = Resume::Id("abc".into());
        assert_eq!(
            by_id.unreadable("/h/sessions", "/h/sessions/abc.jsonl", true, "No such file"),
            "--resume: no session abc in /h/sessions"
        );
        assert_eq!(
            by_id.unreadable("/h/sessions", "/h/sessions/abc.jsonl", false, "denied"),
            "/h/sessions/abc.jsonl: denied"
        );
        assert_eq!(
            Resume::Latest.unreadable("/h", "/h/x.jsonl", true, "gone"),
            "/h/x.jsonl: gone"
        );
    }
}
