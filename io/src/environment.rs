//! Facts about the world that the core is given at start: the working directory, the
//! environment's variables (core decides what they mean), the home directory, the files a
//! session starts from, and a fresh session id.

use std::collections::hash_map::RandomState;
use std::env;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use luxe_core::config::{
    EnvEntry, EnvSearch, SettingsRead, WalkedEntry, session_id, settings_sources, utc_date,
};
use luxe_core::effects::FileIdentity;
use luxe_core::effects::{EnvFile, Scope, SettingsSource};
use luxe_core::paths::GUARDED_DIRS;
use luxe_core::process_env::EnvVars;

/// The process's working directory, as a string (lossy for non-UTF-8 paths).
pub fn cwd() -> std::io::Result<String> {
    // Resolved, so that tool paths (resolved the same way) compare against it.
    let dir = env::current_dir()?;
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    Ok(dir.to_string_lossy().into_owned())
}

/// Every variable of luxe's environment whose name is UTF-8 (a value that is not is handed
/// over lossy, marked so).
pub fn vars() -> EnvVars {
    EnvVars::new(env::vars_os().filter_map(|(name, value)| {
        let value = value
            .into_string()
            .map_err(|value| value.to_string_lossy().into_owned());
        Some((name.into_string().ok()?, value))
    }))
}

/// The user's home directory, as the platform finds it.
pub fn home_dir() -> Option<String> {
    env::home_dir().map(|home| home.to_string_lossy().into_owned())
}

/// `path` made absolute against luxe's working directory, without touching the filesystem.
pub fn absolute(path: &str) -> String {
    std::path::absolute(path).map_or_else(
        |_| path.to_owned(),
        |path| path.to_string_lossy().into_owned(),
    )
}

/// `path` with its symlinks resolved (for a path that does not exist yet, its deepest existing
/// ancestor resolved and the rest appended), when it can be.
pub fn resolved(path: &str) -> Option<String> {
    crate::files::resolve(path).ok()
}

/// The guarded directories of a session in `cwd` (core's `GUARDED_DIRS`) and `luxe_home`,
/// with their symlinks resolved as the filesystem sees them now.
pub fn resolved_guards(cwd: &str, luxe_home: Option<&str>) -> Vec<String> {
    GUARDED_DIRS
        .iter()
        .map(|dir| format!("{cwd}/{dir}"))
        .chain(luxe_home.map(str::to_owned))
        .filter_map(|path| resolved(&path))
        .collect()
}

/// Every `.env` file under `cwd` that core's [`EnvSearch`] keeps, read whole; links to
/// directories are not followed.
pub fn env_files(cwd: &Path) -> Vec<EnvFile> {
    let walk = ignore::WalkBuilder::new(cwd)
        .standard_filters(false)
        .filter_entry(|entry| EnvSearch::enters(&entry.file_name().to_string_lossy()))
        .build();
    let mut search = EnvSearch::new(&cwd.display().to_string());
    for entry in walk {
        let entry = entry.ok();
        let walked = entry
            .as_ref()
            .map(|entry| (entry.file_name().to_string_lossy(), entry));
        let next = search.next(walked.as_ref().map(|(name, entry)| WalkedEntry {
            name,
            is_dir: entry.file_type().is_some_and(|t| t.is_dir()),
        }));
        match (next, entry) {
            (EnvEntry::Stop(line), _) => {
                tracing::warn!("{line}");
                break;
            }
            (EnvEntry::Read, Some(entry)) => {
                let path = entry.path();
                let identity = std::fs::metadata(path).ok().map(|m| FileIdentity {
                    dev: std::os::unix::fs::MetadataExt::dev(&m),
                    ino: std::os::unix::fs::MetadataExt::ino(&m),
                });
                let read = std::fs::read(path).map_err(|err| err.to_string());
                let path = path.to_string_lossy().into_owned();
                if let Some(line) = search.read(path, identity, read) {
                    tracing::warn!("{line}");
                }
            }
            _ => {}
        }
    }
    search.found()
}

