//! The MCP machine under arbitrary server output, for the fuzz target and its seeds: whatever
//! a server writes, nothing panics, every call ends exactly once, and every request is
//! answered or timed out.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::json;

use super::config::{HostEnv, ServerConfig, Transport};
use super::{CallId, Counter, Io, Mcp, McpEvent, McpSettings};
use crate::effects::HttpMethod;
use crate::effects::{EffectId, Input, Output, Stream};

/// Runs one server whose output is `data`, calling its first tool whenever it is ready and
/// idle; panics if an invariant breaks. The first byte's low seven bits set the chunk size;
/// its top bit makes it an http server, whose every line of the rest comes as an SSE event:
/// on its GET stream while that is open, else in the answer to its latest POST (each older
/// one ends), the GET answered `405` when bit 6 is set too.
pub fn server_output(now: Instant, data: &[u8]) {
    let Some((&first, output)) = data.split_first() else {
        return;
    };
    let http = first & 0x80 != 0;
    let settings = McpSettings {
        timeout: Duration::from_secs(1),
        restart_base: Duration::from_secs(1),
        restart_max: Duration::from_secs(1),
        cwd: "/".into(),
        env: HostEnv::default(),
        client_version: "0".into(),
    };
    let transport = if http {
        Transport::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: Vec::new(),
        }
    } else {
        Transport::Stdio {
            command: "server".into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
        }
    };
    let config = ServerConfig {
        name: "fuzz".into(),
        transport,
        timeout: None,
    };
    let mut mcp = Mcp::new(vec![config], settings);
    let (mut ids, mut outputs) = (Counter::default(), VecDeque::new());
    let mut ends: BTreeMap<CallId, usize> = BTreeMap::new();
    let count = |events: Option<Vec<McpEvent>>, ends: &mut BTreeMap<CallId, usize>| {
        for event in events.into_iter().flatten() {
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
    count(Some(events), &mut ends);
    let process = outputs.iter().find_map(|o| match o {
        Output::SpawnPiped { id, .. } => Some(*id),
        _ => None,
    });
    let process = process.unwrap_or(EffectId(0));
    let stream = if http {
        output
            .split(|b| *b == b'\n')
            .flat_map(|line| [b"data: ", line, b"\n\n"].concat())
            .collect()
    } else {
        output.to_vec()
    };
    // The HTTP requests answered so far and not ended, the GET stream among them.
    let (mut open, mut get): (Vec<EffectId>, Option<EffectId>) = (Vec::new(), None);
    let mut calls = 0;
    for bytes in stream.chunks(usize::from(first & 0x7f).max(1)) {
        let fresh: Vec<(EffectId, HttpMethod)> = outputs
            .drain(..)
            .filter_map(|o| match o {
                Output::HttpExchange { id, request } => Some((id, request.method)),
                _ => None,
            })
            .collect();
        let mut io = Io {
            ids: &mut ids,
            outputs: &mut outputs,
        };
        for (id, method) in fresh {
            let refused = method == HttpMethod::Get && first & 0x40 != 0;
            let headers = vec![
                ("mcp-session-id".to_owned(), "s".to_owned()),
                ("content-type".to_owned(), "text/event-stream".to_owned()),
            ];
            let head = [
                Input::HttpHeaders { id, headers },
                Input::HttpResponse {
                    id,
                    status: if refused { 405 } else { 200 },
                    retry_after: None,
                },
            ];
            for input in head {
                count(mcp.handle(now, &input, &mut io), &mut ends);
            }
            if refused {
                count(
                    mcp.handle(now, &Input::HttpEnded { id }, &mut io),
                    &mut ends,
                );
            } else if method == HttpMethod::Get {
                get = Some(id);
            } else {
                open.push(id);
            }
        }
        if !http {
            let input = Input::ProcessOutput {
                id: process,
                stream: Stream::Stdout,
                bytes,
            };
            count(mcp.handle(now, &input, &mut io), &mut ends);
        } else {
            // A GET stream the machine gave up (the server failed) is no one's: the latest POST
            // gets the bytes.
            let on_get =
                get.and_then(|id| mcp.handle(now, &Input::HttpBody { id, bytes }, &mut io));
            match on_get {
                Some(events) => count(Some(events), &mut ends),
                None => {
                    get = None;
                    if let Some(&id) = open.last() {
                        let input = Input::HttpBody { id, bytes };
                        count(mcp.handle(now, &input, &mut io), &mut ends);
                    }
                }
            }
        }
        let newest = open.pop();
        for id in open.drain(..) {
            count(
                mcp.handle(now, &Input::HttpEnded { id }, &mut io),
                &mut ends,
            );
        }
        open.extend(newest);
        let idle = (1..=calls).all(|c| ends.contains_key(&CallId(c)));
        let tool = mcp.tools().next().map(|t| t.name.clone());
        if let Some(name) = tool.filter(|_| idle) {
            calls += 1;
            let events = mcp.call(now, CallId(calls), &name, json!({}), &mut io);
            count(Some(events), &mut ends);
        }
        outputs.retain(|o| matches!(o, Output::HttpExchange { .. }));
    }
    let mut io = Io {
        ids: &mut ids,
        outputs: &mut outputs,
    };
    let events = mcp.handle_timeout(now + Duration::from_secs(2), &mut io);
    count(Some(events), &mut ends);
    for call in (1..=calls).map(CallId) {
        assert_eq!(ends.get(&call), Some(&1), "{call:?} must end exactly once");
    }
    assert!(
        mcp.deadline().is_none(),
        "every request answered or timed out"
    );
    mcp.stop(&mut io);
}
