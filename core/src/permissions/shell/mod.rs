//! What a bash command line runs, as far as permissions care.
//!
//! The `bash` tool runs `bash -c COMMAND`. [`analyze`] parses the text with a real bash
//! grammar (`parse`), extracts every command the shell would run, unwrapping wrappers and
//! following shell text handed to shells, `eval`, `make` and other runners (`extract`,
//! `programs`, `make`, `runners`), and then asks of the result: does a word name a `.env`
//! secrets file (`env_files`), may a command write to GitHub (`github`), and is there anything
//! Luxe cannot know statically. The rule matching in `permissions` works on the extracted
//! parts.
//!
//! Fail closed: whatever cannot be resolved from the text (a computed command name, `eval`
//! of computed text, a script file, an interpreter's code, a parse error) is an *unknown*
//! part, which the decision treats as possibly anything.

mod env_files;
mod extract;
mod github_writes;
mod make;
mod parse;
mod programs;
mod runners;
mod sed;
mod words;
mod wrappers;

pub use env_files::brace_words;
pub use extract::Part;
pub use words::Word;

use crate::permissions::glob::Atom;

/// What a command line runs.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Every layer of every command, wrappers included.
    pub parts: Vec<Part>,
    /// Every word, in any nested text too.
    pub words: Vec<Word>,
    /// Some word names a `.env` secrets file (after quote removal, split at `=` and `:`,
    /// judged by its last path component, case-insensitively; `.env.example` and
    /// `.env.sample` excepted), or is a glob or brace expansion that could produce one. As
    /// bash's globs skip dotfiles, a glob that does not start with `.` counts only when it
    /// matches `.env` itself and holds a letter (`*env` does, `*` and `*.rs` do not), unless
    /// `dotglob` or `GLOBIGNORE` appears in the line.
    pub names_env_file: bool,
    /// A command that may write to GitHub, in a few words (`git push`, `gh pr merge`).
    pub github_write: Option<String>,
    /// Why Luxe cannot tell what (some of) the line runs, if it cannot.
    pub unknown: Option<String>,
}

/// Analyzes `command` as `bash -c` would run it. Never panics, whatever the input.
pub fn analyze(command: &str) -> Analysis {
    let mut found = extract::extract(command);
    if let Some(why) = &found.unknown {
        // What makes the whole line unknown is a part that may be anything.
        found.parts.push(Part {
            words: Vec::new(),
            more_args: false,
            unknown: Some(why.clone()),
            runs: true,
            writes: false,
            env: Vec::new(),
        });
    }
    let mut unknown = None;
    let mut github_write = None;
    for part in found.parts.iter_mut().filter(|p| p.runs) {
        if part.unknown.is_none()
            && let Some(Ok(name)) = part.words.first().map(extract::program_name)
            && (name == "git" || name == "gh" || name == "hub" || name.starts_with("git-"))
        {
            // `hub` is git with GitHub commands of its own.
            let name = if name == "hub" {
                "git".to_owned()
            } else {
                name
            };
            let mut env = part.env.clone();
            env.extend(found.tainted.iter().cloned());
            match github_writes::write(&name, &part.words, &env, part.more_args) {
                Some(github_writes::Verdict::Write(what)) => {
                    github_write.get_or_insert(what);
                }
                // A git alias may be anything: deny rules must see it as such.
                Some(github_writes::Verdict::Unknown(why)) => part.unknown = Some(why),
                None => {}
            }
        }
        if let Some(why) = &part.unknown {
            unknown.get_or_insert_with(|| why.clone());
        }
    }
    Analysis {
        parts: found.parts,
        words: found.words,
        names_env_file: found.env_file,
        github_write,
        unknown,
    }
}

impl Part {
    /// The command as text: words after quote removal, joined by spaces; computed parts as
    /// their source.
    pub fn text(&self) -> String {
        self.words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every text this part could be at run time: computed parts and live globs may be
    /// anything, and so is an unknown part.
    pub fn template(&self) -> Vec<Atom> {
        let any = Atom::Many { slash: true };
        if self.unknown.is_some() {
            return vec![any];
        }
        let mut out = Vec::new();
        for (n, word) in self.words.iter().enumerate() {
            if n > 0 {
                out.push(Atom::Lit(' '));
            }
            for (&(c, live), &computed) in word.chars.iter().zip(&word.computed) {
                let atom = match (c, live || computed) {
                    (_, true) if computed => any,
                    ('*' | '{', true) => any,
                    ('?' | '[', true) => Atom::One { slash: true },
                    _ => Atom::Lit(c),
                };
                if atom != any || out.last() != Some(&any) {
                    out.push(atom);
                }
            }
        }
        if self.more_args {
            out.push(Atom::Lit(' '));
            out.push(any);
        }
        out
    }
}

#[cfg(test)]
mod tests;
