//! Facts about the world that the core is given at start: the working directory, which model
//! providers the environment configures, where `LUXE_HOME` is, and a fresh session id.

use std::collections::hash_map::RandomState;
use std::env;
use std::hash::{BuildHasher, Hasher};
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use luxe_core::model::catalogue::ProviderAccess;

/// The process's working directory, as a string (lossy for non-UTF-8 paths).
pub fn cwd() -> std::io::Result<String> {
    Ok(env::current_dir()?.to_string_lossy().into_owned())
}

/// Which providers have credentials or an endpoint in the standard variables.
pub fn provider_access() -> ProviderAccess {
    ProviderAccess {
        anthropic: is_set("ANTHROPIC_API_KEY"),
        openai: is_set("OPENAI_API_KEY") || is_set("OPENAI_BASE_URL"),
    }
}

/// `LUXE_HOME`, else `~/.luxe`; `None` when neither can be found.
pub fn luxe_home() -> Option<PathBuf> {
    match env::var_os("LUXE_HOME").filter(|v| !v.is_empty()) {
        Some(home) => Some(PathBuf::from(home)),
        None => env::home_dir().map(|home| home.join(".luxe")),
    }
}

/// A new session id: milliseconds since the epoch (so ids sort by age) and 64 random bits.
pub fn new_session_id() -> String {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    // RandomState is seeded from the OS per process: enough to keep concurrent sessions apart.
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    format!("{millis:012x}-{:016x}", hasher.finish())
}

fn is_set(name: &str) -> bool {
    env::var_os(name).is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

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
