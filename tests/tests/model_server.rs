//! The scripted model server, spoken to by a hand-written HTTP/1.1 client and by curl, so the
//! wire bytes are checked independently of any product code.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use luxe_tests::model_server::{ModelServer, Part, Reply, Script, ScriptUsage, Stop};
use serde_json::{Value, json};

const PATIENCE: Duration = Duration::from_secs(10);

/// A response as the client saw it.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    /// Each chunk of a chunked body, in order.
    chunks: Vec<String>,
    /// Whether the terminating zero-length chunk arrived.
    complete: bool,
    /// A non-chunked body.
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }

    /// The SSE events as (event name, data) pairs.
    fn events(&self) -> Vec<(Option<String>, String)> {
        let text = self.chunks.concat();
        text.split_terminator("\n\n")
            .map(|event| {
                let mut name = None;
                let mut data = String::new();
                for line in event.lines() {
                    if let Some(n) = line.strip_prefix("event: ") {
                        name = Some(n.to_owned());
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data = d.to_owned();
                    } else {
                        panic!("unexpected SSE line {line:?}");
                    }
                }
                (name, data)
            })
            .collect()
    }

    fn data(&self) -> Vec<Value> {
        self.events()
            .into_iter()
            .map(|(_, data)| serde_json::from_str(&data).unwrap_or(Value::String(data)))
            .collect()
    }
}

fn connect(server: &ModelServer) -> TcpStream {
    let addr = server.anthropic_base_url();
    let stream = TcpStream::connect(addr.strip_prefix("http://").unwrap()).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream
}

