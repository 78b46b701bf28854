//! What programs do with their arguments, one layer at a time: wrappers (in `wrappers`),
//! shells and `eval` that run shell text, interpreters and script files Luxe cannot read
//! into, `awk` and `sed` programs that run commands, programs that run commands named in
//! their options (`find -exec`, `tar --to-command`, `rsync -e`), makefile text handed to
//! `make` (in `make`), and other programs that run commands from the line in ways of their
//! own (in `runners`).

use super::parse::Stdin;
use super::words::Word;
use super::{make, runners, sed, wrappers};

/// What running a command does, one layer down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layer {
    /// The program itself runs.
    Runs,
    /// A wrapper: it runs `inner`.
    Wraps {
        /// The command it runs.
        inner: Vec<Word>,
        /// Variables it sets for it (`env NAME=VALUE`).
        env: Vec<String>,
        /// More arguments arrive at run time (`xargs`).
        more_args: bool,
    },
    /// It runs shell code written out as text (`bash -c '…'`, `eval`, a here-doc fed to `sh`).
    Shell {
        /// The shell code it runs, parsed and checked as a command line of its own.
        text: String,
        /// Globs there may match dotfiles (`bash -O dotglob`).
        dotglob: bool,
    },
    /// What it runs cannot be known from the text: why, for the model and the user.
    Unknown(String),
}

/// A command a program runs besides itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Embedded {
    /// A program and its arguments (`find -exec rm {} +`).
    Argv {
        /// The program it runs and that program's arguments (`rm {}`), checked as a command of its
        /// own.
        words: Vec<Word>,
        /// More arguments arrive at run time.
        more_args: bool,
    },
    /// Shell code (`git rebase -x 'make test'`).
    Shell(String),
    /// Code in a language of its own that the program reads from the line (a makefile on its
    /// input): its commands come as entries of their own, and the text is checked for `.env`
    /// names, as its words are none of the line's.
    Code(String),
    /// A variable it sets for the commands it runs (make exports those defined on its
    /// command line).
    Exports(String),
    /// Something that cannot be known.
    Unknown(String),
}

/// Where a file named in a program's options is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file on disk: the program's business, as a project's files are.
    Disk,
    /// The program's standard input (`-`, `/dev/stdin` and its other names).
    Input,
    /// Somewhere Luxe cannot see (another descriptor, a name computed at run time): why.
    Elsewhere(String),
}

/// Where `file`, the value of an option naming a file to read, is read from. Paths are
/// resolved by their text (`//dev/./stdin` is `/dev/stdin`); a relative path that climbs
/// above the working directory may reach `/dev` from anywhere, so it is judged both ways.
pub fn source(file: &Word) -> Source {
    let Some(path) = file.literal() else {
        return Source::Elsewhere("named at run time".to_owned());
    };
    if path == "-" {
        return Source::Input;
    }
    let mut parts: Vec<&str> = Vec::new();
    let mut climbs = false;
    for part in path.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            climbs |= parts.pop().is_none() && !path.starts_with('/');
        } else {
            parts.push(part);
        }
    }
    let stdin = matches!(
        parts.as_slice(),
        ["dev", "stdin"] | ["dev", "fd", "0"] | ["proc", "self" | "thread-self", "fd", "0"]
    );
    let rooted = path.starts_with('/') || climbs;
    let device = match parts.as_slice() {
        ["dev" | "proc", ..] if rooted => true,
        ["dev", "fd", _] | ["proc", _, "fd", _] => true,
        _ => false,
    };
    match (stdin, device) {
        // Nothing to read: `make -p -f /dev/null` prints make's built-in rules.
        _ if rooted && parts == ["dev", "null"] => Source::Disk,
        (true, _) => Source::Input,
        (false, true) => Source::Elsewhere(format!("from {path}, which Luxe cannot see")),
        (false, false) => Source::Disk,
    }
}

/// Shells whose `-c` text, script file or input is shell code.
fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "yash"
            | "posh"
            | "fish"
            | "rbash"
    )
}

