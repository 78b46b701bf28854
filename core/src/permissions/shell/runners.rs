//! Programs beyond shells, wrappers and interpreters that run commands from the line in ways
//! of their own: terminal multiplexers; editors and `ed`, whose command languages run shell
//! commands; `less`'s `+` commands; SQLite's dot-commands; task runners reading a justfile or
//! build file the line supplies (`just`, `ninja`, `cmake -C`), `cmake -P` scripts and
//! `cmake -E env|time|chdir`; jobs queued to run later (`at`, `crontab`, `systemd-run`); shells
//! that `script` and package managers start; and the shell text of `script -c`, `npx -c`,
//! `npm exec -c`, `nix-shell --run` and `nix develop -c`. What each runs is analyzed when it
//! is shell text written out on the line, and unknown otherwise.

use super::parse::Stdin;
use super::programs::{Layer, Source, joined_text, option_text, source};
use super::words::Word;

/// What running `name` with `args` does, or None when `name` is none of these programs.
pub fn layer(name: &str, args: &[Word], stdin: &Stdin) -> Option<Layer> {
    let unknown = |why: &str| Some(Layer::Unknown(format!("`{name}` {why}")));
    let sub = args.first().map(|w| w.text.as_str());
    match name {
        "tmux" | "screen" | "byobu" | "zellij" => {
            unknown("runs commands in terminals it starts or drives")
        }
        "ex" => unknown("runs the editor commands on its input"),
        "vi" | "vim" | "nvim" | "gvim" | "view" | "vimdiff" | "rvim" | "rview" | "emacs"
        | "emacsclient" => {
            // `-c`, `+cmd`, `--cmd`, `-S`, `--eval`, `-l`: commands; `-e`, `-s`: read from input.
            let commands = args.iter().any(|w| {
                w.dynamic()
                    || (w.text.starts_with(['-', '+'])
                        && !matches!(w.text.as_str(), "--version" | "--help"))
            });
            if commands || *stdin != Stdin::Inherited {
                unknown("runs editor commands Luxe does not read")
            } else {
                None
            }
        }
        "ed" => ed(args, stdin).and_then(unknown),
        "less" | "more" => {
            // `+cmd` runs less's commands at start: `!` and `|` among them run a shell.
            let commands = args
                .iter()
                .any(|w| w.dynamic() || w.text.strip_prefix('+').is_some_and(|c| !is_number(c)));
            if commands {
                unknown("runs the commands of its `+` option")
            } else {
                None
            }
        }
        "sqlite3" | "duckdb" => sql_shell(args, stdin).and_then(unknown),
        "just" => {
            let runs = args.iter().any(|w| {
                let t = w.text.as_str();
                (t.starts_with("-c") && !t.starts_with("--"))
                    || ["--command", "--shell"].iter().any(|f| t.starts_with(f))
            });
            if runs {
                unknown("runs a command or shell named on the line")
            } else {
                read_file(name, "justfile", args, "-f", Some("--justfile"))
            }
        }
        "ninja" => read_file(name, "build file", args, "-f", None),
        "cmake" => {
            let mut words = args.iter().map(|w| w.text.as_str());
            while let Some(word) = words.next() {
                match word {
                    "-P" => return unknown("runs a CMake script Luxe does not read"),
                    "-E" if matches!(words.next(), Some("env" | "time" | "chdir")) => {
                        return unknown("runs the command its `-E` tool names");
                    }
                    _ => {}
                }
            }
            read_file(name, "cache script", args, "-C", None)
        }
        "at" | "batch" => {
            let lists = args
                .iter()
                .any(|w| matches!(w.text.as_str(), "-l" | "-r" | "-d" | "-c" | "-V"));
            match stdin {
                _ if lists => None,
                _ if args.iter().any(|w| w.text.starts_with("-f")) => {
                    unknown("queues a script file Luxe does not read")
                }
                Stdin::Text(text) => Some(Layer::Shell {
                    text: text.clone(),
                    dotglob: false,
                }),
                _ => unknown("queues commands from its input, which Luxe cannot see"),
            }
        }
        "crontab" if !args.iter().any(|w| w.text == "-l") => {
            unknown("installs commands that run later")
        }
        "systemd-run" => unknown("runs a command as a service Luxe does not follow"),
        "poetry" | "pipenv" | "hatch" if sub == Some("shell") => {
            unknown("starts a shell that reads its input")
        }
        "script" => Some(script(args)),
        "npx" => npx(name, args),
        "npm" if matches!(sub, Some("exec" | "x")) => npx("npm exec", &args[1..]),
        "nix-shell" => option_text(name, args, &["--run", "--command"])
            .or_else(|| unknown("starts a shell that reads its input")),
        "nix" if matches!(sub, Some("develop" | "shell")) => {
            match args
                .iter()
                .position(|w| matches!(w.text.as_str(), "-c" | "--command"))
            {
                Some(at) => Some(Layer::Wraps {
                    inner: args[at + 1..].to_vec(),
                    env: Vec::new(),
                    more_args: false,
                }),
                None => unknown("starts a shell that reads its input"),
            }
        }
        _ => None,
    }
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_digit())
}