/// Sends a POST with a Content-Length body, waiting for `100 Continue` first when asked to.
fn send(stream: &mut TcpStream, path: &str, headers: &[(&str, &str)], body: &Value, expect: bool) {
    let body = body.to_string();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if expect {
        head.push_str("Expect: 100-continue\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    if expect {
        let mut interim = [0; 25];
        stream.read_exact(&mut interim).unwrap();
        assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    stream.write_all(body.as_bytes()).unwrap();
}

fn read_response(stream: TcpStream) -> Response {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status = line
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .unwrap_or_else(|| panic!("bad status line {line:?}"))
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        let (name, value) = line.trim_end().split_once(": ").unwrap();
        headers.push((name.to_owned(), value.to_owned()));
    }
    let mut response = Response {
        status,
        headers,
        chunks: Vec::new(),
        complete: false,
        body: String::new(),
    };
    if response.header("transfer-encoding") == Some("chunked") {
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap() == 0 {
                break; // Cut mid-stream.
            }
            let size = usize::from_str_radix(line.trim_end(), 16).unwrap();
            if size == 0 {
                line.clear();
                reader.read_line(&mut line).unwrap();
                assert_eq!(line, "\r\n");
                response.complete = true;
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            assert!(chunk.ends_with(b"\r\n"));
            chunk.truncate(size);
            response.chunks.push(String::from_utf8(chunk).unwrap());
        }
    } else {
        let length: usize = response.header("content-length").unwrap().parse().unwrap();
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        response.body = String::from_utf8(body).unwrap();
    }
    response
}

fn post(server: &ModelServer, path: &str, body: &Value) -> Response {
    let mut stream = connect(server);
    send(&mut stream, path, &[], body, false);
    read_response(stream)
}

fn anthropic_request() -> Value {
    json!({"model": "claude-test", "max_tokens": 100, "stream": true,
           "messages": [{"role": "user", "content": "hi"}]})
}

fn openai_request(include_usage: bool) -> Value {
    json!({"model": "gpt-test", "stream": true, "stream_options": {"include_usage": include_usage},
           "messages": [{"role": "user", "content": "hi"}]})
}

#[test]
fn anthropic_script_renders_the_exact_event_sequence() {
    let server = ModelServer::start();
    let input = json!({"path": "src/main.rs", "lines": [1, 2]});
    let script = Script::new(
        vec![
            Part::Thinking {
                deltas: vec!["Let me ".into(), "think.".into()],
                signature: "sig==".into(),
            },
            Part::Text(vec!["Hel".into(), "lo".into()]),
            Part::ToolCall {
                id: "toolu_1".into(),
                name: "read".into(),
                input: input.clone(),
                chunks: 4,
            },
        ],
        Stop::ToolUse,
    )
    .with_usage(ScriptUsage {
        input: 30,
        output: 12,
        cache_read: 100,
        cache_write: 7,
        reasoning: 3,
    });
    server.push(Reply::Stream(script));
    let response = post(&server, "/v1/messages", &anthropic_request());

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert_eq!(response.header("cache-control"), Some("no-cache"));
    assert_eq!(response.header("connection"), Some("close"));
    assert!(response.complete);
    let events = response.events();
    assert_eq!(response.chunks.len(), events.len(), "one chunk per event");
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_deref().unwrap()).collect();
    let mut expected = vec!["message_start", "content_block_start", "ping"];
    expected.extend(["content_block_delta"; 3]); // two thinking deltas and the signature
    expected.extend(["content_block_stop", "content_block_start"]);
    expected.extend(["content_block_delta"; 2]);
    expected.extend(["content_block_stop", "content_block_start"]);
    expected.extend(["content_block_delta"; 4]);
    expected.extend(["content_block_stop", "message_delta", "message_stop"]);
    assert_eq!(names, expected);

    for (name, data) in &events {
        let name = name.as_deref().unwrap();
        // Key order as the real API sends it, which a Value comparison cannot see.
        let prefix = if name == "ping" {
            r#"{"type": ""#
        } else {
            r#"{"type":""#
        };
        assert!(data.starts_with(&format!("{prefix}{name}\"")), "{data}");
    }
    assert!(events[0].1.contains(r#"{"id":"msg_"#), "{}", events[0].1);
    assert!(events[3].1.contains(r#""delta":{"type":"thinking_delta""#));
    let data = response.data();
    let id = data[0]["message"]["id"].as_str().unwrap();
    assert!(id.starts_with("msg_"), "{id}");
    assert_eq!(
        data[0],
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": "claude-test",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 30, "cache_creation_input_tokens": 7,
                      "cache_read_input_tokens": 100, "output_tokens": 1}}})
    );
    assert_eq!(
        data[1],
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "thinking", "thinking": ""}})
    );
    assert_eq!(data[2], json!({"type": "ping"}));
    assert_eq!(
        data[3],
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "thinking_delta", "thinking": "Let me "}})
    );
    assert_eq!(
        data[5],
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "signature_delta", "signature": "sig=="}})
    );
    assert_eq!(data[6], json!({"type": "content_block_stop", "index": 0}));
    assert_eq!(
        data[7],
        json!({"type": "content_block_start", "index": 1,
               "content_block": {"type": "text", "text": ""}})
    );
    assert_eq!(
        data[9],
        json!({"type": "content_block_delta", "index": 1,
               "delta": {"type": "text_delta", "text": "lo"}})
    );
    assert_eq!(
        data[11],
        json!({"type": "content_block_start", "index": 2,
               "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}})
    );
    let partial: String = data[12..16]
        .iter()
        .map(|d| {
            assert_eq!(d["index"], 2);
            assert_eq!(d["delta"]["type"], "input_json_delta");
            d["delta"]["partial_json"].as_str().unwrap()
        })
        .collect();
    assert_eq!(serde_json::from_str::<Value>(&partial).unwrap(), input);
    assert_eq!(
        data[17],
        json!({"type": "message_delta",
               "delta": {"stop_reason": "tool_use", "stop_sequence": null},
               "usage": {"output_tokens": 12}})
    );
    assert_eq!(data[18], json!({"type": "message_stop"}));
}

#[test]
fn anthropic_text_reply_and_stop_reasons() {
    let server = ModelServer::start();
    server.push(Reply::text("hello there"));
    for stop in [Stop::EndTurn, Stop::MaxTokens, Stop::Refusal] {
        server.push(Reply::Stream(Script::new(vec![], stop)));
    }
    let data = post(&server, "/v1/messages", &anthropic_request()).data();
    let text: String = data
        .iter()
        .filter(|d| d["type"] == "content_block_delta")
        .map(|d| d["delta"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "hello there");
    assert!(
        data.iter()
            .filter(|d| d["type"] == "content_block_delta")
            .count()
            > 1
    );
    assert_eq!(data.last().unwrap()["type"], "message_stop");

    for name in ["end_turn", "max_tokens", "refusal"] {
        let data = post(&server, "/v1/messages", &anthropic_request()).data();
        let types: Vec<&str> = data.iter().map(|d| d["type"].as_str().unwrap()).collect();
        // With no blocks the ping still comes, straight after message_start.
        assert_eq!(
            types,
            ["message_start", "ping", "message_delta", "message_stop"]
        );
        assert_eq!(data[2]["delta"]["stop_reason"], name);
    }
}

#[test]
fn openai_tool_calls_stream_fragments_then_finish_then_usage_then_done() {
    let server = ModelServer::start();
    let first = json!({"command": "ls -la", "timeout": 30});
    let second = json!({"path": "ünïcödé.txt"});
    let script = Script::new(
        vec![
            Part::Thinking {
                deltas: vec!["hmm".into()],
                signature: "unused".into(),
            },
            Part::Text(vec!["Running ".into(), "it.".into()]),
            Part::ToolCall {
                id: "call_a".into(),
                name: "bash".into(),
                input: first.clone(),
                chunks: 5,
            },
            Part::ToolCall {
                id: "call_b".into(),
                name: "read".into(),
                input: second.clone(),
                chunks: 2,
            },
        ],
        Stop::ToolUse,
    )
    .with_usage(ScriptUsage {
        input: 40,
        output: 9,
        cache_read: 60,
        cache_write: 5,
        reasoning: 4,
    });
    server.push(Reply::Stream(script));
    let mut stream = connect(&server);
    send(
        &mut stream,
        "/v1/chat/completions",
        &[],
        &openai_request(true),
        true,
    );
    let response = read_response(stream);
    assert_eq!(response.status, 200);
    assert!(response.complete);
    let events = response.events();
    assert!(events.iter().all(|(name, _)| name.is_none()));
    assert_eq!(response.chunks.len(), events.len(), "one chunk per event");
    let data = response.data();
    assert_eq!(data.last().unwrap(), "[DONE]");

    for (_, data) in &events[..events.len() - 1] {
        assert!(data.starts_with(r#"{"id":"chatcmpl-"#), "{data}");
    }
    let chunks = &data[..data.len() - 1];
    let id = chunks[0]["id"].as_str().unwrap();
    for chunk in chunks {
        assert_eq!(chunk["id"], id);
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(chunk["model"], "gpt-test");
        assert!(chunk["created"].as_u64().unwrap() > 1_600_000_000);
    }
    let deltas: Vec<&Value> = chunks[..chunks.len() - 2]
        .iter()
        .map(|c| {
            assert_eq!(c["choices"][0]["index"], 0);
            assert_eq!(c["choices"][0]["finish_reason"], Value::Null);
            // Asking for usage makes it null on every chunk but the last.
            assert_eq!(c.get("usage"), Some(&Value::Null));
            &c["choices"][0]["delta"]
        })
        .collect();
    assert_eq!(deltas[0], &json!({"role": "assistant", "content": ""}));
    assert_eq!(deltas[1], &json!({"reasoning_content": "hmm"}));
    assert_eq!(deltas[2], &json!({"content": "Running "}));
    assert_eq!(deltas[3], &json!({"content": "it."}));
    assert_eq!(
        deltas[4],
        &json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                                "function": {"name": "bash", "arguments": ""}}]})
    );
    let arguments = |fragments: &[&Value], index: u64| -> Value {
        let text: String = fragments
            .iter()
            .map(|d| {
                let call = &d["tool_calls"][0];
                assert_eq!(call["index"], index);
                assert_eq!(call.as_object().unwrap().len(), 2, "{call}");
                call["function"]["arguments"].as_str().unwrap()
            })
            .collect();
        serde_json::from_str(&text).unwrap()
    };
    assert_eq!(arguments(&deltas[5..10], 0), first);
    assert_eq!(
        deltas[10],
        &json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                                "function": {"name": "read", "arguments": ""}}]})
    );
    assert_eq!(arguments(&deltas[11..13], 1), second);
    assert_eq!(deltas.len(), 13);

    let finish = &chunks[chunks.len() - 2];
    assert_eq!(
        finish["choices"],
        json!([{"index": 0, "delta": {}, "logprobs": null, "finish_reason": "tool_calls"}])
    );
    let usage = &chunks[chunks.len() - 1];
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(
        usage["usage"],
        json!({"prompt_tokens": 100, "completion_tokens": 9, "total_tokens": 109,
               "prompt_tokens_details": {"cached_tokens": 60},
               "completion_tokens_details": {"reasoning_tokens": 4}})
    );
}

