//! Opening sessions (`session/new`, `load`, `resume`: io looks at the directory, a stored
//! session is read) and listing the store (`session/list`).

use std::collections::VecDeque;
use std::time::Instant;

use serde_json::{Value, json};

use crate::config::{SessionFile, civil_from_days};
use crate::effects::{Input, Output};
use crate::protocol::events::SessionSummary;
use crate::session::Session;

use super::super::jsonrpc::{self, RpcError, code};
use super::super::messages::Params;
use super::super::modes;
use super::super::translate::Translator;
use super::{Host, Hosted};
use crate::effects::Site;
use crate::mcp::config::ServerConfig;

/// The most bytes of a session file read for `session/load` and `resume`.
const SESSION_FILE_MAX: u64 = 1 << 30;

/// Sessions one `session/list` page holds.
const LIST_PAGE: usize = 50;

/// How a session is being opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum OpenKind {
    /// `session/new`.
    New,
    /// `session/load` of this id: replay, then answer.
    Load(String),
    /// `session/resume` of this id: answer, no replay.
    Resume(String),
}

/// A `session/new`, `load` or `resume` waiting for io.
#[derive(Debug)]
pub(super) struct Opening {
    pub(super) request: Value,
    pub(super) kind: OpenKind,
    pub(super) mcp_servers: Vec<ServerConfig>,
    pub(super) site: Option<Site>,
}

/// A `session/list` waiting for the store to be read.
#[derive(Debug)]
pub(super) struct Listing {
    pub(super) request: Value,
    pub(super) cwd: Option<String>,
    pub(super) offset: usize,
}

