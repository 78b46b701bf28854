//! The `luxe` binary: flags → config → a front door (`luxe_io::run` for `--rpc` and `--acp`,
//! the interface, `-p`). Nothing else lives here.

mod flags;

use std::io::{self, IsTerminal as _, Read as _};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use flags::{Flags, FrontDoor};
use luxe_core::Luxe;
use luxe_core::acp::Acp;
use luxe_interface::{Interface, OneShot};
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let flags = Flags::parse();
    init_logging();
    let door = match flags.front_door() {
        Ok(door) => door,
        Err(reason) => return refuse(&reason),
    };
    // Checked before anything is prepared (a worktree, a checkout) for a session that cannot
    // be shown.
    if door == FrontDoor::Interface && !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
        return refuse(
            "the interface needs a terminal: use `luxe --rpc` (JSON frames), `luxe --acp` (an editor) or `luxe -p \"…\"` (one turn)",
        );
    }
    let prompt = match &door {
        FrontDoor::Print(Some(text), _) => Some(text.clone()),
        FrontDoor::Print(None, _) => {
            let mut text = String::new();
            if let Err(err) = io::stdin().read_to_string(&mut text) {
                return refuse(&format!("-p without text reads stdin, which failed: {err}"));
            }
            Some(text)
        }
        _ => None,
    };
    let config = match flags.into_config() {
        Ok(config) => config,
        Err(reason) => return refuse(&reason),
    };
    let now = Instant::now();
    if door == FrontDoor::Acp {
        return match Acp::new(config, now) {
            Ok(host) => exit(luxe_io::run(host)),
            Err(err) => refuse(&err.to_string()),
        };
    }
    // What /new and /sessions start from: this session's config, with a new id.
    let base = (door == FrontDoor::Interface).then(|| config.clone());
    let history = config
        .luxe_home
        .as_ref()
        .map(|home| Path::new(home).join(luxe_interface::HISTORY_FILE));
    let cwd = config.cwd.clone();
    let luxe = match Luxe::new(config, now) {
        Ok(luxe) => luxe,
        Err(err) => return refuse(&err.to_string()),
    };
    for warning in luxe.warnings() {
        eprintln!("luxe: warning: {warning}");
    }
    match door {
        FrontDoor::Print(_, on_ask) => {
            let prompt = prompt.unwrap_or_default();
            exit(luxe_io::run_one_shot(OneShot::new(
                luxe, now, &prompt, on_ask,
            )))
        }
        FrontDoor::Interface => {
            let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            // A history file that cannot be read gives no earlier inputs; the session goes on.
            let earlier = (history.as_ref())
                .and_then(|path| std::fs::read(path).ok())
                .map(|bytes| luxe_interface::earlier_inputs(&bytes, &cwd))
                .unwrap_or_default();
            let make = |width, height| {
                let interface = Interface::new(luxe, width, height).with_history(earlier);
                if no_colour {
                    interface.without_colour()
                } else {
                    interface
                }
            };
            let open = |resume: Option<&str>| {
                let base = base.as_ref().ok_or("no session to start from")?;
                let config = flags::next_session(base, resume)?;
                Luxe::new(config, Instant::now()).map_err(|err| err.to_string())
            };
            exit(luxe_io::run_interface(make, open, history))
        }
        FrontDoor::Rpc | FrontDoor::Acp => exit(luxe_io::run(luxe)),
    }
}

/// The process's exit status from a front door's.
fn exit(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// A start-up failure: one line on stderr, no frame, exit 2.
fn refuse(reason: &str) -> ExitCode {
    eprintln!("luxe: {reason}");
    ExitCode::from(2)
}

/// Logs go to stderr, filtered by `LUXE_LOG` (default `warn`); stdout carries frames only.
fn init_logging() {
    let filter = EnvFilter::try_from_env("LUXE_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
}