#[test]
fn openai_without_include_usage_ends_with_finish_and_done() {
    let server = ModelServer::start();
    for stop in [Stop::EndTurn, Stop::MaxTokens, Stop::Refusal] {
        server.push(Reply::Stream(Script::new(
            vec![Part::Text(vec!["x".into()])],
            stop,
        )));
    }
    for reason in ["stop", "length", "content_filter"] {
        let data = post(&server, "/v1/chat/completions", &openai_request(false)).data();
        assert_eq!(data.len(), 4);
        assert_eq!(data[2]["choices"][0]["finish_reason"], reason);
        assert!(data.iter().all(|d| d.get("usage").is_none()));
        assert_eq!(data[3], "[DONE]");
    }
}

#[test]
fn status_replies_carry_provider_errors_and_retry_after() {
    let server = ModelServer::start();
    server.push(Reply::Status {
        code: 429,
        body: None,
        retry_after: Some("7".into()),
    });
    server.push(Reply::status(529));
    server.push(Reply::status(503));
    server.push(Reply::status(400));
    server.push(Reply::Status {
        code: 429,
        body: None,
        retry_after: Some("2".into()),
    });
    server.push(Reply::Status {
        code: 418,
        body: Some("not json".into()),
        retry_after: None,
    });

    let anthropic_error = |code: u16, kind: &str, retry: Option<&str>| {
        let response = post(&server, "/v1/messages", &anthropic_request());
        assert_eq!(response.status, code);
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(response.header("retry-after"), retry);
        let body = response.json();
        assert_eq!(body["type"], "error");
        assert_eq!(body["error"]["type"], kind);
        assert!(body["error"]["message"].is_string());
    };
    anthropic_error(429, "rate_limit_error", Some("7"));
    anthropic_error(529, "overloaded_error", None);
    anthropic_error(503, "api_error", None);
    anthropic_error(400, "invalid_request_error", None);

    let response = post(&server, "/v1/chat/completions", &openai_request(true));
    assert_eq!(response.status, 429);
    assert_eq!(response.header("retry-after"), Some("2"));
    let error = &response.json()["error"];
    assert!(error["message"].is_string());
    assert_eq!(error["code"], "rate_limit_exceeded");
    assert!(error["type"].is_string());

    let response = post(&server, "/v1/chat/completions", &openai_request(true));
    assert_eq!(response.status, 418);
    assert_eq!(response.body, "not json");
}

