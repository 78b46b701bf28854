//! Every command a text runs, as far as the text says: the parser's simple commands, unwrapped
//! layer by layer (`sudo env A=1 nice rm x` is `sudo …`, `env …`, `nice …` and finally
//! `rm x`), with shell text they hand on (`bash -c`, `eval`, here-docs fed to a shell, backtick
//! bodies, a makefile's recipes) analyzed in turn and the commands programs name in their
//! options (`find -exec`) added. What cannot be known statically becomes an unknown part,
//! never a silent gap.

use super::env_files::{basename, names_env, text_names_env};
use super::github_writes;
use super::parse::{RawCommand, Stdin, parse};
use super::programs::{Embedded, Layer, embedded, layer};
use super::words::Word;

/// How deep texts nest in texts (`bash -c "eval '…'"`); deeper text is unknown. It also
/// bounds the work on adversarial input.
const MAX_DEPTH: usize = 8;

/// Directories whose programs are the system's, not files the agent could have written.
const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/usr/local/bin",
    "/sbin",
    "/usr/sbin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "/run/current-system/sw/bin",
];

/// Variables whose value changes which program a name runs, or runs code in every shell.
const TAMPERING: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "BASH_LOADABLES_PATH",
    "IFS",
];

/// Variables that hand a program code Luxe cannot see: make reads options (`--eval`) and
/// makefiles from them, and less runs its input preprocessor.
const CODE_CARRIERS: &[&str] = &[
    "MAKEFLAGS",
    "GNUMAKEFLAGS",
    "MAKEFILES",
    "LESSOPEN",
    "LESSCLOSE",
];

/// Reserved words that bash never runs as a command name (`time` and `coproc` are wrappers).
const RESERVED: &[&str] = &[
    "!", "{", "}", "[[", "]]", "case", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "until", "while",
];

/// One layer of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The command name and arguments of this layer.
    pub words: Vec<Word>,
    /// More arguments arrive at run time (`xargs`, `find -exec … +`).
    pub more_args: bool,
    /// Why Luxe cannot tell what this part runs, if it cannot.
    pub unknown: Option<String>,
    /// The program that actually runs, rather than a wrapper around another command.
    pub runs: bool,
    /// Its output goes to a file.
    pub writes: bool,
    /// Variables set for it.
    pub env: Vec<String>,
}

/// What the extraction found in a text and every text nested in it.
#[derive(Debug, Default)]
pub struct Found {
    /// Every layer of every command.
    pub parts: Vec<Part>,
    /// Every word anywhere in the text and in the texts nested in it, not only the commands': what
    /// the `.env` check and rules that name paths look at.
    pub words: Vec<Word>,
    /// A word names a `.env` file.
    pub env_file: bool,
    /// Why the text as a whole cannot be known (a parse error, `PATH` set), if so.
    pub unknown: Option<String>,
    /// Variables assigned anywhere that make git or gh run programs.
    pub tainted: Vec<String>,
}

impl Found {
    fn unknown(&mut self, why: impl Into<String>) {
        self.unknown.get_or_insert_with(|| why.into());
    }
}

#[derive(Debug, Clone, Copy)]
struct Ctx {
    depth: usize,
    dotglob: bool,
}

/// Extracts every command `text` runs.
pub fn extract(text: &str) -> Found {
    let mut found = Found::default();
    text_at(
        text,
        Ctx {
            depth: 0,
            dotglob: false,
        },
        &mut found,
    );
    found
}

fn text_at(text: &str, ctx: Ctx, found: &mut Found) {
    if ctx.depth > MAX_DEPTH {
        found.unknown("commands nested too deeply to follow");
        found.env_file |= text_names_env(text);
        return;
    }
    let ctx = Ctx {
        dotglob: ctx.dotglob || text.contains("dotglob") || text.contains("GLOBIGNORE"),
        ..ctx
    };
    let script = parse(text);
    if script.broken {
        found.unknown("a command line Luxe's shell parser cannot read");
    }
    for word in script.words {
        found.env_file |= names_env(&word, ctx.dotglob);
        if quoted_subscript_substitution(&word) {
            found.unknown(
                "a quoted `[$( )]`, which bash runs when it reads the text as a subscript",
            );
        }
        found.words.push(word);
    }
    for name in &script.assigned {
        assigned(name, found);
    }
    let deeper = Ctx {
        depth: ctx.depth + 1,
        ..ctx
    };
    for nested in &script.nested {
        text_at(nested, deeper, found);
    }
    for cmd in &script.commands {
        command(cmd, false, ctx, found);
    }
}