/// Interpreters of other languages (debuggers and `dc` among them, which run shell commands
/// from theirs): their code is beyond a shell parser.
fn is_interpreter(name: &str) -> bool {
    let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        family,
        "python"
            | "pypy"
            | "perl"
            | "ruby"
            | "node"
            | "nodejs"
            | "deno"
            | "bun"
            | "php"
            | "lua"
            | "luajit"
            | "Rscript"
            | "tclsh"
            | "wish"
            | "osascript"
            | "pwsh"
            | "powershell"
            | "expect"
            | "irb"
            | "jshell"
            | "groovy"
            | "scala"
            | "julia"
            | "guile"
            | "racket"
            | "sbcl"
            | "elixir"
            | "erl"
            | "escript"
            | "swift"
            | "kotlin"
            | "java"
            | "dotnet"
            | "gdb"
            | "lldb"
            | "dc"
    )
}

/// What `words` (whose program is `name`) does one layer down.
pub fn layer(name: &str, words: &[Word], stdin: &Stdin) -> Layer {
    let args = words.get(1..).unwrap_or_default();
    if let Some(layer) = wrappers::layer(name, args).or_else(|| runners::layer(name, args, stdin)) {
        return layer;
    }
    match name {
        _ if is_shell(name) => shell(name, args, stdin),
        "eval" => joined_text("eval", args),
        "trap" => match args.first().and_then(Word::literal) {
            Some(first) if !first.starts_with('-') => joined_text("trap", &args[..1]),
            _ => Layer::Runs,
        },
        "source" | "." => Layer::Unknown(format!("`{name}` runs a script file")),
        "su" => option_text(name, args, &["-c", "--command"])
            .unwrap_or_else(|| Layer::Unknown("`su` starts a shell".to_owned())),
        "ssh" => ssh(args),
        "watch" => {
            let rest = skip_options(args, &["-n", "--interval", "-q", "--equexit"]);
            match rest {
                Some(rest) if !rest.is_empty() => joined_text("watch", rest),
                Some(_) => Layer::Runs,
                None => Layer::Unknown("`watch` with options Luxe does not know".to_owned()),
            }
        }
        "parallel" => Layer::Unknown("`parallel` builds its commands at run time".to_owned()),
        "awk" | "gawk" | "mawk" | "nawk" => awk(name, args),
        "sed" | "gsed" => match sed_scripts(args) {
            Some(scripts) if scripts.iter().all(|s| !sed::executes(s)) => Layer::Runs,
            Some(_) => Layer::Unknown(format!("`{name}` runs a command from its script")),
            None => Layer::Unknown(format!("`{name}` reads a script Luxe cannot see")),
        },
        _ if is_interpreter(name) => interpreter(name, args, stdin),
        _ => Layer::Runs,
    }
}

/// Words a program joins with spaces and runs as shell code (`eval`, `ssh host …`).
pub(super) fn joined_text(what: &str, words: &[Word]) -> Layer {
    if words.iter().any(Word::dynamic) {
        return Layer::Unknown(format!("`{what}` runs text computed at run time"));
    }
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Layer::Shell {
        text,
        dotglob: false,
    }
}

/// The value of one of `flags` as shell code, if the program has one.
pub(super) fn option_text(name: &str, args: &[Word], flags: &[&str]) -> Option<Layer> {
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let text = word.text.as_str();
        if flags.contains(&text) {
            return Some(match iter.next() {
                Some(value) => joined_text(name, std::slice::from_ref(value)),
                None => Layer::Runs,
            });
        }
        for flag in flags.iter().filter(|f| f.starts_with("--")) {
            if let Some(value) = text.strip_prefix(&format!("{flag}=")) {
                return Some(joined_text(name, &[Word::plain(value)]));
            }
        }
    }
    None
}

/// Skips flags (those in `valued` take a value); None on a computed word.
fn skip_options<'w>(args: &'w [Word], valued: &[&str]) -> Option<&'w [Word]> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.literal()?;
        if text == "--" {
            return args.get(i + 1..);
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        let flag = text.split_once('=').map_or(text, |(f, _)| f);
        i += if valued.contains(&flag) && flag.len() == text.len() {
            2
        } else {
            1
        };
    }
    args.get(i..)
}

