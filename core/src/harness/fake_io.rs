//! A fake io for the drivers that play the core's world in process (`acp::checked` and the turn
//! simulations): [`FakeIo`] answers the tool effects (files opened, read and replaced, writes,
//! paths, searches, listings, commands) as a healthy machine would or as a failing one, keeps
//! the handles it holds, and asserts that no tool reaches a `.env` file. What only one driver
//! does (sites, stores, reviews, the model) it gives back for that driver to answer.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::effects::{Completion, EffectId, FileContent, FileKind, Opened, Output, Stream};
use crate::permissions::is_env_file;

/// Why an effect failed, when the failure needs no words of its own.
const FAILED: &str = "simulated failure";

/// One thing fake io does in answer to an effect, in order.
#[derive(Debug)]
pub enum Step {
    /// Feed this to the machine.
    Feed(Completion),
    /// Let this much time pass (between a command's chunks).
    Advance(Duration),
}

/// The tool side of a fake machine: what its files and commands hold, and what it holds open.
#[derive(Debug)]
pub struct FakeIo {
    /// What every file a tool opens reads as.
    pub file_text: Vec<u8>,
    /// What every command prints, chunk by chunk, and the time that passes after each chunk.
    pub command_output: (Vec<Vec<u8>>, Duration),
    /// What every file listing finds.
    pub listing: Vec<String>,
    /// Whether opening a `.env` file is a bug; off while start-up probes run (a tool never
    /// reads, replaces or writes one, whatever this says).
    pub guard_env: bool,
    /// The path of each file held open, by handle.
    opened: BTreeMap<EffectId, String>,
}

impl FakeIo {
    /// A machine whose files read `file_text`, whose commands print `command_output` and
    /// whose listings find nothing; `.env` files guarded.
    pub fn new(file_text: Vec<u8>, command_output: (Vec<Vec<u8>>, Duration)) -> Self {
        Self {
            file_text,
            command_output,
            listing: Vec::new(),
            guard_env: true,
            opened: BTreeMap::new(),
        }
    }

    /// io let go of `handle` (`CloseOpened`): it is no longer open.
    pub fn closed(&mut self, handle: EffectId) {
        self.opened.remove(&handle);
    }

    /// Answers a tool effect (`ok`: as a healthy machine would); `None` for any other effect,
    /// which is the driver's to answer.
    pub fn answer(&mut self, effect: &Output, ok: bool) -> Option<Vec<Step>> {
        let feed = |completion| Some(vec![Step::Feed(completion)]);
        match *effect {
            Output::OpenFile { id, ref path, .. } => {
                if self.guard_env {
                    assert!(!is_env_file(path), "a tool opened {path}");
                }
                let result = if ok {
                    self.opened.insert(id, path.clone());
                    Ok(Opened {
                        path: path.clone(),
                        identity: None,
                        kind: Some(FileKind::Regular),
                    })
                } else {
                    Err("no such file".into())
                };
                feed(Completion::FileOpened { id, result })
            }
            // A handle closed meanwhile (the call was interrupted) is no longer open, as io says.
            Output::ReadOpened { id, handle, .. } => {
                let result = match self.opened.get(&handle) {
                    Some(path) if ok => {
                        assert!(!is_env_file(path), "a tool read {path}");
                        Ok(FileContent::whole(self.file_text.clone()))
                    }
                    Some(_) => Err("the file changed".into()),
                    None => Err("the file is no longer open".into()),
                };
                feed(Completion::FileRead { id, result })
            }
            Output::ReplaceOpened { id, handle, .. } => {
                let result = match self.opened.remove(&handle) {
                    Some(path) if ok => {
                        assert!(!is_env_file(&path), "a tool wrote {path}");
                        Ok(())
                    }
                    Some(_) => Err(FAILED.into()),
                    None => Err("the file is no longer open".into()),
                };
                feed(Completion::FileWritten { id, result })
            }
            Output::WriteFile { id, ref path, .. } => {
                assert!(!is_env_file(path), "a tool wrote {path}");
                let result = if ok { Ok(()) } else { Err(FAILED.into()) };
                feed(Completion::FileWritten { id, result })
            }
            Output::ResolvePath { id, ref path } => {
                let result = if ok {
                    Ok(path.clone())
                } else {
                    Err("no such directory".into())
                };
                feed(Completion::PathResolved { id, result })
            }
            Output::Search { id, .. } => {
                let result = if ok {
                    Ok(Vec::new())
                } else {
                    Err(FAILED.into())
                };
                feed(Completion::SearchDone { id, result })
            }
            Output::ListFiles { id, .. } => {
                let result = if ok {
                    Ok(self.listing.clone())
                } else {
                    Err(FAILED.into())
                };
                feed(Completion::FilesListed { id, result })
            }
            Output::Spawn { id, .. } => {
                let (chunks, pace) = &self.command_output;
                let mut steps = Vec::new();
                for bytes in chunks.iter().filter(|_| ok) {
                    steps.push(Step::Feed(Completion::ProcessOutput {
                        id,
                        stream: Stream::Stdout,
                        bytes: bytes.clone(),
                    }));
                    steps.push(Step::Advance(*pace));
                }
                let status = if ok {
                    Ok(Some(0))
                } else {
                    Err("no such program".into())
                };
                steps.push(Step::Feed(Completion::ProcessExited { id, status }));
                Some(steps)
            }
            _ => None,
        }
    }
}

/// A whole HTTP answer to request `id`: `status`, then `chunks` of its body, then its end.
pub fn http_answer<'a>(
    id: EffectId,
    status: u16,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<Step> {
    let mut answer = vec![Completion::HttpResponse {
        id,
        status,
        retry_after: None,
    }];
    answer.extend(chunks.into_iter().map(|bytes| Completion::HttpBody {
        id,
        bytes: bytes.to_vec(),
    }));
    answer.push(Completion::HttpEnded { id });
    answer.into_iter().map(Step::Feed).collect()
}