/// Why `ed` may run a shell command, if it may: a file argument `!command` reads the
/// command's output, and `!` in its commands (read from its input) runs one.
fn ed(args: &[Word], stdin: &Stdin) -> Option<&'static str> {
    if args.iter().any(|w| w.dynamic() || w.text.starts_with('!')) {
        return Some("runs the shell command its file argument names");
    }
    match stdin {
        Stdin::Text(text) if !text.contains('!') => None,
        _ => Some("runs commands from its input, where `!` runs a shell"),
    }
}

/// Why an SQLite shell may run a shell command, if it may: dot-commands run them (`.shell`,
/// `.system`, a `|command` target of `.once`, `.output`, `.read` or `.import`) or load code
/// (`.load`, `load_extension`, `edit()`), in its arguments, in an `-init` file, or on its
/// input, which it reads unless SQL comes in its arguments.
fn sql_shell(args: &[Word], stdin: &Stdin) -> Option<&'static str> {
    let runs = |text: &str| {
        ["|", ".sh", ".system", ".load", "load_extension", "edit("]
            .iter()
            .any(|k| text.contains(k))
    };
    if args
        .iter()
        .any(|w| w.dynamic() || w.text == "-init" || runs(&w.text))
    {
        return Some("runs dot-commands that may run a shell");
    }
    const VALUED: &[&str] = &[
        "-cmd",
        "-separator",
        "-newline",
        "-nullvalue",
        "-vfs",
        "-maxsize",
        "-mmap",
        "-escape",
        "-c",
        "-s",
    ];
    let mut operands = 0;
    let mut sql_option = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if VALUED.contains(&word.text.as_str()) {
            sql_option |= matches!(word.text.as_str(), "-c" | "-s");
            words.next();
        } else if !word.text.starts_with('-') {
            operands += 1;
        }
    }
    match stdin {
        _ if operands >= 2 || sql_option => None,
        Stdin::Text(text) if !runs(text) => None,
        _ => Some("reads dot-commands from its input, which may run a shell"),
    }
}

/// Unknown when the file a program reads its commands from, named by `short` (`-f FILE`,
/// `-fFILE`) or `long` (`--long FILE`, `--long=FILE`), is not a file on disk.
fn read_file(
    name: &str,
    what: &str,
    args: &[Word],
    short: &str,
    long: Option<&str>,
) -> Option<Layer> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        let long_value = long.and_then(|l| text.strip_prefix(l));
        let file = match (text.strip_prefix(short), long_value) {
            (Some(""), _) | (_, Some("")) => words.next().cloned(),
            (_, Some(value)) if value.starts_with('=') => Some(value_word(word, &value[1..])),
            (Some(glued), _) if !text.starts_with("--") => Some(value_word(word, glued)),
            _ => None,
        };
        let why = match file.as_ref().map(source) {
            None | Some(Source::Disk) => continue,
            Some(Source::Input) => "from its input, which Luxe does not read".to_owned(),
            Some(Source::Elsewhere(why)) => why,
        };
        return Some(Layer::Unknown(format!("`{name}` reads a {what} {why}")));
    }
    None
}

/// The value glued to a flag, computed when the word is.
fn value_word(word: &Word, value: &str) -> Word {
    if word.dynamic() {
        word.clone()
    } else {
        Word::plain(value)
    }
}

/// `script -c TEXT` (also `-qc TEXT`, `-qcTEXT`, `--command=TEXT`, `--comm TEXT`) runs the
/// text in a shell; without it `script` starts a shell that reads its input. Its options are
/// read as util-linux's getopt does, so that a value is never taken for `-c`.
fn script(args: &[Word]) -> Layer {
    const VALUED: &[&str] = &[
        "echo",
        "log-in",
        "log-out",
        "log-io",
        "log-timing",
        "logging-format",
        "output-limit",
    ];
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(text) = word.literal() else {
            return Layer::Unknown("`script` with a computed option".to_owned());
        };
        let command = if let Some(long) = text.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            if !name.is_empty() && "command".starts_with(name) {
                Some(value)
            } else {
                if value.is_none() && VALUED.contains(&name) {
                    words.next();
                }
                None
            }
        } else if let Some(bundle) = text.strip_prefix('-').filter(|b| !b.is_empty()) {
            let mut command = None;
            for (at, flag) in bundle.char_indices() {
                let rest = &bundle[at + flag.len_utf8()..];
                match flag {
                    'a' | 'e' | 'f' | 'q' | 'V' | 'h' => continue,
                    'c' => command = Some((!rest.is_empty()).then_some(rest)),
                    'B' | 'E' | 'I' | 'O' | 'o' | 'm' | 'T' if rest.is_empty() => {
                        words.next();
                    }
                    // A glued value, or `-t`'s optional one.
                    'B' | 'E' | 'I' | 'O' | 'o' | 'm' | 'T' | 't' => {}
                    _ => {
                        return Layer::Unknown(
                            "`script` with an option Luxe does not know".to_owned(),
                        );
                    }
                }
                break;
            }
            command
        } else {
            None
        };
        match command {
            Some(Some(text)) => return joined_text("script", &[Word::plain(text)]),
            Some(None) => {
                return words.next().map_or(Layer::Runs, |w| {
                    joined_text("script", std::slice::from_ref(w))
                });
            }
            None => {}
        }
    }
    Layer::Unknown("`script` starts a shell".to_owned())
}