/// `bash -c TEXT`, `bash script.sh`, `bash` reading its input.
fn shell(name: &str, args: &[Word], stdin: &Stdin) -> Layer {
    let mut command = false;
    let mut reads_input = false;
    let mut dotglob = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(text) = word.literal() else {
            return Layer::Unknown(format!("`{name}` with a computed option"));
        };
        i += 1;
        match text {
            "--" => break,
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => {
                dotglob |= args.get(i).is_some_and(|w| w.text == "dotglob");
                i += 1;
            }
            t if t.starts_with("--") => {}
            t if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 => {
                command |= t.contains('c');
                reads_input |= t.contains('s');
            }
            _ => {
                i -= 1;
                break;
            }
        }
    }
    let operand = args.get(i);
    if command {
        return match operand {
            Some(text) if !text.dynamic() => Layer::Shell {
                text: text.text.clone(),
                dotglob,
            },
            Some(_) => Layer::Unknown(format!("`{name} -c` runs text computed at run time")),
            None => Layer::Runs,
        };
    }
    if let (Some(script), false) = (operand, reads_input) {
        return Layer::Unknown(format!("`{name}` runs the script file {}", script.text));
    }
    match stdin {
        Stdin::Text(text) => Layer::Shell {
            text: text.clone(),
            dotglob,
        },
        _ => Layer::Unknown(format!("`{name}` runs commands from its input")),
    }
}

/// `ssh [options] host [command…]`: the command runs in a shell on the host.
fn ssh(args: &[Word]) -> Layer {
    const VALUED: &[&str] = &[
        "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p",
        "-Q", "-R", "-S", "-W", "-w", "-B",
    ];
    let Some(rest) = skip_options(args, VALUED) else {
        return Layer::Unknown("`ssh` with a computed option".to_owned());
    };
    let option_commands = args
        .windows(2)
        .any(|w| w[0].text == "-o" && w[1].text.to_ascii_lowercase().contains("command"))
        || args
            .iter()
            .any(|w| w.text.starts_with("-o") && w.text.to_ascii_lowercase().contains("command"));
    if option_commands {
        return Layer::Unknown("`ssh` runs a command named in its options".to_owned());
    }
    match rest.get(1..) {
        Some(command) if !command.is_empty() => joined_text("ssh", command),
        _ => Layer::Runs,
    }
}

fn interpreter(name: &str, args: &[Word], stdin: &Stdin) -> Layer {
    // Asking for a version or running an installed module reads no code from the command.
    let harmless = |w: &Word| {
        matches!(
            w.text.as_str(),
            "-V" | "--version" | "-h" | "--help" | "-v" | "-q" | "-B" | "-u" | "-I" | "-s" | "-S"
        )
    };
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if word.text == "-m" && iter.next().is_some_and(|m| !m.dynamic()) {
            return Layer::Runs;
        }
        if !harmless(word) {
            return Layer::Unknown(format!("`{name}` runs code Luxe does not read"));
        }
    }
    // Without code in its arguments it reads its input, which an enclosing command may give
    // it (`eval python3 <<< …`, a function called with a here-string), unless it only says
    // what it is.
    let exits = |w: &Word| matches!(w.text.as_str(), "-V" | "--version" | "-v" | "-h" | "--help");
    match stdin {
        Stdin::Inherited if args.iter().any(exits) => Layer::Runs,
        _ => Layer::Unknown(format!("`{name}` runs code from its input")),
    }
}

/// `awk PROGRAM`: `system()` and `|` run shell commands; `-f`, `@include` and `@load` bring in
/// code from files.
fn awk(name: &str, args: &[Word]) -> Layer {
    let mut programs: Vec<&Word> = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        i += 1;
        match text {
            "-f" | "--file" | "-i" | "--include" | "-l" | "--load" | "-E" | "--exec" => {
                return Layer::Unknown(format!("`{name}` reads a program from a file"));
            }
            "-e" | "--source" => {
                programs.extend(args.get(i));
                i += 1;
            }
            "-F" | "-v" | "--assign" | "--field-separator" => i += 1,
            "--" => break,
            t if t.starts_with('-') && t.len() > 1 => {}
            _ => {
                i -= 1;
                break;
            }
        }
    }
    if programs.is_empty() {
        programs.extend(args.get(i));
    }
    let runs = programs.iter().any(|p| {
        p.dynamic()
            || ["system", "|", "@load", "@include"]
                .iter()
                .any(|s| p.text.contains(s))
    });
    if runs {
        Layer::Unknown(format!("`{name}` runs a shell command from its program"))
    } else {
        Layer::Runs
    }
}

