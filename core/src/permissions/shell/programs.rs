//! What programs do with their arguments, one layer at a time: wrappers that run another
//! command (`command`, `env`, `nice`, `timeout`, `xargs`, `sudo`…), shells and `eval` that run
//! shell text, interpreters and script files Luxe cannot read into, and programs that run
//! commands named in their options (`find -exec`, `git rebase -x`, `tar --to-command`).

use super::parse::Stdin;
use super::sed;
use super::words::Word;

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
        /// The code.
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
        /// The command.
        words: Vec<Word>,
        /// More arguments arrive at run time.
        more_args: bool,
    },
    /// Shell code (`git rebase -x 'make test'`).
    Shell(String),
    /// Something that cannot be known.
    Unknown(String),
}

/// Flags of a wrapper, so that its own options are not mistaken for the command it runs.
struct Spec {
    /// Flags without a value.
    plain: &'static [&'static str],
    /// Flags whose value is the next word, or glued (`-n5`, `--signal=KILL`).
    valued: &'static [&'static str],
    /// Operands before the command (`timeout DURATION`, `chroot DIR`).
    operands: usize,
    /// `NAME=VALUE` words set variables (`env`, `sudo`).
    assignments: bool,
    /// Flags after which the wrapper runs nothing (`command -v`, `sudo -l`).
    no_run: &'static [&'static str],
}

const NONE: &[&str] = &[];

fn spec(name: &str) -> Option<Spec> {
    let s = |plain, valued, operands, assignments, no_run| Spec {
        plain,
        valued,
        operands,
        assignments,
        no_run,
    };
    Some(match name {
        "command" => s(&["-p"], NONE, 0, false, &["-v", "-V"]),
        "builtin" | "nohup" | "coproc" | "busybox" => s(NONE, NONE, 0, false, NONE),
        "exec" => s(&["-c", "-l", "-cl", "-lc"], &["-a"], 0, false, NONE),
        "env" => s(
            &[
                "-i",
                "--ignore-environment",
                "-0",
                "--null",
                "-v",
                "--debug",
            ],
            &["-u", "--unset", "-C", "--chdir"],
            0,
            true,
            NONE,
        ),
        "nice" => s(NONE, &["-n", "--adjustment"], 0, false, NONE),
        "time" => s(
            &[
                "-p",
                "-a",
                "--append",
                "-v",
                "--verbose",
                "-q",
                "--quiet",
                "--portability",
            ],
            &["-f", "--format", "-o", "--output"],
            0,
            false,
            NONE,
        ),
        "timeout" => s(
            &["--preserve-status", "--foreground", "-v", "--verbose"],
            &["-s", "--signal", "-k", "--kill-after"],
            1,
            false,
            NONE,
        ),
        "sudo" => s(
            &[
                "-E",
                "-H",
                "-n",
                "-S",
                "-b",
                "-k",
                "-A",
                "-B",
                "-P",
                "--preserve-env",
            ],
            &[
                "-u",
                "--user",
                "-g",
                "--group",
                "-p",
                "--prompt",
                "-C",
                "--close-from",
                "-D",
                "--chdir",
                "-r",
                "--role",
                "-t",
                "--type",
                "-U",
                "--other-user",
                "-T",
                "--command-timeout",
                "-h",
                "--host",
            ],
            0,
            true,
            &[
                "-l",
                "--list",
                "-v",
                "--validate",
                "-K",
                "--remove-timestamp",
                "-e",
                "--edit",
            ],
        ),
        "doas" => s(&["-n"], &["-u", "-C"], 0, false, NONE),
        "setsid" => s(
            &["-c", "--ctty", "-f", "--fork", "-w", "--wait"],
            NONE,
            0,
            false,
            NONE,
        ),
        "stdbuf" => s(
            NONE,
            &["-i", "--input", "-o", "--output", "-e", "--error"],
            0,
            false,
            NONE,
        ),
        "ionice" => s(
            &["-t", "--ignore"],
            &["-c", "--class", "-n", "--classdata"],
            0,
            false,
            &["-p", "--pid", "-P", "--pgid", "-u", "--uid"],
        ),
        "taskset" => s(
            &["-a", "--all-tasks", "-c", "--cpu-list"],
            NONE,
            1,
            false,
            &["-p", "--pid"],
        ),
        "chroot" => s(NONE, &["--userspec", "--groups"], 1, false, NONE),
        "unbuffer" => s(&["-p"], NONE, 0, false, NONE),
        "strace" | "ltrace" => s(
            &[
                "-f", "-ff", "-c", "-C", "-q", "-qq", "-t", "-tt", "-ttt", "-T", "-v", "-x", "-xx",
                "-y", "-yy", "-r", "-w", "-Z", "-z", "-k", "-i", "-n", "-F",
            ],
            &[
                "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-P", "-X", "-O", "-S", "-U",
            ],
            0,
            false,
            NONE,
        ),
        "xargs" => s(
            &[
                "-0",
                "--null",
                "-r",
                "--no-run-if-empty",
                "-t",
                "--verbose",
                "-p",
                "--interactive",
                "-x",
                "--exit",
                "-o",
                "--open-tty",
            ],
            &[
                "-a",
                "--arg-file",
                "-d",
                "--delimiter",
                "-E",
                "-I",
                "-L",
                "--max-lines",
                "-n",
                "--max-args",
                "-P",
                "--max-procs",
                "-s",
                "--max-chars",
                "--process-slot-var",
            ],
            0,
            false,
            &["--show-limits", "--version", "--help"],
        ),
        _ => return None,
    })
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

/// Interpreters of other languages: their code is beyond a shell parser.
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
    )
}