/// Seconds since the epoch as RFC 3339 UTC.
fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl Host {
    /// Starts opening a session: io looks at the directory first.
    pub(super) fn open(
        &mut self,
        request: &Value,
        p: &Params<'_>,
        kind: OpenKind,
    ) -> Option<Result<Value, RpcError>> {
        let checked = (|| {
            let cwd = p.cwd()?.to_owned();
            let mcp_servers = p.mcp_servers(matches!(kind, OpenKind::New | OpenKind::Load(_)))?;
            if let OpenKind::Load(id) | OpenKind::Resume(id) = &kind {
                crate::store::file_name(id)
                    .map_err(|e| RpcError::invalid_params(format!("`sessionId`: {e}")))?;
                let opening = self.opening.values().any(|o| {
                    matches!(&o.kind, OpenKind::Load(other) | OpenKind::Resume(other) if other == id)
                });
                if self.by_id.contains_key(id) || opening {
                    return Err(RpcError::invalid_params(format!(
                        "session {id:?} is already open in this agent"
                    )));
                }
                if self.base.sessions_dir.is_none() {
                    return Err(RpcError::new(
                        code::RESOURCE_NOT_FOUND,
                        "no sessions are kept (no LUXE_HOME and no home directory)",
                    ));
                }
            }
            Ok((cwd, mcp_servers))
        })();
        let (cwd, mcp_servers) = match checked {
            Ok(checked) => checked,
            Err(e) => return Some(Err(e)),
        };
        let id = self.table.own();
        self.opening.insert(
            id,
            Opening {
                request: request.clone(),
                kind,
                mcp_servers,
                site: None,
            },
        );
        self.outputs.push_back(Output::PrepareSite { id, cwd });
        None
    }

    pub(super) fn own_effect(&mut self, now: Instant, input: Input<'_>) {
        match input {
            Input::SitePrepared { id, result } => {
                let Some(mut opening) = self.opening.remove(&id) else {
                    return;
                };
                let site = match result {
                    Ok(site) => *site,
                    Err(reason) => {
                        return self.answer(
                            opening.request,
                            Err(RpcError::invalid_params(format!("`cwd`: {reason}"))),
                        );
                    }
                };
                match &opening.kind {
                    OpenKind::New => self.start(now, opening, site, None),
                    OpenKind::Load(session) | OpenKind::Resume(session) => {
                        let (Some(dir), Ok(name)) =
                            (&self.base.sessions_dir, crate::store::file_name(session))
                        else {
                            return;
                        };
                        let path = format!("{dir}/{name}");
                        let read = self.table.own();
                        opening.site = Some(site);
                        self.opening.insert(read, opening);
                        self.outputs.push_back(Output::ReadFile {
                            id: read,
                            path,
                            max_bytes: SESSION_FILE_MAX,
                        });
                    }
                }
            }
            Input::FileRead { id, result } => {
                let Some(mut opening) = self.opening.remove(&id) else {
                    return;
                };
                let Some(site) = opening.site.take() else {
                    return;
                };
                let (OpenKind::Load(session) | OpenKind::Resume(session)) = &opening.kind else {
                    return;
                };
                let file = match result {
                    Ok(content) => content.bytes,
                    Err(_) => {
                        let error = RpcError::new(
                            code::RESOURCE_NOT_FOUND,
                            format!("no stored session {session:?}"),
                        );
                        return self.answer(opening.request, Err(error));
                    }
                };
                let path = format!(
                    "{}/{}",
                    self.base.sessions_dir.as_deref().unwrap_or_default(),
                    crate::store::file_name(session).unwrap_or_default()
                );
                let resume = SessionFile { path, bytes: file };
                self.start(now, opening, site, Some(resume));
            }
            Input::SessionsRead { id, result } => {
                if let Some(listing) = self.listing.remove(&id) {
                    self.listed(listing, result);
                }
            }
            _ => {}
        }
    }

    /// Starts the session and answers its opening request.
    pub(super) fn start(
        &mut self,
        now: Instant,
        opening: Opening,
        site: Site,
        resume: Option<SessionFile>,
    ) {
        let mut config = site.config(&self.base, resume);
        // The client's servers join the configured ones, started after the session's `ready`
        // like them (one of the same name replaces the configured one).
        config.extra_mcp_servers = opening.mcp_servers.clone();
        // `ask_user` is offered only when the client can put the question to the user.
        config.questions = self.client.elicitation;
        let session = match Session::start(&config, now) {
            Ok(session) => session,
            Err(err) => {
                let error = RpcError::new(code::INTERNAL_ERROR, err.0);
                return self.answer(opening.request, Err(error));
            }
        };
        let id = session.id().to_owned();
        let slot = self.next_slot;
        self.next_slot += 1;
        let redactor = session.redactor().clone();
        self.sessions.insert(
            slot,
            Hosted {
                id: id.as_str().into(),
                session,
                redactor,
                translator: Translator::new(
                    &site.cwd,
                    !matches!(opening.kind, OpenKind::Resume(_)),
                ),
                state: None,
                running: None,
                queue: VecDeque::new(),
                cancel_queue: false,
                title: None,
                title_sent: false,
                announced: (String::new(), Value::Null),
                quiet: false,
                output_sent: None,
                output_due: None,
            },
        );
        self.by_id.insert(id.clone(), slot);
        // A load's replay goes out here, before its answer.
        self.pump(now, slot);
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let Some(state) = hosted.state.clone() else {
            return;
        };
        let modes = modes::modes(&state);
        let options = modes::config_options(&state, self.access);
        hosted.announced = (modes::mode_id(&state).to_owned(), options.clone());
        let mut result = json!({"modes": modes, "configOptions": options});
        if opening.kind == OpenKind::New {
            result["sessionId"] = json!(id);
        }
        let redactor = hosted.redactor.clone();
        self.write(jsonrpc::response(opening.request, Ok(result)), &redactor);
        let commands = json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "compact", "description": "Summarise the older conversation to free context",
             "input": {"hint": "what the summary should keep"}},
        ]});
        self.update(slot, commands);
    }

    pub(super) fn list(
        &mut self,
        request: &Value,
        p: &Params<'_>,
    ) -> Option<Result<Value, RpcError>> {
        let parsed = (|| {
            let cwd = p.opt_string("cwd")?.map(str::to_owned);
            let offset = match p.opt_string("cursor")? {
                Some(cursor) => cursor.parse::<usize>().map_err(|_| {
                    RpcError::invalid_params("session/list: `cursor` is not one this agent gave")
                })?,
                None => 0,
            };
            Ok((cwd, offset))
        })();
        let (cwd, offset) = match parsed {
            Ok(parsed) => parsed,
            Err(e) => return Some(Err(e)),
        };
        let Some(dir) = self.base.sessions_dir.clone() else {
            return Some(Ok(json!({"sessions": []})));
        };
        let id = self.table.own();
        self.listing.insert(
            id,
            Listing {
                request: request.clone(),
                cwd,
                offset,
            },
        );
        self.outputs.push_back(Output::ReadSessions { id, dir });
        None
    }

    pub(super) fn listed(
        &mut self,
        listing: Listing,
        result: Result<Vec<(String, Vec<u8>, u64)>, String>,
    ) {
        let files = match result {
            Ok(files) => files,
            Err(reason) => {
                let error = RpcError::new(
                    code::INTERNAL_ERROR,
                    format!("the sessions could not be listed: {reason}"),
                );
                return self.answer(listing.request, Err(error));
            }
        };
        // Every directory's when no `cwd` is given: each file names its own.
        let mut found: Vec<(String, SessionSummary)> = Vec::new();
        let cwds: Vec<String> = match &listing.cwd {
            Some(cwd) => vec![cwd.clone()],
            None => {
                let mut cwds: Vec<String> = files
                    .iter()
                    .filter_map(|(_, bytes, _)| {
                        let first = bytes.split(|b| *b == b'\n').next()?;
                        crate::store::header(first).map(|(_, cwd, _)| cwd)
                    })
                    .collect();
                cwds.sort();
                cwds.dedup();
                cwds
            }
        };
        // Titles are the sessions' first user text, which may quote any hosted session's `.env`.
        for cwd in cwds {
            for summary in crate::store::summaries(&files, &cwd, &|t| self.redact_all(t)) {
                found.push((cwd.clone(), summary));
            }
        }
        found.sort_by(|a, b| {
            b.1.updated
                .cmp(&a.1.updated)
                .then_with(|| b.1.id.cmp(&a.1.id))
        });
        let page: Vec<Value> = found
            .iter()
            .skip(listing.offset)
            .take(LIST_PAGE)
            .map(|(cwd, s)| {
                let mut info =
                    json!({"sessionId": s.id, "cwd": cwd, "updatedAt": rfc3339(s.updated)});
                if !s.title.is_empty() {
                    info["title"] = json!(s.title);
                }
                info
            })
            .collect();
        let mut result = json!({"sessions": page});
        if listing.offset + LIST_PAGE < found.len() {
            result["nextCursor"] = json!((listing.offset + LIST_PAGE).to_string());
        }
        self.write_for_all(jsonrpc::response(listing.request, Ok(result)));
    }

    /// `text` with every hosted session's secrets cut out, for what may quote any session.
    pub(super) fn redact_all(&self, text: &str) -> String {
        self.sessions.values().fold(text.to_owned(), |text, h| {
            h.redactor.redact(&text).into_owned()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }
}
