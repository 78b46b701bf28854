//! `make` and the makefile text a command line hands it. A makefile the line supplies — its
//! input (a here-doc or here-string, read through `-f -`, `-f /dev/stdin` or a link to it), `-E`
//! and `--eval` text, a variable defined among the arguments — is shell text at one remove: its
//! recipe lines and `!=` assignments are commands make gives `/bin/sh -c`, and they are
//! analyzed as such. The reading is deliberately narrow: whatever make would expand or fetch
//! (`$(…)` and every other `$`, `include`, `define`, conditionals, special targets and variables
//! that change how recipes run, a value that could be a command where make puts it) makes the
//! makefile unknown. A makefile on disk (`make`, `make test`, `make -f ci.mk`) is the program's
//! own, as a project's build files are.

use super::parse::Stdin;
use super::programs::{Embedded, Source, source};
use super::words::Word;

/// What an option of GNU make takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    /// A directory, file or number: `-C dir`.
    Value,
    /// A value only when glued to it (`-j4`, `--jobs=4`).
    OptionalValue,
    /// A makefile to read: `-f FILE`.
    Makefile,
    /// Makefile text: `-E TEXT`, `--eval=TEXT`.
    Text,
}

const SHORT: &[(char, Takes)] = &[
    ('b', Takes::Nothing),
    ('B', Takes::Nothing),
    ('C', Takes::Value),
    ('d', Takes::Nothing),
    ('e', Takes::Nothing),
    ('E', Takes::Text),
    ('f', Takes::Makefile),
    ('h', Takes::Nothing),
    ('i', Takes::Nothing),
    ('I', Takes::Value),
    ('j', Takes::OptionalValue),
    ('k', Takes::Nothing),
    ('l', Takes::OptionalValue),
    ('L', Takes::Nothing),
    ('m', Takes::Nothing),
    ('n', Takes::Nothing),
    ('o', Takes::Value),
    ('O', Takes::OptionalValue),
    ('p', Takes::Nothing),
    ('q', Takes::Nothing),
    ('r', Takes::Nothing),
    ('R', Takes::Nothing),
    ('s', Takes::Nothing),
    ('S', Takes::Nothing),
    ('t', Takes::Nothing),
    ('v', Takes::Nothing),
    ('w', Takes::Nothing),
    ('W', Takes::Value),
];

const LONG: &[(&str, Takes)] = &[
    ("always-make", Takes::Nothing),
    ("assume-new", Takes::Value),
    ("assume-old", Takes::Value),
    ("check-symlink-times", Takes::Nothing),
    ("debug", Takes::OptionalValue),
    ("directory", Takes::Value),
    ("dry-run", Takes::Nothing),
    ("environment-overrides", Takes::Nothing),
    ("eval", Takes::Text),
    ("file", Takes::Makefile),
    ("help", Takes::Nothing),
    ("ignore-errors", Takes::Nothing),
    ("include-dir", Takes::Value),
    ("jobs", Takes::OptionalValue),
    ("jobserver-style", Takes::Value),
    ("just-print", Takes::Nothing),
    ("keep-going", Takes::Nothing),
    ("load-average", Takes::OptionalValue),
    ("makefile", Takes::Makefile),
    ("max-load", Takes::OptionalValue),
    ("new-file", Takes::Value),
    ("no-builtin-rules", Takes::Nothing),
    ("no-builtin-variables", Takes::Nothing),
    ("no-keep-going", Takes::Nothing),
    ("no-print-directory", Takes::Nothing),
    ("no-silent", Takes::Nothing),
    ("old-file", Takes::Value),
    ("output-sync", Takes::OptionalValue),
    ("print-data-base", Takes::Nothing),
    ("print-directory", Takes::Nothing),
    ("question", Takes::Nothing),
    ("quiet", Takes::Nothing),
    ("recon", Takes::Nothing),
    ("shuffle", Takes::OptionalValue),
    ("silent", Takes::Nothing),
    ("stop", Takes::Nothing),
    ("touch", Takes::Nothing),
    ("trace", Takes::Nothing),
    ("version", Takes::Nothing),
    ("warn-undefined-variables", Takes::Nothing),
    ("what-if", Takes::Value),
];