#[test]
fn drop_reads_the_request_then_closes_without_a_response() {
    let server = ModelServer::start();
    server.push(Reply::Drop);
    let mut stream = connect(&server);
    send(&mut stream, "/v1/messages", &[], &anthropic_request(), true);
    let mut rest = Vec::new();
    assert_eq!(stream.read_to_end(&mut rest).unwrap(), 0);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn hang_keeps_the_socket_open_and_dropping_the_server_is_prompt() {
    let server = ModelServer::start();
    server.push(Reply::Hang);
    server.push(Reply::Hang);
    let mut stream = connect(&server);
    send(
        &mut stream,
        "/v1/messages",
        &[],
        &anthropic_request(),
        false,
    );
    // A second hanging client that goes away on its own must not hold anything up either.
    let mut quitter = connect(&server);
    send(
        &mut quitter,
        "/v1/chat/completions",
        &[],
        &openai_request(false),
        false,
    );
    server.wait_for_requests(2, PATIENCE);
    drop(quitter);

    stream
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut buf = [0; 16];
    let err = stream.read(&mut buf).expect_err("nothing is sent");
    assert!(
        matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
        "{err}"
    );

    let started = Instant::now();
    drop(server);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    assert_eq!(
        stream.read(&mut buf).unwrap(),
        0,
        "closed by the server's drop"
    );
}

#[test]
fn dropping_the_server_interrupts_a_slow_stream() {
    let server = ModelServer::start();
    server.push(Reply::Stream(
        Script::new(vec![Part::Text(vec!["a".into()])], Stop::EndTurn)
            .with_delay(Duration::from_secs(30)),
    ));
    let mut stream = connect(&server);
    send(
        &mut stream,
        "/v1/messages",
        &[],
        &anthropic_request(),
        false,
    );
    // Once the head has arrived the stream is sitting in its first pause.
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    while line != "\r\n" {
        line.clear();
        reader.read_line(&mut line).unwrap();
    }
    let started = Instant::now();
    drop(server);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let mut rest = String::new();
    reader.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "closed before the first event");
}

