//! What a session in a directory starts from, gathered as the binary gathers it for the
//! process's own directory at start-up (`luxe --acp` asks for it per ACP session).

use std::path::Path;

use luxe_core::acp::site_dir::site_dir;
use luxe_core::config::{Home, settings_files};
use luxe_core::effects::Site;

use crate::environment;

/// The facts of `cwd`, or why no session can run there (core's [`site_dir`]; unreadable
/// settings).
pub fn prepare(cwd: &str) -> Result<Site, String> {
    let found = std::fs::canonicalize(cwd)
        .map(|dir| (dir.to_string_lossy().into_owned(), dir.is_dir()))
        .map_err(|err| err.to_string());
    let cwd = site_dir(cwd, found)?;
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
