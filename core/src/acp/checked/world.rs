//! io and the model as the checked host meets them: sites prepared, the store read, the model
//! answering as [`Model`] says; the tool effects are the shared [`FakeIo`]'s.

use super::{Checked, Model, SECRET};
use crate::effects::EnvFile;
use crate::effects::Site;
use crate::effects::{EffectId, FileContent, Input, Output};
use crate::harness::anthropic_sse::{scripted_tool, text_answer, tool_call};
use crate::harness::fake_io::{Step, http_answer};

impl Checked {
    /// Performs the oldest effect io was asked for (`ok`: as it would on a healthy machine);
    /// `false` when none waits.
    pub fn effect(&mut self, ok: bool) -> bool {
        let Some(effect) = self.effects.pop_front() else {
            return false;
        };
        if let Some(steps) = self.io.answer(&effect, ok) {
            self.run(steps);
            return true;
        }
        match effect {
            Output::PrepareSite { id, cwd } => {
                self.sessions_made += 1;
                let result = if ok {
                    Ok(Box::new(Site {
                        cwd: cwd.clone(),
                        session_id: format!("sess-{}", self.sessions_made),
                        unix_ms: 1_000,
                        rng_seed: 7,
                        settings: Vec::new(),
                        env_files: vec![EnvFile {
                            path: format!("{cwd}/.env"),
                            bytes: format!("TOKEN={SECRET}\n").into_bytes(),
                            identity: None,
                        }],
                        guarded_resolved: Vec::new(),
                    }))
                } else {
                    Err("no such directory".to_owned())
                };
                self.input(Input::SitePrepared { id, result });
            }
            Output::ReadFile { id, path, .. } => {
                let result = match self.files.get(&path) {
                    Some(bytes) if ok => Ok(FileContent::whole(bytes.clone())),
                    _ => failed(),
                };
                self.input(Input::FileRead { id, result });
            }
            Output::ReadSessions { id, .. } => {
                let files = self
                    .files
                    .iter()
                    .map(|(p, b)| (p.clone(), b.clone(), 5))
                    .collect();
                self.input(Input::SessionsRead {
                    id,
                    result: if ok { Ok(files) } else { failed() },
                });
            }
            Output::HttpRequest { id, request } => {
                let body = String::from_utf8_lossy(&request.body).into_owned();
                assert!(!body.contains(SECRET), "a .env value reached the model");
                self.model_requests.push(body);
                self.model_answer(id, ok);
            }
            Output::ReadDiff { id, .. } => self.input(Input::DiffRead {
                id,
                result: failed(),
            }),
            other => panic!("not an effect: {other:?}"),
        }
        true
    }

    /// Does what fake io answered, in order.
    fn run(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Feed(completion) => completion.lend(|input| self.input(input)),
                Step::Advance(by) => self.advance(by),
            }
        }
    }

    /// Answers model request `id` as [`Checked::model`] says (`ok`: else as a failure).
    fn model_answer(&mut self, id: EffectId, ok: bool) {
        let model = if ok { self.model } else { Model::Fail };
        let stream = match model {
            Model::Hang => {
                // Headers, then nothing: the request stays open (it is not queued again).
                return self.input(Input::HttpResponse {
                    id,
                    status: 200,
                    retry_after: None,
                });
            }
            Model::Fail => return self.run(http_answer(id, 500, [&b"{\"error\":\"down\"}"[..]])),
            Model::Text => text_answer(Some("Let me see."), "All done."),
            Model::Tool(which) => tool_stream(which),
        };
        // Text next time, so that a tool loop ends.
        self.model = Model::Text;
        self.run(http_answer(id, 200, stream.chunks(97)));
    }
}

fn failed<T>() -> Result<T, String> {
    Err("it failed".to_owned())
}

/// The scripted tool calls [`Model::Tool`] picks from (its number modulo 8): no glob, and of
/// those a rule must stop only the `.env` read.
const TOOLS: [usize; 8] = [0, 1, 2, 3, 4, 6, 7, 8];

/// The tool call [`Model::Tool`] asks for.
fn tool_stream(which: u8) -> Vec<u8> {
    let (name, input) = scripted_tool(TOOLS[usize::from(which % 8)]);
    tool_call("toolu_1", name, &input)
}
