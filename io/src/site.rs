//! What a session in a directory starts from, gathered as the binary gathers it for the
//! process's own directory at start-up (`luxe --acp` asks for it per ACP session).

use std::path::Path;

use luxe_core::config::{Home, settings_files};
use luxe_core::effects::Site;

use crate::environment;

/// The facts of `cwd`, or why no session can run there (not a directory, unreadable settings).
pub fn prepare(cwd: &str) -> Result<Site, String> {
    let dir = std::fs::canonicalize(cwd).map_err(|err| format!("{cwd}: {err}"))?;
    if !dir.is_dir() {
        return Err(format!("{cwd} is not a directory"));
    }
    let cwd = dir.to_string_lossy().into_owned();
    let home = Home::from_vars(&environment::vars(), environment::home_dir().as_deref());
    let settings = environment::settings_files(&settings_files(home.as_ref(), &cwd))?;
    let luxe_home = home.as_ref().map(|h| environment::absolute(h.path()));
    let guarded_resolved = environment::resolved_guards(&cwd, luxe_home.as_deref());
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