/// The scripts a `sed` command runs; None when one comes from a file or is computed.
fn sed_scripts(args: &[Word]) -> Option<Vec<String>> {
    let mut scripts = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.literal()?;
        i += 1;
        if let Some(script) = text.strip_prefix("--expression=") {
            scripts.push(script.to_owned());
            continue;
        }
        match text {
            "-e" | "--expression" => scripts.push(args.get(i)?.literal()?.to_owned()),
            "-f" | "--file" => return None,
            "-l" | "--line-length" => {}
            t if t.starts_with("--file=") || (t.starts_with("-f") && t.len() > 2) => return None,
            t if t.starts_with("-e") && t.len() > 2 => {
                scripts.push(t[2..].to_owned());
                continue;
            }
            t if t.starts_with('-') && t.len() > 1 => continue,
            t => {
                positional.push(t.to_owned());
                continue;
            }
        }
        i += 1;
    }
    if scripts.is_empty() {
        scripts.extend(positional.into_iter().take(1));
    }
    Some(scripts)
}

/// Commands `words` runs besides itself: named in its options, or in makefile text the line
/// hands it (reading `stdin`; `more_args` when more arguments arrive at run time).
pub fn embedded(name: &str, words: &[Word], stdin: &Stdin, more_args: bool) -> Vec<Embedded> {
    let args = words.get(1..).unwrap_or_default();
    match name {
        "make" | "gmake" | "bmake" => make::embedded(args, stdin, more_args),
        "find" => exec_options(args, &["-exec", "-execdir", "-ok", "-okdir"]),
        "fd" | "fdfind" => exec_options(args, &["-x", "--exec", "-X", "--exec-batch"]),
        "rg" => valued(args, &["--pre"])
            .into_iter()
            .map(|w| Embedded::Argv {
                words: vec![w],
                more_args: true,
            })
            .collect(),
        "tar" | "gtar" | "bsdtar" => shell_values(
            args,
            &[
                "--to-command",
                "-I",
                "--use-compress-program",
                "-F",
                "--info-script",
                "--new-volume-script",
                "--rsh-command",
            ],
        )
        .into_iter()
        .chain(
            args.iter()
                .filter_map(|w| w.text.split_once("exec=").map(|(_, c)| c))
                .map(|c| Embedded::Shell(c.to_owned())),
        )
        .collect(),
        "rsync" => shell_values(args, &["-e", "--rsh", "--rsync-path"]),
        _ => Vec::new(),
    }
}

/// The values of `flags` (`--flag VALUE` or `--flag=VALUE`).
fn valued(args: &[Word], flags: &[&str]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if flags.contains(&word.text.as_str()) {
            out.extend(iter.next().cloned());
        } else if let Some((flag, value)) = word.text.split_once('=')
            && flags.contains(&flag)
        {
            let mut value_word = Word::plain(value);
            if word.dynamic() {
                value_word = word.clone();
            }
            out.push(value_word);
        }
    }
    out
}

fn shell_values(args: &[Word], flags: &[&str]) -> Vec<Embedded> {
    valued(args, flags)
        .into_iter()
        .map(|w| match w.literal() {
            Some(text) => Embedded::Shell(text.to_owned()),
            None => Embedded::Unknown("a command computed at run time".to_owned()),
        })
        .collect()
}

/// `find … -exec cmd args… ;` (or `+`): each such command.
fn exec_options(args: &[Word], flags: &[&str]) -> Vec<Embedded> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        if !flags.contains(&word.text.as_str()) {
            continue;
        }
        let start = i;
        while args
            .get(i)
            .is_some_and(|w| !matches!(w.text.as_str(), ";" | "+"))
        {
            i += 1;
        }
        let more_args = args.get(i).is_some_and(|w| w.text == "+");
        let words = args.get(start..i).unwrap_or_default().to_vec();
        if !words.is_empty() {
            out.push(Embedded::Argv { words, more_args });
        }
        i += 1;
    }
    out
}
