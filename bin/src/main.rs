//! The `luxe` binary: flags → config → `luxe_io::run`. Nothing else lives here.

mod flags;

use std::process::ExitCode;

use clap::Parser;
use flags::Flags;
use luxe_core::Luxe;
use luxe_core::acp::Acp;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let flags = Flags::parse();
    init_logging();
    let acp = flags.acp;
    let config = match flags.into_config() {
        Ok(config) => config,
        Err(reason) => return refuse(&reason),
    };
    if acp {
        return match Acp::new(config, std::time::Instant::now()) {
            Ok(host) => ExitCode::from(u8::try_from(luxe_io::run(host)).unwrap_or(1)),
            Err(err) => refuse(&err.to_string()),
        };
    }
    let luxe = match Luxe::new(config, std::time::Instant::now()) {
        Ok(luxe) => luxe,
        Err(err) => return refuse(&err.to_string()),
    };
    for warning in luxe.warnings() {
        eprintln!("luxe: warning: {warning}");
    }
    ExitCode::from(u8::try_from(luxe_io::run(luxe)).unwrap_or(1))
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
