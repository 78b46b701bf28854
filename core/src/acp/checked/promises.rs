//! ACP's promises, checked on every line luxe writes: one JSON-RPC message a line, no `.env`
//! value, every request answered once, no update of a session before its creation answer or of
//! a turn after its prompt's answer, every request to the client under an id of its own.

use serde_json::Value;

use super::{Checked, SECRET};
use crate::effects::{Input, Output};

impl Checked {
    /// Takes every output: messages checked, appends done at once, effects queued for
    /// [`Checked::effect`].
    pub(super) fn drain(&mut self) {
        while let Some(output) = self.acp.poll_output() {
            assert!(!self.exited, "an output after exit: {output:?}");
            match output {
                Output::Message(message) => {
                    let mut line = Vec::new();
                    message.encode(&mut line);
                    self.check(&line);
                }
                Output::Frame(frame) => panic!("an --rpc frame in --acp: {:?}", frame.event()),
                Output::Exit { .. } => self.exited = true,
                // As the driver does: at once, before anything else.
                Output::AppendFile { id, path, bytes } => {
                    self.files
                        .entry(path)
                        .or_default()
                        .extend_from_slice(&bytes);
                    self.acp
                        .handle_input(self.now, Input::FileAppended { id, result: Ok(()) });
                }
                Output::CancelHttp { id } | Output::Kill { id } => {
                    self.effects.retain(|e| e.result_id() != Some(id));
                }
                Output::CloseOpened { handle } => self.io.closed(handle),
                Output::SyncFile { .. } => {}
                Output::Log(line) => self.logs.push(line),
                effect => self.effects.push_back(effect),
            }
        }
    }

    /// One line luxe wrote: one JSON-RPC message, no `.env` value in it.
    fn check(&mut self, line: &[u8]) {
        self.written += line.len();
        let text = std::str::from_utf8(line).expect("a line is UTF-8");
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "one line: {text}"
        );
        assert!(
            !text.contains(SECRET),
            "a .env value reached the client: {text}"
        );
        let message: Value = serde_json::from_str(text).expect("a line is JSON");
        assert_eq!(message["jsonrpc"], "2.0", "{text}");
        self.seen.push(message.clone());
        match message.get("method").and_then(Value::as_str) {
            Some(method) => self.check_request(method, &message, text),
            None => self.check_answer(&message, text),
        }
    }

    /// A request or notification luxe sent: of a session the client knows, of a prompt that
    /// runs, under an id of its own.
    fn check_request(&mut self, method: &str, message: &Value, text: &str) {
        let session = message["params"]["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        match method {
            "session/update" => {
                let loading = self.loading.get(&session).is_some_and(|n| *n > 0);
                assert!(
                    self.open.contains(&session) || loading,
                    "an update before its session's creation answer: {text}"
                );
                let kind = message["params"]["update"]["sessionUpdate"]
                    .as_str()
                    .unwrap_or_default();
                let of_a_turn = !matches!(
                    kind,
                    "available_commands_update" | "current_mode_update" | "config_option_update"
                );
                if of_a_turn && !loading {
                    assert!(
                        self.prompts.get(&session).is_some_and(|n| *n > 0),
                        "an update of a turn with no prompt unanswered: {text}"
                    );
                }
            }
            "session/request_permission" => {
                let id = message["id"]
                    .as_u64()
                    .expect("a permission request has an id");
                assert!(self.asked.insert(id), "permission request id {id} twice");
                assert!(
                    self.prompts.get(&session).is_some_and(|n| *n > 0),
                    "a permission request with no prompt running: {text}"
                );
                self.unanswered_asks.push_back((id, session));
            }
            "fs/read_text_file" | "fs/write_text_file" => {
                let id = message["id"].as_u64().expect("a file request has an id");
                assert!(self.asked.insert(id), "request id {id} twice");
                let path = message["params"]["path"].as_str().expect("a path");
                assert!(
                    !crate::permissions::is_env_file(path),
                    "the client was asked for {path}"
                );
                assert!(
                    self.open.contains(&session),
                    "a file request of no session: {text}"
                );
                self.unanswered_fs.push_back((id, method.to_owned()));
            }
            "elicitation/create" => {
                let id = message["id"].as_u64().expect("a question has an id");
                assert!(self.asked.insert(id), "request id {id} twice");
                assert!(
                    self.prompts.get(&session).is_some_and(|n| *n > 0),
                    "a question with no prompt running: {text}"
                );
                let answer = &message["params"]["requestedSchema"]["properties"]["answer"];
                let labels = answer["oneOf"]
                    .as_array()
                    .map(|o| {
                        o.iter()
                            .filter_map(|c| c["const"].as_str())
                            .collect::<Vec<_>>()
                    })
                    .or_else(|| {
                        answer["items"]["enum"]
                            .as_array()
                            .map(|e| e.iter().filter_map(Value::as_str).collect())
                    })
                    .expect("the choices");
                let labels = labels.into_iter().map(str::to_owned).collect();
                self.unanswered_questions.push_back((id, labels));
            }
            other => panic!("luxe sent an unknown method {other}: {text}"),
        }
    }

    /// An answer luxe sent: to a request the client made and luxe had not answered yet.
    fn check_answer(&mut self, message: &Value, text: &str) {
        let id = &message["id"];
        assert!(
            message.get("result").is_some() != message.get("error").is_some(),
            "a response has a result or an error: {text}"
        );
        if id.is_null() {
            assert!(
                self.null_answers > 0,
                "an answer under a null id nobody asked for: {text}"
            );
            self.null_answers -= 1;
            return;
        }
        let id = id.as_u64().expect("our ids are numbers");
        let (method, session) = self
            .pending
            .remove(&id)
            .unwrap_or_else(|| panic!("request {id} answered twice or never asked: {text}"));
        let ok = message.get("result").is_some();
        match method.as_str() {
            "session/new" if ok => {
                let created = message["result"]["sessionId"]
                    .as_str()
                    .expect("sessionId")
                    .to_owned();
                self.open.insert(created.clone());
                self.created.push(created);
            }
            "session/load" | "session/resume" => {
                let session = session.unwrap_or_default();
                if method == "session/load"
                    && let Some(n) = self.loading.get_mut(&session)
                {
                    *n = n.saturating_sub(1);
                }
                if ok {
                    self.open.insert(session.clone());
                    self.created.push(session);
                }
            }
            "session/prompt" => {
                let session = session.unwrap_or_default();
                if let Some(n) = self.prompts.get_mut(&session) {
                    *n = n.saturating_sub(1);
                }
            }
            "session/close" if ok => {
                self.open.remove(&session.unwrap_or_default());
            }
            _ => {}
        }
    }
}
