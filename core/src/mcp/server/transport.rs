//! A server's transport: a process on stdio (spawned, its stdout read as lines, its stderr's
//! tail kept for the reason it failed, its exit) or a link over HTTP (its answers), and ending
//! either.

use std::time::Instant;

use super::{Server, Status};
use crate::effects::{EffectId, Input, Output, Stream};
use crate::mcp::config::Transport;
use crate::mcp::http::HttpLink;
use crate::mcp::jsonrpc::Lines;
use crate::mcp::{Io, McpEvent, McpSettings};

/// The most of a server's stderr kept, for the reason it failed.
const STDERR_TAIL: usize = 2000;

impl Server {
    /// Whether `id` is this server's running process.
    pub fn owns(&self, id: EffectId) -> bool {
        self.process == Some(id)
    }

    /// Whether `id` is a process of this server that luxe killed: its late output is dropped,
    /// and it is forgotten once its exit comes (`exited`).
    pub fn retired(&mut self, id: EffectId, exited: bool) -> bool {
        let found = self.retired.contains(&id);
        if exited {
            self.retired.retain(|r| *r != id);
        }
        found
    }

    pub(super) fn kill(&mut self, io: &mut Io<'_>) {
        if let Some(id) = self.process.take() {
            io.push(Output::Kill { id });
            self.retired.push(id);
        }
        if let Some(mut http) = self.http.take() {
            http.close(io);
        }
    }

    /// Whether `id` is one of this server's HTTP requests.
    pub fn owns_post(&self, id: EffectId) -> bool {
        self.http.as_ref().is_some_and(|http| http.owns(id))
    }

    /// One of this server's HTTP requests got an answer (or failed).
    pub fn http_input(
        &mut self,
        now: Instant,
        input: &Input<'_>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let Some(http) = self.http.as_mut() else {
            return Vec::new();
        };
        let messages = match input {
            Input::HttpHeaders { id, headers } => {
                http.headers(*id, headers);
                Ok(Vec::new())
            }
            Input::HttpResponse { id, status, .. } => {
                http.status(*id, *status);
                Ok(Vec::new())
            }
            Input::HttpBody { id, bytes } => http.body(*id, bytes),
            Input::HttpEnded { id } => http.ended(*id),
            Input::HttpFailed { id, error } => match http.failed(*id, error) {
                Some(why) => Err(why),
                None => Ok(Vec::new()),
            },
            _ => Ok(Vec::new()),
        };
        match messages {
            Ok(messages) => self.messages(now, messages, settings, io),
            Err(why) => self.fail(now, why, settings, io),
        }
    }

    /// Starts the process and sends `initialize`.
    pub fn start(
        &mut self,
        now: Instant,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.status = Status::Starting;
        self.launched = true;
        self.lines = Lines::default();
        self.stderr.clear();
        let (command, args, env, cwd) = match &self.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => (command, args, env, cwd),
            Transport::Http { url, headers } => {
                match settings.expand_all(headers, "header") {
                    Ok(headers) => self.http = Some(HttpLink::new(url.clone(), headers)),
                    Err(why) => return self.fail(now, why, settings, io),
                }
                self.initialize(now, settings, io);
                return Vec::new();
            }
        };
        let mut environment = settings.env.inherited();
        match settings.expand_all(env, "env") {
            Ok(env) => environment.extend(env),
            Err(why) => return self.fail(now, why, settings, io),
        }
        let id = io.id();
        self.process = Some(id);
        io.push(Output::SpawnPiped {
            id,
            program: command.clone(),
            args: args.clone(),
            cwd: cwd.clone().unwrap_or_else(|| settings.cwd.clone()),
            env: environment,
        });
        self.initialize(now, settings, io);
        Vec::new()
    }

    /// The process wrote `bytes` on `stream`.
    pub fn output(
        &mut self,
        now: Instant,
        stream: Stream,
        bytes: &[u8],
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        if stream == Stream::Stderr {
            self.stderr.push_str(&String::from_utf8_lossy(bytes));
            if self.stderr.len() > STDERR_TAIL * 2 {
                let mut cut = self.stderr.len() - STDERR_TAIL;
                while !self.stderr.is_char_boundary(cut) {
                    cut += 1;
                }
                self.stderr.drain(..cut);
            }
            return Vec::new();
        }
        match self.lines.push(bytes) {
            Ok(lines) => self.messages(now, lines, settings, io),
            Err(why) => self.fail(now, why, settings, io),
        }
    }

    /// The process ended.
    pub fn exited(
        &mut self,
        now: Instant,
        status: &Result<Option<i32>, String>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.process = None;
        let mut why = match status {
            Ok(Some(code)) => format!("it exited with status {code}"),
            Ok(None) => "it was killed by a signal".to_owned(),
            Err(err) => format!("it could not start: {err}"),
        };
        let stderr = self.stderr.trim();
        if !stderr.is_empty() {
            let last: String = stderr
                .lines()
                .last()
                .unwrap_or("")
                .chars()
                .take(300)
                .collect();
            why.push_str(&format!(" (its last words: {last})"));
        }
        self.fail(now, why, settings, io)
    }
}