/// The settings files among `candidates` (core's, lowest precedence first) that exist, as
/// core's [`settings_sources`] decides from what is at each path.
pub fn settings_files(candidates: &[(String, Scope)]) -> Result<Vec<SettingsSource>, String> {
    settings_sources(candidates.iter().map(|(path, scope)| {
        let read = match std::fs::read_to_string(path) {
            Ok(text) => SettingsRead::Text(text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => SettingsRead::Absent,
            Err(err) => SettingsRead::Failed(err.to_string()),
        };
        (path.clone(), *scope, read)
    }))
}

/// The session files in `dir` as `-c` looks at them: each one's path, first bytes (core's
/// [`luxe_core::store::HEAD_BYTES`] at most) and last write (seconds since the epoch); an
/// absent directory holds none.
pub fn session_heads(dir: &str) -> Result<Vec<(String, Vec<u8>, u64)>, String> {
    let head = crate::files::SessionBytes::Head(luxe_core::store::HEAD_BYTES);
    crate::files::read_sessions(dir, head)
}

/// `os arch`, for the system prompt.
pub fn platform() -> String {
    format!("{} {}", env::consts::OS, env::consts::ARCH)
}

/// Today's date in UTC, as core's [`utc_date`] writes it.
pub fn today() -> String {
    utc_date(unix_ms())
}

/// The wall clock in milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A seed for the core's retry jitter.
pub fn random_seed() -> u64 {
    random_bits(0x5eed)
}

/// A new session id, as core's [`session_id`] forms it from the wall clock and 64 random bits.
pub fn new_session_id() -> String {
    session_id(unix_ms(), random_bits(u64::from(std::process::id())))
}

/// 64 bits from the OS's per-process random hasher keys, mixed with `salt`: enough to keep
/// concurrent sessions apart, with no dependency for randomness.
fn random_bits(salt: u64) -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(salt);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_are_found_anywhere_under_cwd_ignored_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(".gitignore", ".env*\nnode_modules/\n");
        write(".env", "A=1");
        write("app/.ENV.local", "B=2");
        write("node_modules/pkg/.env.test", "C=3");
        write(".env.example", "D=4");
        write(".envrc", "E=5");
        write(".git/.env", "F=6");
        std::os::unix::fs::symlink(root.join(".env"), root.join("app/.env.linked")).unwrap();
        let mut found: Vec<(String, Vec<u8>)> = env_files(root)
            .into_iter()
            .map(|f| {
                (
                    f.path
                        .strip_prefix(&*root.to_string_lossy())
                        .unwrap()
                        .to_owned(),
                    f.bytes,
                )
            })
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                ("/.env".to_owned(), b"A=1".to_vec()),
                ("/app/.ENV.local".to_owned(), b"B=2".to_vec()),
                ("/app/.env.linked".to_owned(), b"A=1".to_vec()),
                ("/node_modules/pkg/.env.test".to_owned(), b"C=3".to_vec()),
            ]
        );
    }

    #[test]
    fn session_heads_are_the_first_bytes_of_session_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("one.jsonl", "{\"header\":1}\n{\"more\":2}\n");
        let long = "x".repeat(20_000);
        write("long.jsonl", &long);
        write("torn.jsonl", "no newline");
        write(".jsonl", "hidden\n");
        write("one.jsonl.tmp", "partial\n");
        let dir_path = dir.path().to_string_lossy().into_owned();
        let mut found: Vec<(String, Vec<u8>)> = session_heads(&dir_path)
            .unwrap()
            .into_iter()
            .map(|(path, first, _)| (path.rsplit('/').next().unwrap().to_owned(), first))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                ("long.jsonl".to_owned(), long.as_bytes()[..8192].to_vec()),
                (
                    "one.jsonl".to_owned(),
                    b"{\"header\":1}\n{\"more\":2}\n".to_vec()
                ),
                ("torn.jsonl".to_owned(), b"no newline".to_vec()),
            ]
        );
        let absent = format!("{dir_path}/none");
        assert_eq!(session_heads(&absent).unwrap(), []);
    }

    #[test]
    fn session_ids_differ_and_lead_with_the_time() {
        let a = new_session_id();
        let b = new_session_id();
        assert_ne!(a, b);
        let (millis, random) = a.split_once('-').unwrap();
        assert_eq!((millis.len(), random.len()), (12, 16));
        assert!(u64::from_str_radix(millis, 16).unwrap() > 0);
    }
}
