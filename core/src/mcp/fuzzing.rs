//! The MCP machine under arbitrary server output, for the fuzz target and its seeds: whatever
//! a server writes, nothing panics, every call ends exactly once, and every request is
//! answered or timed out.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::json;

use super::config::{HostEnv, ServerConfig, Transport};
use super::{CallId, Counter, Io, Mcp, McpEvent, McpSettings};
use crate::effects::{EffectId, Input, Output, Stream};

/// Runs one server whose stdout is `data` (its first byte sets the chunk size), calling its
/// first tool whenever it is ready and idle; panics if an invariant breaks.
pub fn server_output(now: Instant, data: &[u8]) {
    let Some((&chunk, output)) = data.split_first() else {
        return;
    };
    let settings = McpSettings {
        timeout: Duration::from_secs(1),
        restart_base: Duration::from_secs(1),
        restart_max: Duration::from_secs(1),
        cwd: "/".into(),
        env: HostEnv::default(),
        client_version: "0".into(),
    };
    let config = ServerConfig {
        name: "fuzz".into(),
        transport: Transport::Stdio {
            command: "server".into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
        },
        timeout: None,
    };
    let mut mcp = Mcp::new(vec![config], settings);
    let (mut ids, mut outputs) = (Counter::default(), VecDeque::new());
    let mut ends: BTreeMap<CallId, usize> = BTreeMap::new();
    let count = |events: Vec<McpEvent>, ends: &mut BTreeMap<CallId, usize>| {
        for event in events {
            if let McpEvent::Finished { call, .. } = event {
                *ends.entry(call).or_default() += 1;
            }
        }
    };
    let mut io = Io {
        ids: &mut ids,
        outputs: &mut outputs,
    };
    let events = mcp.start(now, &mut io);
    count(events, &mut ends);
    let process = outputs.iter().find_map(|o| match o {
        Output::SpawnPiped { id, .. } => Some(*id),
        _ => None,
    });
    let process = process.unwrap_or(EffectId(0));
    let mut calls = 0;
    for bytes in output.chunks(usize::from(chunk).max(1)) {
        let mut io = Io {
            ids: &mut ids,
            outputs: &mut outputs,
        };
        let input = Input::ProcessOutput {
            id: process,
            stream: Stream::Stdout,
            bytes,
        };
        if let Some(events) = mcp.handle(now, &input, &mut io) {
            count(events, &mut ends);
        }
        let idle = (1..=calls).all(|c| ends.contains_key(&CallId(c)));
        let tool = mcp.tools().next().map(|t| t.name.clone());
        if let Some(name) = tool.filter(|_| idle) {
            calls += 1;
            let events = mcp.call(now, CallId(calls), &name, json!({}), &mut io);
            count(events, &mut ends);
        }
        outputs.clear();
    }
    let mut io = Io {
        ids: &mut ids,
        outputs: &mut outputs,
    };
    let events = mcp.handle_timeout(now + Duration::from_secs(2), &mut io);
    count(events, &mut ends);
    for call in (1..=calls).map(CallId) {
        assert_eq!(ends.get(&call), Some(&1), "{call:?} must end exactly once");
    }
    assert!(
        mcp.deadline().is_none(),
        "every request answered or timed out"
    );
}