#[test]
fn requests_are_recorded_with_lowercased_headers_and_json_bodies() {
    let server = ModelServer::start();
    server.push(Reply::text("a"));
    server.push(Reply::text("b"));
    let mut stream = connect(&server);
    send(
        &mut stream,
        "/v1/messages",
        &[
            ("X-Api-Key", "secret"),
            ("Anthropic-Version", " 2023-06-01 "),
        ],
        &anthropic_request(),
        true,
    );
    assert_eq!(read_response(stream).status, 200);

    // A chunked request body, split mid-JSON.
    let body = openai_request(true).to_string();
    let (a, b) = body.split_at(10);
    let mut stream = connect(&server);
    write!(
        stream,
        "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer k\r\n\
         Transfer-Encoding: chunked\r\n\r\n{:x};ext=1\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\nTrailer: t\r\n\r\n",
        a.len(),
        b.len()
    )
    .unwrap();
    assert_eq!(read_response(stream).status, 200);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first.method, "POST");
    assert_eq!(first.path, "/v1/messages");
    assert_eq!(first.body, anthropic_request());
    assert_eq!(first.header("x-api-key"), Some("secret"));
    assert_eq!(first.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(first.header("expect"), Some("100-continue"));
    assert!(
        first
            .headers
            .iter()
            .all(|(name, _)| *name == name.to_ascii_lowercase())
    );
    let names: Vec<&str> = first.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "host",
            "content-type",
            "content-length",
            "x-api-key",
            "anthropic-version",
            "expect"
        ]
    );
    let second = &requests[1];
    assert_eq!(second.path, "/v1/chat/completions?x=1");
    assert_eq!(second.body, openai_request(true));
    assert_eq!(second.header("authorization"), Some("Bearer k"));
}

#[test]
fn replies_are_served_in_push_order_whatever_the_provider() {
    let server = ModelServer::start();
    server.push(Reply::text("first"));
    server.push(Reply::status(500));
    server.push(Reply::text("third"));
    let text = |response: Response| -> String {
        response
            .data()
            .iter()
            .filter_map(|d| {
                d["delta"]["text"]
                    .as_str()
                    .or(d["choices"][0]["delta"]["content"].as_str())
                    .map(str::to_owned)
            })
            .collect()
    };
    assert_eq!(
        text(post(
            &server,
            "/v1/chat/completions",
            &openai_request(false)
        )),
        "first"
    );
    assert_eq!(
        post(&server, "/v1/messages", &anthropic_request()).status,
        500
    );
    assert_eq!(
        text(post(&server, "/v1/messages", &anthropic_request())),
        "third"
    );
}

#[test]
fn an_empty_queue_answers_500_saying_so() {
    let server = ModelServer::start();
    let response = post(&server, "/v1/messages", &anthropic_request());
    assert_eq!(response.status, 500);
    assert!(
        response
            .body
            .contains("model server: no scripted reply left"),
        "{}",
        response.body
    );
    let response = post(&server, "/v1/chat/completions", &openai_request(false));
    assert_eq!(response.status, 500);
    let message = response.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("no scripted reply left"), "{message}");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn an_unknown_path_is_404_recorded_and_leaves_the_queue_alone() {
    let server = ModelServer::start();
    server.push(Reply::text("kept"));
    let response = post(&server, "/v1/v1/chat/completions", &json!({}));
    assert_eq!(response.status, 404);
    assert!(response.body.contains("/v1/v1/chat/completions"));
    assert_eq!(server.requests()[0].path, "/v1/v1/chat/completions");
    assert_eq!(
        post(&server, "/v1/messages", &anthropic_request()).status,
        200
    );
}

