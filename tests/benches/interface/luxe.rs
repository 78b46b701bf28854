//! luxe as the benchmark starts it, and what its first screen is.

use std::path::Path;

use luxe_tests::process::luxe_bin;
use portable_pty::CommandBuilder;
use vt100::Screen;

use crate::first_screen::{Keys, Program, fresh_command};

/// `luxe` with `args`, in `cwd`, with `home` as its `HOME` (so `LUXE_HOME` is `home/.luxe`).
pub fn command(home: &Path, cwd: &Path, args: &[&str]) -> CommandBuilder {
    let mut cmd = fresh_command(luxe_bin(), home, cwd);
    cmd.args(args);
    cmd
}

/// Whether the composer is on screen: the row above the dock (the last row) starts with `›`.
pub fn composer_shown(screen: &Screen) -> bool {
    let (rows, cols) = screen.size();
    let above_dock = rows.get().saturating_sub(2);
    screen
        .rows(0, cols.get())
        .nth(usize::from(above_dock))
        .is_some_and(|row| row.starts_with('›'))
}

/// `luxe` with no flags, as a person starts it.
pub fn program() -> Program {
    Program {
        name: format!("luxe {}", env!("CARGO_PKG_VERSION")),
        command: Box::new(|home, cwd| command(home, cwd, &[])),
        first_screen: composer_shown,
        keys: Keys::Echo,
    }
}
