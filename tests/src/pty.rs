//! A terminal of the benchmark's own: a program on a pseudo-terminal whose output is kept as a
//! screen (vt100), the way a terminal would show it, with the time each read arrived. The
//! queries a terminal answers (device attributes, the cursor's position, the colours) are
//! answered at once, since a program may wait for them before it draws: crossterm asks
//! whether the keyboard enhancement protocol is there and waits up to two seconds for the
//! device attributes that end the question.
//!
//! Times are taken when a read returns, before the bytes are parsed: what the benchmark
//! measures is when the program's output reached the terminal.

use std::io::{self, Read, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use vt100::{Callbacks, Parser, Screen};

/// A condition on the screen, checked after every read from the program.
type Condition = Box<dyn FnMut(&Screen) -> bool + Send>;

/// A program running on a pseudo-terminal, and its screen.
pub struct Terminal {
    child: Box<dyn Child + Send + Sync>,
    pid: u32,
    started: Instant,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    shared: Arc<Shared>,
    // The master side stays open for as long as the program runs: closing it hangs it up.
    _master: Box<dyn MasterPty + Send>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<Option<State>>,
    read: Condvar,
}

struct State {
    parser: Parser<Replies>,
    /// The condition being waited for, and the time of the read after which it held.
    watch: Option<(Condition, Option<Instant>)>,
    /// Whether each read compares the screen with the one before (see
    /// [`Terminal::track_changes`]).
    tracking: bool,
    /// The screen's text after the last change, and when that read arrived.
    last_change: (String, Instant),
    /// When the last read arrived.
    last_read: Instant,
    /// Bytes read from the program.
    bytes: u64,
    /// The pty closed: the program and everything it started have let go of it.
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Option<State>> {
        // A panic in the reader leaves the screen as it was: still worth reading.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Terminal {
    /// Starts `cmd` on a new `cols`×`rows` pseudo-terminal that is its controlling terminal
    /// (a session of its own, so SIGWINCH and `/dev/tty` work as in a real one).
    ///
    /// # Errors
    /// When the pty cannot be made or the program cannot be started.
    pub fn spawn(mut cmd: CommandBuilder, cols: u16, rows: u16) -> io::Result<Self> {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        let pair = native_pty_system()
            .openpty(size)
            .map_err(io::Error::other)?;
        let mut reader = pair.master.try_clone_reader().map_err(io::Error::other)?;
        let writer = Arc::new(Mutex::new(
            pair.master.take_writer().map_err(io::Error::other)?,
        ));
        cmd.env("TERM", "xterm-256color");
        let started = Instant::now();
        let child = pair.slave.spawn_command(cmd).map_err(io::Error::other)?;
        // The program holds the slave now; the pty closes when it and its children let go.
        drop(pair.slave);
        let pid = child
            .process_id()
            .ok_or_else(|| io::Error::other("the program has no process id"))?;
        let shared = Arc::new(Shared::default());
        *shared.lock() = Some(State {
            parser: Parser::new_with_callbacks(nonzero(rows), nonzero(cols), 0, Replies::default()),
            watch: None,
            tracking: true,
            last_change: (String::new(), started),
            last_read: started,
            bytes: 0,
            closed: false,
        });
        {
            // It ends when the pty closes; a helper that the program started in a session of
            // its own could hold the pty open past the end, so nothing waits for it.
            let shared = Arc::clone(&shared);
            let writer = Arc::clone(&writer);
            thread::Builder::new()
                .name("pty-reader".into())
                .spawn(move || read_screen(&mut reader, &shared, &writer))?;
        }
        Ok(Self {
            child,
            pid,
            started,
            writer,
            shared,
            _master: pair.master,
        })
    }

    /// When the program was started (just before the spawn).
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The program's process id (the leader of its own session and process group).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Sends `bytes` as typed keys; the time just before they were written.
    ///
    /// # Panics
    /// When the pty no longer takes input.
    pub fn type_bytes(&self, bytes: &[u8]) -> Instant {
        let mut writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let at = Instant::now();
        writer.write_all(bytes).expect("the pty takes keys");
        writer.flush().expect("the pty takes keys");
        at
    }

    /// `look` at the screen as it is now.
    pub fn with_screen<T>(&self, look: impl FnOnce(&Screen) -> T) -> T {
        let state = self.shared.lock();
        look(state.as_ref().expect("a state").parser.screen())
    }

    /// The screen's rows as text, trailing blanks cut.
    pub fn rows(&self) -> Vec<String> {
        self.with_screen(screen_rows)
    }

    /// What the program has written so far: bytes, and synchronized updates begun (frames, for
    /// a program that draws each inside one).
    pub fn output(&self) -> (u64, u64) {
        let state = self.shared.lock();
        let state = state.as_ref().expect("a state");
        (state.bytes, state.parser.callbacks().synchronized)
    }

    /// Whether each read compares the screen with the one before, for [`Terminal::settle`]
    /// (on from the start). A stream of many frames reads faster without it.
    pub fn track_changes(&self, on: bool) {
        let mut state = self.shared.lock();
        let state = state.as_mut().expect("a state");
        if on && !state.tracking {
            state.last_change = (state.parser.screen().contents(), state.last_read);
        }
        state.tracking = on;
    }

    /// The time of the read after which the screen first met `condition`, checked after every
    /// read from now on (when it holds already, the time of the last read).
    ///
    /// # Errors
    /// When it did not hold within `within`, or the pty closed first: what happened, with the
    /// screen.
    pub fn wait_for(
        &self,
        within: Duration,
        condition: impl FnMut(&Screen) -> bool + Send + 'static,
    ) -> Result<Instant, String> {
        match self.watch(condition) {
            Some(already) => Ok(already),
            None => self.watched(Instant::now() + within),
        }
    }

    /// Types `keys` and waits for the screen to meet `condition` because of them: the time
    /// from the keys to the read after which it held.
    ///
    /// # Errors
    /// When it held before the keys, did not within `within`, or the pty closed first.
    pub fn press(
        &self,
        keys: &[u8],
        within: Duration,
        condition: impl FnMut(&Screen) -> bool + Send + 'static,
    ) -> Result<Duration, String> {
        if self.watch(condition).is_some() {
            return Err("the screen showed it before the keys".into());
        }
        let typed = self.type_bytes(keys);
        let met = self.watched(typed + within)?;
        met.checked_duration_since(typed)
            .ok_or_else(|| "the screen showed it before the keys".into())
    }

    /// Watches the screen for `condition` from the next read on; when it holds already, nothing
    /// is watched and the time of the last read is returned.
    fn watch(
        &self,
        mut condition: impl FnMut(&Screen) -> bool + Send + 'static,
    ) -> Option<Instant> {
        let mut state = self.shared.lock();
        let now = state.as_mut().expect("a state");
        if condition(now.parser.screen()) {
            return Some(now.last_read);
        }
        now.watch = Some((Box::new(condition), None));
        None
    }

    /// Waits for the condition being watched until `deadline`.
    fn watched(&self, deadline: Instant) -> Result<Instant, String> {
        let mut state = self.shared.lock();
        loop {
            let now = state.as_mut().expect("a state");
            if let Some((_, Some(met))) = now.watch {
                now.watch = None;
                return Ok(met);
            }
            let left = deadline.checked_duration_since(Instant::now());
            let Some(left) = left.filter(|_| !now.closed) else {
                now.watch = None;
                let why = if now.closed {
                    "the program ended first"
                } else {
                    "not within the wait"
                };
                return Err(format!(
                    "{why}; the screen:\n{}",
                    screen_rows(now.parser.screen()).join("\n")
                ));
            };
            state = self
                .shared
                .read
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits until the screen has not changed for `quiet` (or the pty closed): the time of its
    /// last change. `None` when it kept changing for `within`.
    pub fn settle(&self, quiet: Duration, within: Duration) -> Option<Instant> {
        self.track_changes(true);
        let deadline = Instant::now() + within;
        let mut state = self.shared.lock();
        loop {
            let now = state.as_ref().expect("a state");
            let changed = now.last_change.1;
            let still = Instant::now().saturating_duration_since(changed);
            if still >= quiet || now.closed {
                return Some(changed);
            }
            if Instant::now() + (quiet - still) > deadline {
                return None;
            }
            state = self
                .shared
                .read
                .wait_timeout(state, quiet - still)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits up to `within` for the program to exit; its exit code, `None` when it still runs.
    pub fn wait_exit(&mut self, within: Duration) -> Option<u32> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status.exit_code());
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // The whole process group: Node programs start helpers that outlive their parent.
        if let Ok(pid) = i32::try_from(self.pid) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = self.child.wait();
    }
}

/// Reads the program's output into the screen until the pty closes, answering queries.
fn read_screen(
    reader: &mut Box<dyn Read + Send>,
    shared: &Shared,
    writer: &Mutex<Box<dyn Write + Send>>,
) {
    let mut buf = vec![0; 1 << 16];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let at = Instant::now();
        let answers = {
            let mut state = shared.lock();
            let state = state.as_mut().expect("a state");
            state.parser.process(&buf[..n]);
            state.last_read = at;
            state.bytes += n as u64;
            if state.tracking {
                let text = state.parser.screen().contents();
                if text != state.last_change.0 {
                    state.last_change = (text, at);
                }
            }
            if let Some((condition, met @ None)) = state.watch.as_mut()
                && condition(state.parser.screen())
            {
                *met = Some(at);
            }
            std::mem::take(&mut state.parser.callbacks_mut().answers)
        };
        shared.read.notify_all();
        if !answers.is_empty() {
            let mut writer = writer.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = writer.write_all(&answers).and_then(|()| writer.flush());
        }
    }
    if let Some(state) = shared.lock().as_mut() {
        state.closed = true;
    }
    shared.read.notify_all();
}

/// A screen's rows as text, trailing blanks cut.
pub fn screen_rows(screen: &Screen) -> Vec<String> {
    let (_, cols) = screen.size();
    screen
        .rows(0, cols.get())
        .map(|row| row.trim_end().to_owned())
        .collect()
}

fn nonzero(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n.max(1)).unwrap_or(std::num::NonZeroU16::MIN)
}

/// What the terminal answers: an xterm-like terminal with white text on black that knows
/// neither the kitty keyboard protocol nor synchronized output (so it answers the questions
/// about them as a terminal without them does: the kitty query not at all, a mode query with
/// "not recognized").
#[derive(Default)]
struct Replies {
    /// Bytes to write back to the program.
    answers: Vec<u8>,
    /// How many synchronized updates began (`CSI ? 2026 h`): the frames of a program that
    /// draws each inside one.
    synchronized: u64,
}

impl Callbacks for Replies {
    fn unhandled_csi(
        &mut self,
        screen: &mut Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
        match (i1, i2, c) {
            (Some(b'?'), None, 'h') if first == 2026 => self.synchronized += 1,
            // Primary device attributes: a VT220 with colours.
            (None, None, 'c') if first == 0 => self.answers.extend_from_slice(b"\x1b[?62;22c"),
            // Status report: all is well.
            (None, None, 'n') if first == 5 => self.answers.extend_from_slice(b"\x1b[0n"),
            // The cursor's position, 1-based.
            (None, None, 'n') if first == 6 => {
                let (row, col) = screen.cursor_position();
                let answer = format!("\x1b[{};{}R", row + 1, col + 1);
                self.answers.extend_from_slice(answer.as_bytes());
            }
            // The text area in characters.
            (None, None, 't') if first == 18 => {
                let (rows, cols) = screen.size();
                let answer = format!("\x1b[8;{rows};{cols}t");
                self.answers.extend_from_slice(answer.as_bytes());
            }
            // A private mode's state (DECRQM): not recognized.
            (Some(b'?'), Some(b'$'), 'p') => {
                let answer = format!("\x1b[?{first};0$y");
                self.answers.extend_from_slice(answer.as_bytes());
            }
            _ => {}
        }
    }

    fn unhandled_osc(&mut self, _: &mut Screen, params: &[&[u8]]) {
        // Colour queries: the default foreground (10) and background (11).
        match params {
            [b"10", b"?"] => self
                .answers
                .extend_from_slice(b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\"),
            [b"11", b"?"] => self
                .answers
                .extend_from_slice(b"\x1b]11;rgb:0000/0000/0000\x1b\\"),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Terminal {
        let mut cmd = CommandBuilder::new("sh");
        cmd.args(["-c", script]);
        Terminal::spawn(cmd, 40, 10).expect("sh starts")
    }

    const WAIT: Duration = Duration::from_secs(10);

    /// The time of the read after which the screen first showed `text`.
    fn shown(term: &Terminal, text: &'static str) -> Instant {
        term.wait_for(WAIT, move |s| s.contents().contains(text))
            .unwrap_or_else(|why| panic!("{text:?} never shown: {why}"))
    }

    #[test]
    fn the_screen_shows_what_the_program_drew() {
        let term = sh("printf 'one\\033[3;5Htwo'; sleep 5");
        shown(&term, "two");
        let rows = term.rows();
        assert_eq!(rows[0], "one");
        assert_eq!(rows[2], "    two");
    }

    #[test]
    fn a_condition_is_timed_by_the_read_that_met_it() {
        let term = sh("printf first; sleep 0.3; printf ' second'; sleep 5");
        let first = shown(&term, "first");
        let second = shown(&term, "second");
        let apart = second - first;
        assert!(apart >= Duration::from_millis(250), "{apart:?}");
        assert!(first >= term.started());
    }

    #[test]
    fn device_attributes_and_the_cursor_position_are_answered() {
        // The shell reads the answers back from the terminal and shows what it got.
        let term = sh(
            "stty raw -echo; printf 'ab\\033[c'; a=$(dd bs=1 count=9 2>/dev/null); \
             printf '\\033[6n'; p=$(dd bs=1 count=6 2>/dev/null); stty sane; \
             printf '\\n%s|%s' \"$a\" \"$p\" | tr '\\033' E; sleep 5",
        );
        shown(&term, "|");
        let rows = term.rows();
        assert!(
            rows.iter().any(|r| r.contains("E[?62;22c|E[1;3R")),
            "{rows:?}"
        );
    }

    #[test]
    fn output_counts_bytes_and_synchronized_updates() {
        let term = sh("printf '\\033[?2026hab\\033[?2026l\\033[?2026hc\\033[?2026l'; sleep 5");
        shown(&term, "abc");
        assert_eq!(term.output(), (35, 2));
    }

    #[test]
    fn typed_keys_reach_the_program() {
        let term = sh("read line; echo \"got $line\"; sleep 5");
        term.type_bytes(b"hello\r");
        shown(&term, "got hello");
    }

    #[test]
    fn a_key_is_timed_to_what_it_showed() {
        // The shell shows each line read a quarter of a second later.
        let term = sh("while read line; do sleep 0.25; echo \"got $line\"; done");
        let took = term
            .press(b"one\r", WAIT, |s| s.contents().contains("got one"))
            .expect("shown");
        assert!(took >= Duration::from_millis(250), "{took:?}");
        let early = term.press(b"two\r", WAIT, |s| s.contents().contains("got one"));
        assert!(
            early.is_err(),
            "a screen that met it before the key is no sample"
        );
    }

    #[test]
    fn settling_gives_the_last_change() {
        let term = sh("printf a; sleep 0.2; printf b; sleep 5");
        let b = shown(&term, "b");
        let last = term
            .settle(Duration::from_millis(300), WAIT)
            .expect("settles");
        assert_eq!(last, b, "the read that showed b is the last change");
    }

    #[test]
    fn an_ended_program_fails_a_wait_with_its_screen() {
        let mut term = sh("printf bye");
        assert_eq!(term.wait_exit(WAIT), Some(0));
        let err = term
            .wait_for(WAIT, |s| s.contents().contains("never"))
            .expect_err("never shown");
        assert!(err.contains("bye"), "{err}");
    }
}