#[test]
fn cut_after_closes_mid_stream() {
    let server = ModelServer::start();
    server.push(Reply::Stream(
        Script::new(
            vec![Part::Text(vec!["a".into(), "b".into()])],
            Stop::EndTurn,
        )
        .cut_after(3),
    ));
    server.push(Reply::Stream(
        Script::new(vec![Part::Text(vec!["a".into()])], Stop::EndTurn).cut_after(100),
    ));
    let response = post(&server, "/v1/messages", &anthropic_request());
    assert!(!response.complete);
    let names: Vec<String> = response.events().into_iter().filter_map(|e| e.0).collect();
    assert_eq!(names, ["message_start", "content_block_start", "ping"]);
    let response = post(&server, "/v1/chat/completions", &openai_request(false));
    assert!(response.complete, "a cut past the end changes nothing");
}

#[test]
fn a_delayed_stream_arrives_event_by_event() {
    let server = ModelServer::start();
    let delay = Duration::from_millis(100);
    server.push(Reply::Stream(
        Script::new(
            vec![Part::Text(vec!["a".into(), "b".into()])],
            Stop::EndTurn,
        )
        .with_delay(delay),
    ));
    let mut stream = connect(&server);
    let started = Instant::now();
    send(
        &mut stream,
        "/v1/chat/completions",
        &[],
        &openai_request(false),
        false,
    );
    let mut reader = BufReader::new(stream);
    let mut arrivals = Vec::new();
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 {
        if line.starts_with("data: ") {
            arrivals.push(started.elapsed());
        }
        line.clear();
    }
    // role, two contents, finish, [DONE]
    assert_eq!(arrivals.len(), 5);
    assert!(arrivals[0] >= delay);
    assert!(arrivals[4] >= delay * 5);
    assert!(
        arrivals[4] - arrivals[0] >= delay * 3,
        "events were held back: {arrivals:?}"
    );
}

#[test]
fn a_hundred_thousand_deltas_stream_intact() {
    let server = ModelServer::start();
    let deltas: Vec<String> = (0..100_000).map(|i| format!("{} ", i % 10)).collect();
    server.push(Reply::Stream(Script::new(
        vec![Part::Text(deltas)],
        Stop::EndTurn,
    )));
    let data = post(&server, "/v1/messages", &anthropic_request()).data();
    let texts = data.iter().filter(|d| d["type"] == "content_block_delta");
    assert_eq!(texts.count(), 100_000);
    assert_eq!(data.last().unwrap()["type"], "message_stop");
}

#[test]
#[should_panic(expected = "model server: expected 1 requests")]
fn wait_for_requests_panics_clearly_on_timeout() {
    let server = ModelServer::start();
    server.wait_for_requests(1, Duration::from_millis(50));
}

