//! What a session in a directory starts from, gathered as the binary gathers it for the
//! process's own directory at start-up (`luxe --acp` asks for it per ACP session).

use std::path::Path;

use luxe_core::acp::Site;
use luxe_core::session::tools::paths::GUARDED_DIRS;

use crate::environment;

/// The facts of `cwd`, or why no session can run there (not a directory, unreadable settings).
pub fn prepare(cwd: &str) -> Result<Site, String> {
    let dir = std::fs::canonicalize(cwd).map_err(|err| format!("{cwd}: {err}"))?;
    if !dir.is_dir() {
        return Err(format!("{cwd} is not a directory"));
    }
    let cwd = dir.to_string_lossy().into_owned();
    let home = environment::luxe_home();
    let settings = environment::settings_files(home.as_deref(), &dir)?;
    let home = home
        .map(|h| std::path::absolute(&h).unwrap_or(h))
        .map(|h| h.to_string_lossy().into_owned());
    let guarded_resolved = GUARDED_DIRS
        .iter()
        .map(|d| format!("{cwd}/{d}"))
        .chain(home)
        .filter_map(|path| environment::resolved(&path))
        .collect();
    Ok(Site {
        session_id: environment::new_session_id(),
        unix_ms: environment::unix_ms(),
        rng_seed: environment::random_seed(),
        settings,
        env_files: environment::env_files(Path::new(&cwd)),
        guarded_resolved,
        cwd,
    })
}