/// Directives that read other files, define text for later expansion, or decide what is read:
/// beyond this reading.
const DIRECTIVES: &[&str] = &[
    "include", "-include", "sinclude", "load", "-load", "define", "endef", "undefine", "override",
    "export", "unexport", "private", "vpath", "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif",
];

/// Variables that change which program runs the recipes, how make reads its options and
/// makefiles, or what starts a recipe line.
const SPECIAL_VARIABLES: &[&str] = &[
    "SHELL",
    ".SHELLFLAGS",
    "MAKESHELL",
    "MAKEFLAGS",
    "GNUMAKEFLAGS",
    "MFLAGS",
    "MAKEFILES",
    "MAKEOVERRIDES",
    ".RECIPEPREFIX",
];

/// Special targets after which recipes are not one shell command a line (`.ONESHELL`), are
/// expanded twice (`.SECONDEXPANSION`), run with every variable in their environment, or run
/// by another shell (BSD make's `.SHELL`, `.MAKEFLAGS`).
const SPECIAL_TARGETS: &[&str] = &[
    ".ONESHELL",
    ".SECONDEXPANSION",
    ".EXPORT_ALL_VARIABLES",
    ".SHELL",
    ".MAKEFLAGS",
];

/// What `make` with `args` runs besides itself, reading `stdin`; `more_args` when more
/// arguments arrive at run time.
pub fn embedded(args: &[Word], stdin: &Stdin, more_args: bool) -> Vec<Embedded> {
    if more_args {
        return vec![Embedded::Unknown(
            "arguments that arrive at run time, which may hand it makefile text".to_owned(),
        )];
    }
    let line = match command_line(args) {
        Ok(line) => line,
        Err(why) => return vec![Embedded::Unknown(why)],
    };
    let mut out = Vec::new();
    let mut texts = line.texts;
    // Given an input, make reads it as a makefile through `-f -`, `/dev/stdin` or a link to
    // it; without one, `-f -` reads whatever an enclosing command gives it.
    match stdin {
        Stdin::Text(text) => {
            out.push(Embedded::Code(text.clone()));
            texts.push(text.clone());
        }
        Stdin::Inherited if !line.reads_input => {}
        _ => {
            out.push(Embedded::Unknown(
                "a makefile from its input, which Luxe cannot see".to_owned(),
            ));
        }
    }
    for text in &texts {
        match read(text) {
            Ok(makefile) => {
                out.extend(makefile.commands.into_iter().map(Embedded::Shell));
                out.extend(makefile.assigned.into_iter().map(Embedded::Exports));
            }
            Err(why) => out.push(Embedded::Unknown(format!(
                "a makefile Luxe cannot follow: {why}"
            ))),
        }
    }
    out
}

/// What make's command line hands it besides its options.
#[derive(Debug, Default)]
struct CommandLine {
    /// Makefile text: `--eval` values and variable definitions (`X=1`, `X != cmd`).
    texts: Vec<String>,
    /// A `-f` names standard input.
    reads_input: bool,
}

/// Reads make's arguments as GNU make's getopt does: options anywhere, bundled short options,
/// long options abbreviated to any unambiguous prefix.
fn command_line(args: &[Word]) -> Result<CommandLine, String> {
    let mut line = CommandLine::default();
    let mut rest = args.iter();
    let mut operands_only = false;
    while let Some(word) = rest.next() {
        let Some(text) = word.literal() else {
            return Err(
                "arguments computed at run time, which may be options or makefile text".to_owned(),
            );
        };
        if operands_only || !text.starts_with('-') || text == "-" {
            // A goal, or a variable definition: makefile text.
            if text.contains('=') {
                line.texts.push(text.to_owned());
            }
            continue;
        }
        if text == "--" {
            operands_only = true;
            continue;
        }
        let (takes, glued) = match text.strip_prefix("--") {
            Some(long) => {
                let (name, value) = long
                    .split_once('=')
                    .map_or((long, None), |(n, v)| (n, Some(v)));
                (long_option(name)?, value)
            }
            None => short_options(&text[1..])?,
        };
        let value = match takes {
            Takes::Value | Takes::Makefile | Takes::Text => match glued {
                Some(value) => Some(Word::plain(value)),
                None => rest.next().cloned(),
            },
            Takes::Nothing | Takes::OptionalValue => None,
        };
        match (takes, value) {
            (Takes::Makefile, Some(file)) => match source(&file) {
                Source::Disk => {}
                Source::Input => line.reads_input = true,
                Source::Elsewhere(why) => return Err(format!("a makefile {why}")),
            },
            (Takes::Text, Some(text)) => match text.literal() {
                Some(text) => line.texts.push(text.to_owned()),
                None => return Err("makefile text computed at run time".to_owned()),
            },
            _ => {}
        }
    }
    Ok(line)
}