fn curl_available() -> bool {
    Command::new("curl")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn curl_streams_with_expect_continue() {
    if !curl_available() {
        eprintln!("curl is not installed; skipping");
        return;
    }
    let server = ModelServer::start();
    server.push(Reply::Stream(
        Script::new(
            vec![Part::Text(vec!["a".into(), "b".into(), "c".into()])],
            Stop::EndTurn,
        )
        .with_delay(Duration::from_millis(150)),
    ));
    // libcurl in the product sends large bodies after 100-continue; this curl only does so
    // for far larger ones, so it is asked to.
    let mut body = anthropic_request();
    body["system"] = json!("x".repeat(4096));
    let mut curl = Command::new("curl")
        .args([
            "-svN",
            "-m",
            "20",
            "-X",
            "POST",
            "-H",
            "content-type: application/json",
        ])
        .args(["-H", "Expect: 100-continue", "--data-binary", "@-"])
        .arg(format!("{}/v1/messages", server.anthropic_base_url()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    curl.stdin
        .take()
        .unwrap()
        .write_all(body.to_string().as_bytes())
        .unwrap();
    let mut out = BufReader::new(curl.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first, "event: message_start\n");
    assert!(
        curl.try_wait().unwrap().is_none(),
        "curl saw the first event before the stream ended"
    );
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(curl.wait().unwrap().success());
    let mut verbose = String::new();
    let mut stderr = curl.stderr.take().unwrap();
    stderr.read_to_string(&mut verbose).unwrap();
    // Without it curl would wait a second, then send the body anyway.
    assert!(verbose.contains("< HTTP/1.1 100 Continue"), "{verbose}");
    let text = first + &rest;
    assert!(text.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
    assert_eq!(text.matches("\"type\":\"text_delta\"").count(), 3);

    let request = &server.requests()[0];
    assert_eq!(request.header("expect"), Some("100-continue"));
    assert_eq!(request.body, body);
}

#[test]
fn curl_sees_retry_after_and_a_cut_stream() {
    if !curl_available() {
        eprintln!("curl is not installed; skipping");
        return;
    }
    let server = ModelServer::start();
    server.push(Reply::Status {
        code: 429,
        body: None,
        retry_after: Some("3".into()),
    });
    server.push(Reply::Stream(
        Script::new(vec![Part::Text(vec!["a".into()])], Stop::EndTurn).cut_after(2),
    ));
    let curl = |url: String| {
        Command::new("curl")
            .args(["-si", "-m", "20", "-X", "POST", "-d", "{\"model\":\"m\"}"])
            .arg(url)
            .output()
            .unwrap()
    };
    let out = curl(format!("{}/chat/completions", server.openai_base_url()));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("HTTP/1.1 429 Too Many Requests\r\n"),
        "{text}"
    );
    assert!(text.contains("\r\nretry-after: 3\r\n"), "{text}");

    let out = curl(format!("{}/v1/messages", server.anthropic_base_url()));
    // 18: "transfer closed with outstanding read data remaining".
    assert_eq!(out.status.code(), Some(18));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("event: content_block_start"), "{text}");
    assert!(!text.contains("event: ping"), "{text}");
}

/// The server's 400 refusal of a request of `prompt_tokens` as too long for `window`.
fn refusal(server: &ModelServer, prompt_tokens: u64, window: u64) -> Response {
    server.push(Reply::Overflow {
        prompt_tokens,
        window,
    });
    let refused = post(server, "/v1/chat/completions", &openai_request(true));
    assert_eq!(refused.status, 400);
    refused
}

/// The raw `data:` texts of a stream, key order included.
fn raw_data(response: &Response) -> Vec<String> {
    response.events().into_iter().map(|(_, d)| d).collect()
}

fn text_and_call() -> Reply {
    let call = Part::ToolCall {
        id: "call_7".into(),
        name: "read".into(),
        input: json!({"path": "a.txt"}),
        chunks: 3,
    };
    Reply::Stream(
        Script::new(vec![Part::Text(vec!["Hi".into()]), call], Stop::ToolUse).with_usage(
            ScriptUsage {
                input: 30,
                output: 7,
                cache_read: 3,
                ..ScriptUsage::default()
            },
        ),
    )
}

#[test]
fn llama_cpp_streams_as_llama_server_does() {
    let server = ModelServer::start();
    server.serve_llama_info(2048, true);
    server.push(text_and_call());
    server.push(text_and_call());
    let with_usage = post(&server, "/v1/chat/completions", &openai_request(true));
    let raw = raw_data(&with_usage);
    // Captured from llama-server: `choices` first, a role-only chunk with a null content.
    assert!(
        raw[0].starts_with(
            r#"{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":"#
        ),
        "{}",
        raw[0]
    );
    assert!(raw[0].ends_with(
        r#","model":"gpt-test","system_fingerprint":"b0-unknown","object":"chat.completion.chunk"}"#
    ));
    assert!(
        raw[1].starts_with(
            r#"{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hi"}}]"#
        )
    );
    // The first delta of a call names it and carries the first fragment.
    assert!(raw[2].starts_with(
        r#"{"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_7","type":"function","function":{"name":"read","arguments":"{\"pat"}}]}}]"#
    ), "{}", raw[2]);
    let data = with_usage.data();
    let n = data.len();
    assert_eq!(data[n - 3]["choices"][0]["finish_reason"], "tool_calls");
    assert!(data[n - 3].get("timings").is_none());
    assert_eq!(data[n - 2]["choices"], json!([]));
    assert_eq!(
        data[n - 2]["usage"],
        json!({"completion_tokens":7,"prompt_tokens":33,"total_tokens":40,"prompt_tokens_details":{"cached_tokens":3}})
    );
    assert_eq!(data[n - 2]["timings"]["prompt_n"], 30);
    assert_eq!(data[n - 2]["timings"]["cache_n"], 3);
    assert_eq!(data[n - 1], "[DONE]");
    // Without include_usage: no usage anywhere, the timings on the finishing chunk.
    let data = post(&server, "/v1/chat/completions", &openai_request(false)).data();
    let n = data.len();
    assert!(data.iter().all(|d| d.get("usage").is_none()), "{data:?}");
    assert_eq!(data[n - 2]["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(data[n - 2]["timings"]["predicted_n"], 7);

    let refused = refusal(&server, 2301, 2048);
    assert_eq!(
        refused.body,
        r#"{"error":{"code":400,"message":"request (2301 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":2301,"n_ctx":2048}}"#
    );
}

#[test]
fn ollama_streams_as_its_openai_endpoint_does_and_answers_api_show() {
    let server = ModelServer::start();
    server.serve_ollama_info("qwen2.5:0.5b", 32768, Some(8192), true);
    server.push(text_and_call());
    let data = post(&server, "/v1/chat/completions", &openai_request(true)).data();
    // Every delta says its role; no role-only chunk; the call arrives whole.
    assert_eq!(
        data[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": "Hi"})
    );
    assert_eq!(data[0]["system_fingerprint"], "fp_ollama");
    assert_eq!(
        data[1]["choices"][0]["delta"]["tool_calls"],
        json!([{"id": "call_7", "index": 0, "type": "function",
                "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}}])
    );
    assert_eq!(data[2]["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(
        data[3],
        json!({"id": data[3]["id"], "object": "chat.completion.chunk", "created": data[3]["created"],
               "model": "gpt-test", "system_fingerprint": "fp_ollama", "choices": [],
               "usage": {"prompt_tokens": 33, "completion_tokens": 7, "total_tokens": 40}})
    );
    assert_eq!(data[4], "[DONE]");

    let show = post(&server, "/api/show", &json!({"model": "qwen2.5:0.5b"})).json();
    assert_eq!(show["model_info"]["qwen2.context_length"], 32768);
    assert!(
        show["parameters"]
            .as_str()
            .unwrap()
            .contains("num_ctx                        8192")
    );
    assert_eq!(show["capabilities"], json!(["completion", "tools"]));
    assert_eq!(server.requests().last().unwrap().method, "POST");

    let refused = refusal(&server, 9000, 8192);
    assert_eq!(
        refused.json()["error"]["message"],
        "the input length exceeds the context length"
    );
}

#[test]
fn vllm_streams_as_its_openai_server_does() {
    let server = ModelServer::start();
    server.serve_vllm_info("Qwen/Qwen2.5-0.5B-Instruct", 4096);
    server.push(text_and_call());
    let data = post(&server, "/v1/chat/completions", &openai_request(true)).data();
    assert_eq!(
        data[0]["choices"][0],
        json!({"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": null,
               "finish_reason": null})
    );
    // Named first, arguments after.
    assert_eq!(
        data[2]["choices"][0]["delta"]["tool_calls"],
        json!([{"id": "call_7", "type": "function", "index": 0, "function": {"name": "read"}}])
    );
    let n = data.len();
    assert_eq!(
        data[n - 3]["choices"][0],
        json!({"index": 0, "delta": {"content": ""}, "logprobs": null,
               "finish_reason": "tool_calls", "stop_reason": null})
    );
    assert_eq!(
        data[n - 2]["usage"],
        json!({"prompt_tokens": 33, "total_tokens": 40, "completion_tokens": 7})
    );
    assert!(data[..n - 2].iter().all(|d| d.get("usage").is_none()));

    let refused = refusal(&server, 4200, 4096);
    assert_eq!(
        refused.json()["error"]["message"],
        "This model's maximum context length is 4096 tokens. However, your request has 4200 input tokens. Please reduce the length of the input messages."
    );
}
