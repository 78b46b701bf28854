//! A machine whose client stops reading stdout, whole: `luxe --rpc` and `luxe --acp` end
//! quietly with the failure status, frames stop, and a kept session is synced before the exit
//! (what `luxe_core::client_stdout` decides, seen through the machines that use it).

use std::time::Instant;

use luxe_core::acp::Acp;
use luxe_core::client_stdout::CLOSED_STDOUT_STATUS;
use luxe_core::config::Config;
use luxe_core::effects::{Input, Output};
use luxe_core::{Luxe, Machine};

/// Where a test's clock starts: anywhere, since a machine only compares the instants it is
/// given.
fn start() -> Instant {
    Instant::now()
}

fn drained(machine: &mut impl Machine) -> Vec<Output> {
    std::iter::from_fn(|| machine.poll_output()).collect()
}

fn is_for_the_client(output: &Output) -> bool {
    matches!(
        output,
        Output::Frame(_) | Output::Message(_) | Output::Flush
    )
}

/// Feeds `machine` a failed write and checks that it ends quietly, with the failure status.
fn ends_quietly_when_stdout_fails(machine: &mut impl Machine, now: Instant) {
    machine.handle_input(now, Input::ClientWriteFailed);
    let out = drained(machine);
    assert!(!out.iter().any(is_for_the_client), "{out:?}");
    assert_eq!(out.last(), Some(&failed_exit()));
    assert!(machine.is_closed());
}

fn failed_exit() -> Output {
    Output::Exit {
        code: CLOSED_STDOUT_STATUS,
    }
}

#[test]
fn an_rpc_session_whose_stdout_fails_mid_drain_ends_quietly_with_the_failure_status() {
    let now = start();
    let mut luxe = Luxe::new(Config::new("0.1.0", "s1", "/work/app"), now).unwrap();
    drained(&mut luxe);
    luxe.handle_input(
        now,
        Input::ClientBytes(b"{\"kind\":\"list_sessions\",\"content\":{\"request_id\":\"a\"}}\n"),
    );
    ends_quietly_when_stdout_fails(&mut luxe, now);
}

#[test]
fn an_rpc_session_that_exits_on_a_failing_stdout_exits_with_the_failure_status() {
    let now = start();
    let mut luxe = Luxe::new(Config::new("0.1.0", "s1", "/work/app"), now).unwrap();
    luxe.handle_input(now, Input::ClientBytes(b"{\"kind\":\"close\"}\n"));
    let mut out = Vec::new();
    while let Some(output) = luxe.poll_output() {
        // The flush of the frames before the exit fails.
        if output == Output::Flush {
            luxe.handle_input(now, Input::ClientWriteFailed);
        }
        out.push(output);
    }
    assert_eq!(out.last(), Some(&failed_exit()));
}

#[test]
fn an_acp_agent_whose_stdout_fails_ends_quietly_with_the_failure_status() {
    let now = start();
    let mut acp = Acp::new(Config::new("0.1.0", "s1", "/work/app"), now).unwrap();
    acp.handle_input(
        now,
        Input::ClientBytes(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n",
        ),
    );
    ends_quietly_when_stdout_fails(&mut acp, now);
}

#[test]
fn a_kept_session_is_synced_before_it_exits_on_a_failing_stdout() {
    let now = start();
    let mut config = Config::new("0.1.0", "s1", "/work/app");
    config.sessions_dir = Some("/home/u/.luxe/sessions".into());
    let mut luxe = Luxe::new(config, now).unwrap();
    drained(&mut luxe);
    luxe.handle_input(now, Input::ClientWriteFailed);
    let out: Vec<Output> = std::iter::from_fn(|| luxe.poll_output()).collect();
    let synced = out
        .iter()
        .position(|o| matches!(o, Output::SyncFile { path } if path.ends_with("s1.jsonl")));
    let exit = out.iter().position(|o| *o == failed_exit());
    assert!(
        synced.is_some() && synced < exit,
        "the session file is synced, then luxe exits: {out:?}"
    );
}