/// `--name`: an option's full name or an abbreviation of one.
fn long_option(name: &str) -> Result<Takes, String> {
    if let Some(&(_, takes)) = LONG.iter().find(|(n, _)| *n == name) {
        return Ok(takes);
    }
    let mut candidates = LONG
        .iter()
        .filter(|(n, _)| n.starts_with(name))
        .map(|&(_, takes)| takes);
    match candidates.next() {
        // Ambiguous abbreviations stop make; among options alike the reading is the same.
        Some(takes) if candidates.all(|t| t == takes) => Ok(takes),
        _ => Err(format!(
            "an option Luxe does not know (`--{name}`), which may hand it makefile text"
        )),
    }
}

/// `-sf-`: the option of a bundle that takes a value, and the value glued to it.
fn short_options(bundle: &str) -> Result<(Takes, Option<&str>), String> {
    for (at, flag) in bundle.char_indices() {
        let Some(&(_, takes)) = SHORT.iter().find(|(c, _)| *c == flag) else {
            return Err(format!(
                "an option Luxe does not know (`-{flag}`), which may hand it makefile text"
            ));
        };
        if takes != Takes::Nothing {
            let rest = &bundle[at + flag.len_utf8()..];
            return Ok((takes, (!rest.is_empty()).then_some(rest)));
        }
    }
    Ok((Takes::Nothing, None))
}

/// What a makefile text runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Makefile {
    /// The shell commands of its recipe lines and `!=` assignments, `$$` made `$`.
    pub commands: Vec<String>,
    /// The variables it sets, which make exports to the commands it runs when they come from
    /// its command line or its environment.
    pub assigned: Vec<String>,
}

/// Reads makefile `text`; Err with why when any of it is beyond this reading.
pub fn read(text: &str) -> Result<Makefile, String> {
    let mut out = Makefile::default();
    let mut lines = text.split('\n');
    let mut in_rule = false;
    while let Some(first) = lines.next() {
        let mut physical = vec![first];
        while physical.last().is_some_and(|l| continues(l)) {
            match lines.next() {
                Some(next) => physical.push(next),
                None => break,
            }
        }
        if in_rule && first.starts_with('\t') {
            out.commands.push(recipe(&recipe_line(&physical))?);
            continue;
        }
        // Outside a recipe a backslash-newline is a space.
        let line = physical
            .iter()
            .map(|l| if continues(l) { &l[..l.len() - 1] } else { l })
            .collect::<Vec<_>>()
            .join(" ");
        let code = before(&line, &['#']).map_or(line.as_str(), |(code, _)| code);
        if code.trim().is_empty() {
            // Blank lines and comments leave a rule's recipe open.
            continue;
        }
        in_rule = false;
        let first_word = code.split_whitespace().next().unwrap_or_default();
        if DIRECTIVES.contains(&first_word) {
            return Err(format!("the directive `{first_word}`"));
        }
        let colon = code.find(':');
        match code.find('=') {
            // `=`, `:=`, `::=`, `:::=`, `+=`, `?=`, `!=`; a `:` before anything but `=` makes
            // a rule (with a target-specific variable, which the rule refuses).
            Some(eq) if colon.is_none_or(|c| c > eq || code[c..eq].bytes().all(|b| b == b':')) => {
                assignment(code, colon.filter(|&c| c < eq), eq, &mut out)?;
            }
            _ if colon.is_some() => {
                in_rule = true;
                if let Some(command) = rule(&line)? {
                    out.commands.push(command);
                }
            }
            _ => return Err(format!("`{}`, which is no rule or assignment", code.trim())),
        }
    }
    Ok(out)
}