/// `'x[$(rm v)]'`: bash evaluates array subscripts in arithmetic (`$((a))` with that value)
/// and in builtins that take variable names (`printf -v`, `read`, `test -v`, `unset`), running
/// the substitution inside. A literal `[` followed by `$(` or a backtick is treated as such.
fn quoted_subscript_substitution(word: &Word) -> bool {
    let literal: String = word
        .chars
        .iter()
        .zip(&word.computed)
        .filter(|(_, computed)| !**computed)
        .map(|((c, _), _)| *c)
        .collect();
    literal
        .find('[')
        .is_some_and(|at| literal[at..].contains("$(") || literal[at..].contains('`'))
}

fn assigned(name: &str, found: &mut Found) {
    if TAMPERING.contains(&name) {
        found.unknown(format!(
            "the command sets {name}, so Luxe cannot tell what its names run"
        ));
    }
    if CODE_CARRIERS.contains(&name) {
        found.unknown(format!(
            "the command sets {name}, which hands a program code Luxe cannot see"
        ));
    }
    if github_writes::runs_programs(name) && !found.tainted.iter().any(|t| t == name) {
        found.tainted.push(name.to_owned());
    }
}

/// The program a command name runs; Err with why it cannot be known.
pub fn program_name(word: &Word) -> Result<String, String> {
    if word.dynamic() {
        return Err(format!(
            "`{}` is a command name computed at run time",
            word.text
        ));
    }
    let live_glob = word
        .chars
        .iter()
        .any(|&(c, live)| live && matches!(c, '*' | '?' | '[' | '{'));
    if live_glob {
        return Err(format!(
            "`{}` is a command name the shell expands",
            word.text
        ));
    }
    let text = word.text.as_str();
    if text.is_empty() {
        return Err("an empty command name".to_owned());
    }
    if super::wrappers::is_assignment(text) {
        // `timeout 5 FOO=1 cmd`: a program named `FOO=1`, which no one means.
        return Err(format!("`{text}` where a wrapper expects a command"));
    }
    if let Some((dir, _)) = text.rsplit_once('/') {
        let dir = if dir.is_empty() { "/" } else { dir };
        if !SYSTEM_DIRS.contains(&dir) {
            return Err(format!("`{text}` runs a file Luxe cannot read"));
        }
    }
    Ok(basename(text).to_owned())
}

fn command(cmd: &RawCommand, more_args: bool, ctx: Ctx, found: &mut Found) {
    let mut words = cmd.words.clone();
    let mut env = cmd.assignments.clone();
    let mut more_args = more_args;
    while !words.is_empty() {
        let mut part = Part {
            words: words.clone(),
            more_args,
            unknown: None,
            runs: true,
            writes: cmd.writes,
            env: env.clone(),
        };
        if !words[0].quoted && RESERVED.contains(&words[0].text.as_str()) {
            // The grammar took a reserved word for a command name where bash sees a syntax
            // error or a construct of its own (or a wrapper would run a program of that
            // name): the readings disagree.
            part.unknown = Some(format!("`{}` where bash expects a command", words[0].text));
            found.parts.push(part);
            return;
        }
        let name = match program_name(&words[0]) {
            Ok(name) => name,
            Err(why) => {
                part.unknown = Some(why);
                found.parts.push(part);
                return;
            }
        };
        if name != words[0].text {
            // `/bin/rm`: rules see the program's name; the layer as written stays for rules
            // that name the path.
            found.parts.push(Part {
                runs: false,
                ..part.clone()
            });
            words[0] = Word::plain(&name);
            part.words[0] = Word::plain(&name);
        }
        builtin_effects(&name, &words, found);
        for inner in embedded(&name, &words, &cmd.stdin, more_args)
            .into_iter()
            .chain(git_embedded(&name, &words))
        {
            match inner {
                Embedded::Argv { words, more_args } => {
                    let raw = RawCommand {
                        words,
                        ..RawCommand::default()
                    };
                    command(&raw, more_args, ctx, found);
                }
                Embedded::Shell(text) => text_at(&text, deeper(ctx), found),
                Embedded::Code(text) => found.env_file |= text_names_env(&text),
                Embedded::Exports(name) => assigned(&name, found),
                Embedded::Unknown(why) => found.parts.push(Part {
                    unknown: Some(format!("`{name}` runs {why}")),
                    ..part.clone()
                }),
            }
        }
        match layer(&name, &words, &cmd.stdin) {
            Layer::Runs => {
                found.parts.push(part);
                return;
            }
            Layer::Wraps {
                inner,
                env: set,
                more_args: more,
            } => {
                for name in &set {
                    assigned(name, found);
                }
                part.runs = false;
                found.parts.push(part);
                words = inner;
                env.extend(set);
                more_args |= more;
            }
            Layer::Shell { text, dotglob } => {
                part.runs = false;
                found.parts.push(part);
                let inner = Ctx {
                    dotglob: ctx.dotglob || dotglob,
                    ..deeper(ctx)
                };
                if let Stdin::Text(_) = cmd.stdin {
                    // A here-doc's words were not words of this text: check them as code.
                    found.env_file |= text_names_env(&text);
                }
                text_at(&text, inner, found);
                return;
            }
            Layer::Unknown(why) => {
                part.unknown = Some(why);
                found.parts.push(part);
                return;
            }
        }
    }
}