/// What `words` (whose program is `name`) does one layer down.
pub fn layer(name: &str, words: &[Word], stdin: &Stdin) -> Layer {
    let args = words.get(1..).unwrap_or_default();
    if let Some(spec) = spec(name) {
        return wrapper(name, &spec, args);
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
        "script" | "flock" => option_text(name, args, &["-c", "--command"]).unwrap_or(Layer::Runs),
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

fn wrapper(name: &str, spec: &Spec, args: &[Word]) -> Layer {
    let mut env = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(text) = word.literal() else {
            return Layer::Unknown(format!("`{name}` with a computed option"));
        };
        if text == "--" {
            i += 1;
            break;
        }
        if spec.no_run.contains(&text) {
            return Layer::Runs;
        }
        if name == "env" && (text.starts_with("-S") || text.starts_with("--split-string")) {
            return env_split(text, args.get(i + 1..).unwrap_or_default());
        }
        if name == "sudo" && matches!(text, "-s" | "--shell" | "-i" | "--login") {
            return joined_text("sudo -s", args.get(i + 1..).unwrap_or_default());
        }
        if text.starts_with('-') && text.len() > 1 {
            let flag = text.split_once('=').map_or(text, |(f, _)| f);
            if spec.plain.contains(&flag) || (name == "nice" && is_number(&text[1..])) {
                i += 1;
            } else if spec.valued.contains(&flag) {
                i += if flag.len() < text.len() { 1 } else { 2 };
            } else if let Some(short) = text.get(..2).filter(|s| spec.valued.contains(s)) {
                // A glued value: `-n5`, `-sKILL`.
                let _ = short;
                i += 1;
            } else if name == "xargs" && matches!(text.get(..2), Some("-i" | "-l" | "-e")) {
                i += 1;
            } else {
                return Layer::Unknown(format!("`{name}` with an option Luxe does not know"));
            }
            continue;
        }
        if spec.assignments && is_assignment(text) {
            env.push(text.split_once('=').map_or(text, |(n, _)| n).to_owned());
            i += 1;
            continue;
        }
        break;
    }
    let inner: Vec<Word> = args.get(i + spec.operands..).unwrap_or_default().to_vec();
    if inner.is_empty() {
        return if name == "xargs" {
            Layer::Wraps {
                inner: vec![Word::plain("echo")],
                env,
                more_args: true,
            }
        } else {
            Layer::Runs
        };
    }
    Layer::Wraps {
        inner,
        env,
        more_args: name == "xargs",
    }
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_digit())
}

/// `NAME=VALUE`.
pub fn is_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `env -S 'cmd args' more`: the string is split into words much as a shell would.
fn env_split(flag: &str, rest: &[Word]) -> Layer {
    let glued = flag
        .strip_prefix("--split-string=")
        .or_else(|| flag.strip_prefix("-S").filter(|s| !s.is_empty()));
    let (first, rest) = match glued {
        Some(text) => (Some(Word::plain(text)), rest),
        None => (rest.first().cloned(), rest.get(1..).unwrap_or_default()),
    };
    let mut all: Vec<Word> = first.into_iter().collect();
    all.extend_from_slice(rest);
    joined_text("env -S", &all)
}

/// Words a program joins with spaces and runs as shell code (`eval`, `ssh host …`).
fn joined_text(what: &str, words: &[Word]) -> Layer {
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
fn option_text(name: &str, args: &[Word], flags: &[&str]) -> Option<Layer> {
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
    match stdin {
        Stdin::Inherited => Layer::Runs,
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

/// Commands `words` runs besides itself, named in its options.
pub fn embedded(name: &str, words: &[Word]) -> Vec<Embedded> {
    let args = words.get(1..).unwrap_or_default();
    match name {
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