/// Whether a line ends in a backslash that escapes the newline.
fn continues(line: &str) -> bool {
    line.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

/// A recipe line as make hands it to the shell: backslash-newlines kept, and the tab that
/// starts each continuation line removed.
fn recipe_line(physical: &[&str]) -> String {
    physical
        .iter()
        .enumerate()
        .map(|(n, l)| {
            if n == 0 {
                &l[1..]
            } else {
                l.strip_prefix('\t').unwrap_or(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The shell command of a recipe line: without make's `@`, `-` and `+` prefixes, and with no
/// `$` left for make to expand.
fn recipe(line: &str) -> Result<String, String> {
    unescape_dollars(line.trim_start_matches(['@', '-', '+', ' ', '\t']))
}

/// `$$` is a `$`; any other `$` is an expansion only make can do.
fn unescape_dollars(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '$' && chars.next() != Some('$') {
            return Err(
                "`$`, which make expands (a variable, or a function such as `$(shell …)`)"
                    .to_owned(),
            );
        }
        out.push(c);
    }
    Ok(out)
}

/// The first of `stops` that no backslash escapes: the text before it and the stop.
fn before<'t>(text: &'t str, stops: &[char]) -> Option<(&'t str, char)> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if !escaped && stops.contains(&c) {
            return Some((&text[..at], c));
        }
        escaped = c == '\\' && !escaped;
    }
    None
}

/// `NAME op VALUE`, the operator ending at `eq` (and starting at `colon` for `:=` and kin).
fn assignment(
    code: &str,
    colon: Option<usize>,
    eq: usize,
    out: &mut Makefile,
) -> Result<(), String> {
    let (start, shell) = match (colon, code[..eq].chars().last()) {
        (Some(colon), _) => (colon, false),
        (None, Some(op @ ('+' | '?' | '!'))) => (eq - 1, op == '!'),
        _ => (eq, false),
    };
    let name = code[..start].trim();
    let value = code[eq + 1..].trim();
    if name.is_empty() || name.contains(char::is_whitespace) || name.contains('$') {
        return Err(format!("`{}`, which is no plain assignment", code.trim()));
    }
    if SPECIAL_VARIABLES.contains(&name) {
        return Err(format!(
            "setting {name}, which changes how make runs or reads"
        ));
    }
    if shell {
        // `X != command` runs the command when make reads the line.
        out.commands.push(unescape_dollars(value)?);
    } else if !value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-./,+=:@%^~".contains(c))
    {
        // Make (its built-in rules, or the project's makefile) splices values into recipes.
        return Err(format!(
            "{name} set to `{value}`, which may be a command where make puts it"
        ));
    }
    out.assigned.push(name.to_owned());
    Ok(())
}

/// `targets: prerequisites ; recipe`: the recipe, if the line has one. Make ends the head at
/// the first `;` or `#`, whichever comes first: a `#` after the `;` is the shell's.
fn rule(line: &str) -> Result<Option<String>, String> {
    let (head, command) = match before(line, &[';', '#']) {
        Some((head, ';')) => (head, Some(&line[head.len() + 1..])),
        Some((head, _)) => (head, None),
        None => (line, None),
    };
    if head.contains('$') {
        return Err("`$` in a rule, which make expands".to_owned());
    }
    if head.contains('=') {
        return Err("a target-specific variable".to_owned());
    }
    let targets = head.split(':').next().unwrap_or_default();
    if let Some(special) = targets
        .split_whitespace()
        .find(|t| SPECIAL_TARGETS.contains(t))
    {
        return Err(format!("the special target {special}"));
    }
    command.map(recipe).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(text: &str) -> Vec<String> {
        read(text)
            .unwrap_or_else(|why| panic!("{text:?}: {why}"))
            .commands
    }

    #[test]
    fn recipes_are_the_lines_after_a_rule_that_start_with_a_tab() {
        assert_eq!(commands("all:\n\tgit push\n"), ["git push"]);
        assert_eq!(
            commands("all: x\n\nx:\n# c\n\t@-+ echo $$HOME\n\n\tls"),
            ["echo $HOME", "ls"]
        );
        assert_eq!(commands("all: ; git push # now"), ["git push # now"]);
        assert_eq!(commands("all: # ; git push"), Vec::<String>::new());
        assert_eq!(
            commands("all:\n\tgit push \\\n\t\torigin main"),
            ["git push \\\n\torigin main"]
        );
        assert_eq!(commands("X != git push\nY ::= 1\nZ ?= a.b"), ["git push"]);
        // A tab line outside a rule is an ordinary line.
        assert_eq!(commands("X = 1\n\tY != git push"), ["git push"]);
        assert_eq!(
            commands(".PHONY: all\n%.o: %.c\n\tcc -c x.c"),
            ["cc -c x.c"]
        );
        assert_eq!(read("CC = gcc\nall: x\n").unwrap().assigned, ["CC"]);
        assert_eq!(
            commands("# only a comment \\\n\tgit push\n"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn what_make_would_expand_or_fetch_is_not_read() {
        for text in [
            "all:\n\t$(shell git push)",
            "all:\n\tgit $(PUSH)",
            "all:\n\techo $@",
            "X := $(shell git push)",
            "X = $$(shell git push)",
            "$(X): y",
            "all: $$(shell git push)",
            "include push.mk",
            "-include push.mk",
            "define X\ngit push\nendef",
            "ifeq (a,a)\nendif",
            "export GIT_SSH_COMMAND = x",
            "override X = 1",
            "SHELL = /bin/bash",
            ".SHELLFLAGS = -c",
            "MAKEFLAGS += --eval=x",
            ".RECIPEPREFIX = >",
            ".ONESHELL:",
            "all .SECONDEXPANSION: x",
            "all: X = git push",
            "CC = git push;",
            "CFLAGS = -O2 -g",
            "git push",
            "a b = c",
        ] {
            assert!(read(text).is_err(), "{text:?}");
        }
    }

    fn line(args: &[&str]) -> Result<CommandLine, String> {
        let words: Vec<Word> = args.iter().map(|a| Word::plain(a)).collect();
        command_line(&words)
    }

    #[test]
    fn the_command_line_is_read_as_getopt_does() {
        for args in [
            &["-f", "-"][..],
            &["-f-"],
            &["-sf", "/dev/stdin"],
            &["-kf/dev/stdin"],
            &["--file=-"],
            &["--file", "//dev/./stdin"],
            &["--makefile=-"],
            &["--makef", "/dev/fd/0"],
            &["-C", "-f", "-f", "-"],
            &["all", "-f", "/proc/self/fd/0"],
        ] {
            assert!(line(args).unwrap().reads_input, "{args:?}");
        }
        for args in [
            &[][..],
            &["test"],
            &["-C", "sub", "-j4", "test"],
            &["-j", "4", "test"],
            &["-f", "ci.mk"],
            &["-C", "-f"],
            &["--", "-f", "-"],
            &["--directory=x", "--no-print-directory"],
        ] {
            assert!(!line(args).unwrap().reads_input, "{args:?}");
        }
        assert_eq!(
            line(&["-E", "a", "--eval=b", "--ev", "c", "-Ed", "X=1", "-kEe"])
                .unwrap()
                .texts,
            ["a", "b", "c", "d", "X=1", "e"]
        );
        for args in [
            &["-f", "/dev/fd/3"][..],
            &["-f", "../../../../dev/fd/3"],
            &["-x"],
            &["--bogus"],
            &["--ma=x"],
            &["-D", "X"],
        ] {
            assert!(line(args).is_err(), "{args:?}");
        }
    }
}
