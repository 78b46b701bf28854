//! Wrappers: programs that run the command in their arguments (`command`, `builtin`, `exec`,
//! `env`, `nice`, `nohup`, `time`, `timeout`, `sudo`, `flock`, `xargs`, …), with the flags of
//! each, so that their own options are never mistaken for the command and an option Luxe does
//! not know makes the command unknown rather than misread.

use super::programs::{Layer, joined_text};
use super::words::Word;

/// What running the wrapper `name` with `args` does, or None when `name` is no wrapper.
pub fn layer(name: &str, args: &[Word]) -> Option<Layer> {
    spec(name).map(|spec| wrapper(name, &spec, args))
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
        "flock" => s(
            &[
                "-s",
                "--shared",
                "-x",
                "-e",
                "--exclusive",
                "-u",
                "--unlock",
                "-n",
                "--nb",
                "--nonblock",
                "--nonblocking",
                "-o",
                "--close",
                "-F",
                "--no-fork",
                "--verbose",
                "--fcntl",
            ],
            &[
                "-w",
                "--wait",
                "--timeout",
                "-E",
                "--conflict-exit-code",
                "--start",
                "--length",
            ],
            1,
            false,
            NONE,
        ),
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
            } else if text.get(..2).is_some_and(|s| spec.valued.contains(&s)) {
                // A glued value: `-n5`, `-sKILL`.
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
    if name == "flock"
        && inner
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "-c" | "--command"))
    {
        // `flock FILE -c COMMAND` runs the text with `sh -c`.
        return joined_text("flock -c", inner.get(1..2).unwrap_or_default());
    }
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
