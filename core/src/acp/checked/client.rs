//! The client's side: requests and notifications sent (and counted, so that their answers can
//! be checked), lines that are no request, and answers to what luxe asked the client.

use serde_json::{Value, json};

use super::Checked;
use crate::effects::Input;

impl Checked {
    /// Sends a request of `method`; returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let session = params
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if !self.exited {
            self.pending
                .insert(id, (method.to_owned(), session.clone()));
            if method == "session/load"
                && let Some(session) = &session
            {
                *self.loading.entry(session.clone()).or_default() += 1;
            }
            if method == "session/prompt"
                && let Some(session) = session
            {
                *self.prompts.entry(session).or_default() += 1;
            }
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.feed_line(line.to_string().as_bytes());
        id
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.feed_line(line.to_string().as_bytes());
    }

    /// Sends a line that is not a request: it gets one answer under a `null` id, unless it is
    /// blank or an object with an id (then under that id, which `raw` must not reuse).
    pub fn garbage(&mut self, line: &[u8]) {
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if !blank && !self.exited {
            self.null_answers += 1;
        }
        self.feed_line(line);
    }

    /// Sends one client line, LF appended.
    pub(super) fn feed_line(&mut self, line: &[u8]) {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        self.input(Input::ClientBytes(&bytes));
    }

    /// Answers the oldest permission request with `choice` (0 once, 1 always, 2 reject,
    /// 3 cancelled, else an error); `false` when none waits.
    pub fn answer_permission(&mut self, choice: u8) -> bool {
        let Some((id, _)) = self.unanswered_asks.pop_front() else {
            return false;
        };
        let result = match choice {
            0 => json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}}),
            1 => json!({"outcome": {"outcome": "selected", "optionId": "allow_always"}}),
            2 => json!({"outcome": {"outcome": "selected", "optionId": "reject_once"}}),
            3 => json!({"outcome": {"outcome": "cancelled"}}),
            _ => {
                let line =
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "x"}});
                self.feed_line(line.to_string().as_bytes());
                return true;
            }
        };
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
        self.feed_line(line.to_string().as_bytes());
        true
    }

    /// Answers the oldest question (`choice` 0: the first label; 1: declined; else an error);
    /// `false` when none waits.
    pub fn answer_question(&mut self, choice: u8) -> bool {
        let Some((id, labels)) = self.unanswered_questions.pop_front() else {
            return false;
        };
        let line = match choice {
            0 => json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept",
                "content": {"answer": labels.first().cloned().unwrap_or_default()}}}),
            1 => json!({"jsonrpc": "2.0", "id": id, "result": {"action": "decline"}}),
            _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "no"}}),
        };
        self.feed_line(line.to_string().as_bytes());
        true
    }

    /// Answers the oldest file request to the client (`ok`: with the file, else an error);
    /// `false` when none waits.
    pub fn answer_fs(&mut self, ok: bool) -> bool {
        let Some((id, method)) = self.unanswered_fs.pop_front() else {
            return false;
        };
        let line = match (ok, method.as_str()) {
            (true, "fs/read_text_file") => {
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": "from the editor\n"}})
            }
            (true, _) => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            (false, _) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32002, "message": "gone"}})
            }
        };
        self.feed_line(line.to_string().as_bytes());
        true
    }
}
