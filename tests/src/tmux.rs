//! A real terminal for the interface's tests: a tmux server of the test's own (its own socket),
//! typed into with `send-keys` and read with `capture-pane`, as a person would.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::model_server::ModelServer;
use crate::process::{Workspace, luxe_bin, patience};

/// Sockets already used by this process's tests.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// One tmux server with one window running a shell command.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Runs `script` with `bash -c` in a `width`×`height` window, in `dir`.
    ///
    /// # Panics
    /// When tmux is not installed (.ci/run installs it) or does not start.
    pub fn start(dir: &Path, script: &str, width: u16, height: u16) -> Self {
        let socket = format!(
            "luxe-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                // The window outlives its command, so the tests can read what it left: set
                // before the window exists, since a quick command may end before a later
                // `set-option` would run (its window gone, and the screen with it).
                "start-server",
                ";",
                "set-option",
                "-g",
                "remain-on-exit",
                "on",
                ";",
                "new-session",
                "-d",
                "-s",
                "t",
            ])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .args(["-c", &dir.to_string_lossy()])
            .args(["bash", "--norc", "-c", script])
            .env("TERM", "xterm-256color")
            .status()
            .expect("tmux runs (.ci/run installs it)");
        assert!(status.success(), "tmux did not start");
        Self { socket }
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `text` as it is.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
    }

    /// Presses keys by tmux's names (`Enter`, `C-d`, `Escape`, `y`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Resizes the window.
    pub fn resize(&self, width: u16, height: u16) {
        self.run(&[
            "resize-window",
            "-t",
            "t",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    /// The process ids of the window's shell's children (the program the script runs).
    pub fn children(&self) -> Vec<u32> {
        let shell = self.run(&["list-panes", "-t", "t", "-F", "#{pane_pid}"]);
        let out = Command::new("pgrep")
            .args(["-P", shell.trim()])
            .output()
            .expect("pgrep runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|pid| pid.trim().parse().ok())
            .collect()
    }

    /// The screen as it shows now.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// The screen once it shows `needle`.
    ///
    /// # Panics
    /// When it does not within `within`, with the screen.
    pub fn wait_for(&self, needle: &str, within: Duration) -> String {
        self.wait_until(within, |screen| screen.contains(needle))
            .unwrap_or_else(|screen| panic!("the screen never showed {needle:?}:\n{screen}"))
    }

    /// Waits until the screen no longer shows `text`.
    ///
    /// # Panics
    /// When it still does after the tests' patience, with the screen.
    pub fn wait_until_gone(&self, text: &str) {
        if let Err(screen) = self.wait_until(patience(), |screen| !screen.contains(text)) {
            panic!("{text:?} stayed:\n{screen}");
        }
    }

    /// The screen once `done` holds of it, polled every 50 ms; the last screen when `within`
    /// passed first.
    fn wait_until(&self, within: Duration, done: impl Fn(&str) -> bool) -> Result<String, String> {
        let deadline = Instant::now() + within;
        loop {
            let screen = self.screen();
            if done(&screen) {
                return Ok(screen);
            }
            if Instant::now() >= deadline {
                return Err(screen);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The row of the review view's page the cursor (`›`) is on, right of the panes' separator.
pub fn review_cursor_row(screen: &str) -> Option<&str> {
    screen
        .lines()
        .find_map(|row| row.split_once("│›").map(|(_, rest)| rest))
}

/// `luxe` with `flags` in tmux at 80×24, in the workspace, against the loopback model server
/// (Anthropic's wire format, model `anthropic/claude-sonnet-4-5`), with `$LUXE_HOME` in the
/// workspace; its terminal settings are saved before and after (`before`, `after`) and its
/// exit status in `exit`, for [`luxe_exited`].
pub fn luxe_in_tmux(ws: &Workspace, server: &ModelServer, flags: &str) -> Tmux {
    luxe_in_tmux_with(ws, server, flags, &[])
}

/// [`luxe_in_tmux`] with more environment variables (a fake gh's `PATH`, say).
pub fn luxe_in_tmux_with(
    ws: &Workspace,
    server: &ModelServer,
    flags: &str,
    envs: &[(&str, OsString)],
) -> Tmux {
    let more: String = (envs.iter())
        .map(|(name, value)| {
            format!(
                "{name}='{}' ",
                value.to_string_lossy().replace('\'', "'\\''")
            )
        })
        .collect();
    let script = format!(
        "stty -g > before; env {more}LUXE_HOME={home} ANTHROPIC_API_KEY=k ANTHROPIC_BASE_URL={url} \
         {bin} --model anthropic/claude-sonnet-4-5 {flags}; echo $? > exit; stty -g > after",
        home = ws.path().join("home").display(),
        url = server.anthropic_base_url(),
        bin = luxe_bin().display(),
    );
    Tmux::start(ws.path(), &script, 80, 24)
}

/// Waits for the `luxe` of [`luxe_in_tmux`] to have exited; its status.
///
/// # Panics
/// When it does not within the tests' patience.
pub fn luxe_exited(ws: &Workspace) -> String {
    let deadline = Instant::now() + patience();
    loop {
        // `after` is written last, and is whole once its line ends (the shell creates it
        // empty first).
        let after = std::fs::read_to_string(ws.path().join("after")).unwrap_or_default();
        if after.ends_with('\n')
            && let Ok(status) = std::fs::read_to_string(ws.path().join("exit"))
        {
            return status.trim().to_owned();
        }
        assert!(Instant::now() < deadline, "luxe did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}