fn deeper(ctx: Ctx) -> Ctx {
    Ctx {
        depth: ctx.depth + 1,
        ..ctx
    }
}

/// Shell builtins that change how later names are read.
fn builtin_effects(name: &str, words: &[Word], found: &mut Found) {
    let args = words.get(1..).unwrap_or_default();
    let has = |flag: &str| args.iter().any(|w| w.text == flag);
    match name {
        "shopt" if has("expand_aliases") => found.unknown("the command turns on aliases"),
        "enable" if has("-f") => found.unknown("the command loads a builtin from a file"),
        "declare" | "typeset" | "local"
            if args
                .iter()
                .any(|w| w.text.starts_with('-') && w.text.contains('n')) =>
        {
            found.unknown("the command makes a name reference, which can set any variable")
        }
        "hash" if has("-p") => found.unknown("the command remaps a command name"),
        "read" | "mapfile" | "readarray" | "printf" | "getopts" | "declare" | "typeset"
        | "export" | "local" | "readonly" => {
            for word in args {
                let text = word
                    .text
                    .split_once('=')
                    .map_or(word.text.as_str(), |(n, _)| n);
                assigned(text, found);
            }
        }
        _ => {}
    }
}

/// Commands git runs from its arguments: `rebase -x`, `bisect run`, `submodule foreach`.
fn git_embedded(name: &str, words: &[Word]) -> Vec<Embedded> {
    if name != "git" {
        return Vec::new();
    }
    let args = words.get(1..).unwrap_or_default();
    let Ok(Some(sub)) = github_writes::git_subcommand(args) else {
        return Vec::new();
    };
    let rest = args.get(sub + 1..).unwrap_or_default();
    let text = |w: &Word| match w.literal() {
        Some(t) => Embedded::Shell(t.to_owned()),
        None => Embedded::Unknown("a command computed at run time".to_owned()),
    };
    match args.get(sub).map(|w| w.text.as_str()) {
        Some("rebase") => {
            let mut out = Vec::new();
            let mut iter = rest.iter();
            while let Some(w) = iter.next() {
                if w.text == "-x" || w.text == "--exec" {
                    out.extend(iter.next().map(text));
                } else if let Some(cmd) = w.text.strip_prefix("--exec=") {
                    out.push(Embedded::Shell(cmd.to_owned()));
                } else if let Some(cmd) = w.text.strip_prefix("-x").filter(|c| !c.is_empty()) {
                    out.push(Embedded::Shell(cmd.to_owned()));
                }
            }
            out
        }
        Some("bisect") if rest.first().is_some_and(|w| w.text == "run") => vec![Embedded::Argv {
            words: rest.get(1..).unwrap_or_default().to_vec(),
            more_args: false,
        }],
        Some("submodule") => match rest.iter().position(|w| w.text == "foreach") {
            Some(at) => {
                let cmd: Vec<&Word> = rest
                    .get(at + 1..)
                    .unwrap_or_default()
                    .iter()
                    .filter(|w| !w.text.starts_with("--"))
                    .collect();
                cmd.first().map(|w| text(w)).into_iter().collect()
            }
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}