/// `npx [options] -c TEXT` and `npm exec -c TEXT` run the text in a shell; the options end at
/// the package's command, whose own options are its business.
fn npx(what: &str, args: &[Word]) -> Option<Layer> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(text) = word.literal() else {
            return Some(Layer::Unknown(format!("`{what}` with a computed option")));
        };
        match text {
            "-c" | "--call" => {
                return Some(joined_text(what, words.next().map(std::slice::from_ref)?));
            }
            "-p" | "--package" | "-w" | "--workspace" => {
                words.next();
            }
            "--" => return None,
            t if t.starts_with("--call=") => {
                return Some(joined_text(what, &[Word::plain(&t["--call=".len()..])]));
            }
            t if !t.starts_with('-') => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::analyze;

    /// (command, verdict): `-` runs as a program, `?` unknown, `gh` a GitHub write.
    const ROWS: &[(&str, &str)] = &[
        ("tmux ls", "?"),
        ("vim README.md", "-"),
        ("vim -c '!git push' README.md", "?"),
        ("vim +'!git push'", "?"),
        ("ed -s f <<< $',s/a/b/\\nw'", "-"),
        ("ed -s f <<< '!git push'", "?"),
        ("ed '!git push'", "?"),
        ("f() { ed -s x; }; f <<< '!git push'", "?"),
        ("less README.md", "-"),
        ("less +10 README.md", "-"),
        ("less '+!git push' README.md", "?"),
        ("sqlite3 db 'select 1'", "-"),
        ("sqlite3 db <<< 'select 1;'", "-"),
        ("sqlite3 db '.shell git push'", "?"),
        ("sqlite3 db <<< '.system git push'", "?"),
        ("sqlite3 db", "?"),
        ("just test", "-"),
        ("just -f ci.just test", "-"),
        ("just -f /dev/stdin <<< 'x:'", "?"),
        ("just --justfile=- x", "?"),
        ("just -c 'git push'", "?"),
        ("ninja -C build", "-"),
        ("ninja -f /dev/fd/3", "?"),
        ("cmake -S . -B build", "-"),
        ("cmake --build build", "-"),
        ("cmake -E copy a b", "-"),
        ("cmake -E chdir d git push", "?"),
        ("cmake -P x.cmake", "?"),
        ("cmake -C /dev/stdin -S .", "?"),
        ("at now <<< 'git push'", "gh"),
        ("at -l", "-"),
        ("echo 'git push' | at now", "?"),
        ("crontab -l", "-"),
        ("crontab -", "?"),
        ("poetry shell", "?"),
        ("poetry run pytest", "-"),
        ("npx jest -c jest.config.js", "-"),
        ("npx -p x -c 'git push'", "gh"),
        ("npx --call='git push'", "gh"),
        ("npm exec -c 'git push'", "gh"),
        ("npm test", "-"),
        ("nix-shell -p hello --run 'git push'", "gh"),
        ("nix-shell", "?"),
        ("nix develop -c git push", "gh"),
        ("nix develop", "?"),
        ("nix build", "-"),
        ("flock /tmp/l git push", "gh"),
        ("flock -n /tmp/l -c 'git push'", "gh"),
        ("flock /tmp/l cargo test", "-"),
        ("script -qc 'git push' /dev/null", "gh"),
        ("script -qc'git push' /dev/null", "gh"),
        ("script --command='git push'", "gh"),
        ("script -tc out", "?"),
        ("script -B -c out <<< 'git push'", "?"),
        ("script -qB log -c 'git push'", "gh"),
        ("script --comm 'git push'", "gh"),
        ("script -x", "?"),
        ("script -q /dev/null <<< 'git push'", "?"),
        // A bundle with a character wider than a byte (the fuzzer's find: it panicked).
        ("script -\u{97} -c 'git push'", "?"),
        ("script -é", "?"),
    ];

    #[test]
    fn each_runner_is_analyzed_or_unknown() {
        let mut failures = Vec::new();
        for &(command, want) in ROWS {
            let got = analyze(command);
            let verdict = match (&got.unknown, &got.github_write) {
                (Some(_), _) => "?",
                (None, Some(_)) => "gh",
                (None, None) => "-",
            };
            if verdict != want {
                failures.push(format!(
                    "{command:?}: {verdict} ({:?}), want {want}",
                    got.unknown
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
