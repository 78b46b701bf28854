//! Which `git` and `gh` invocations may write to GitHub, by allow-list: only what is known to
//! be local or read-only passes. Known writers (`git push`, `send-pack`, `gh pr merge`, `gh api`
//! with a method other than GET) are GitHub writes; what could run anything (an alias, a
//! subcommand Luxe does not know, `-c`/`--config-env`/`GIT_CONFIG_*` that can run a program,
//! a `git config` that sets such a key for later) is unknown.

use super::words::Word;

/// What a `git` or `gh` command may do beyond the local repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It writes to GitHub: what, in a few words.
    Write(String),
    /// It may run anything: why.
    Unknown(String),
}

use Verdict::{Unknown, Write};

/// What `words` (a `git`, `git-*` or `gh` command) may do, or None when it only reads or
/// stays local. `env` names the variables set for it; `more_args` says arguments arrive at
/// run time.
pub fn write(name: &str, words: &[Word], env: &[String], more_args: bool) -> Option<Verdict> {
    let args = words.get(1..).unwrap_or_default();
    if let Some(var) = env.iter().find(|v| runs_programs(v)) {
        return Some(Unknown(format!(
            "{name} with {var} set, which can make it run any program"
        )));
    }
    match name {
        "git" => git(args, more_args),
        "gh" => gh(args, more_args),
        _ => {
            // `git-push …` is `git push …`.
            let sub = name.strip_prefix("git-")?;
            let mut words = vec![Word::plain(sub)];
            words.extend_from_slice(args);
            git(&words, more_args)
        }
    }
}

/// Whether setting `var` can make git or gh run a program or read another config.
pub fn runs_programs(var: &str) -> bool {
    const HARMLESS: &[&str] = &[
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_TERMINAL_PROMPT",
        "GIT_OPTIONAL_LOCKS",
        "GIT_TRACE",
        "GIT_TRACE2",
        "GIT_FLUSH",
        "GIT_LITERAL_PATHSPECS",
        "GIT_ADVICE",
        "GH_REPO",
        "GH_HOST",
        "GH_PROMPT_DISABLED",
        "GH_NO_UPDATE_NOTIFIER",
        "GH_FORCE_TTY",
        "GH_SPINNER_DISABLED",
    ];
    let tool_var = var.starts_with("GIT_") || var.starts_with("GH_");
    let program = matches!(
        var,
        "HOME"
            | "XDG_CONFIG_HOME"
            | "EDITOR"
            | "VISUAL"
            | "PAGER"
            | "BROWSER"
            | "LESSOPEN"
            | "LESSCLOSE"
            | "SSH_ASKPASS"
            | "GNUPGHOME"
    );
    (tool_var && !HARMLESS.contains(&var)) || program
}

/// `-c` keys that run no program and point nowhere else.
fn safe_config_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    const KEYS: &[&str] = &[
        "core.quotepath",
        "core.abbrev",
        "core.autocrlf",
        "core.safecrlf",
        "core.filemode",
        "core.ignorecase",
        "user.name",
        "user.email",
        "init.defaultbranch",
        "commit.gpgsign",
        "tag.gpgsign",
        "merge.conflictstyle",
        "pull.rebase",
        "pull.ff",
        "rebase.autosquash",
        "rebase.autostash",
        "log.date",
        "log.decorate",
        "diff.renames",
        "diff.noprefix",
        "diff.mnemonicprefix",
        "safe.directory",
        "protocol.version",
        "fetch.prune",
    ];
    KEYS.contains(&key.as_str())
        || ["color.", "advice.", "column.", "status."]
            .iter()
            .any(|p| key.starts_with(p))
}

/// Subcommands that only read or change the local repository.
const GIT_LOCAL: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "count-objects",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "fetch",
    "for-each-ref",
    "format-patch",
    "fsck",
    "gc",
    "get-tar-commit-id",
    "grep",
    "hash-object",
    "help",
    "index-pack",
    "init",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "merge",
    "merge-base",
    "merge-file",
    "merge-tree",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "pack-objects",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "repack",
    "replace",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "stripspace",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-objects",
    "update-index",
    "update-ref",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
    "config",
    "submodule",
    "lfs",
    "subtree",
];

/// Subcommands with options that run a program (`--upload-pack`, `--exec`), so that
/// arguments Luxe cannot see make them unknown.
const GIT_RUNS_FROM_OPTIONS: &[&str] = &[
    "clone",
    "fetch",
    "pull",
    "ls-remote",
    "archive",
    "rebase",
    "submodule",
    "config",
    "bisect",
    "remote",
    "am",
    "commit",
    "merge",
    "cherry-pick",
    "revert",
];

/// Where git's subcommand is, past its global options; Err with why it may write.
pub fn git_subcommand(args: &[Word]) -> Result<Option<usize>, String> {
    const VALUED: &[&str] = &[
        "-C",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--super-prefix",
        "--attr-source",
        "--list-cmds",
    ];
    const PLAIN: &[&str] = &[
        "-p",
        "--paginate",
        "-P",
        "--no-pager",
        "--bare",
        "--no-replace-objects",
        "--no-lazy-fetch",
        "--no-optional-locks",
        "--no-advice",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--html-path",
        "--man-path",
        "--info-path",
        "--version",
        "-v",
        "--help",
        "-h",
        "--exec-path",
    ];
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(text) = word.literal() else {
            return Err("git with a computed argument".to_owned());
        };
        if !text.starts_with('-') {
            return Ok(Some(i));
        }
        let flag = text.split_once('=').map_or(text, |(f, _)| f);
        if text == "-c" {
            let setting = args.get(i + 1).and_then(Word::literal).unwrap_or_default();
            let key = setting.split_once('=').map_or(setting, |(k, _)| k);
            if !safe_config_key(key) {
                return Err(format!("git -c {key}"));
            }
            i += 2;
        } else if flag == "--config-env" || flag == "--exec-path" && flag.len() < text.len() {
            return Err(format!("git {flag}"));
        } else if VALUED.contains(&flag) {
            i += if flag.len() < text.len() { 1 } else { 2 };
        } else if PLAIN.contains(&text) {
            i += 1;
        } else {
            return Err(format!(
                "git with the option {text}, which Luxe does not know"
            ));
        }
    }
    Ok(None)
}

/// Subcommands that send commits or refs to a remote.
const GIT_PUSHES: &[&str] = &["push", "send-pack", "http-push", "receive-pack"];

fn git(args: &[Word], more_args: bool) -> Option<Verdict> {
    let sub = match git_subcommand(args) {
        Err(why) => return Some(Unknown(format!("{why} can make git run any program"))),
        Ok(None) if more_args => {
            return Some(Unknown("git with arguments from its input".to_owned()));
        }
        Ok(None) => return None,
        Ok(Some(sub)) => sub,
    };
    let name = args.get(sub)?.text.as_str();
    let rest = args.get(sub + 1..).unwrap_or_default();
    if GIT_PUSHES.contains(&name) {
        return Some(Write(format!("git {name}")));
    }
    if !GIT_LOCAL.contains(&name) {
        return Some(Unknown(format!(
            "git {name} is no git command Luxe knows (an alias runs anything)"
        )));
    }
    if GIT_RUNS_FROM_OPTIONS.contains(&name) && (more_args || rest.iter().any(Word::dynamic)) {
        return Some(Unknown(format!(
            "git {name} with arguments Luxe cannot see"
        )));
    }
    let runs_program = rest.iter().any(|w| {
        let flag = w.text.split_once('=').map_or(w.text.as_str(), |(f, _)| f);
        matches!(
            flag,
            "--upload-pack" | "-u" | "--receive-pack" | "--exec" | "--template" | "--config"
        ) || (name == "clone" && flag == "-c")
    });
    if runs_program && name != "rebase" {
        return Some(Unknown(format!(
            "git {name} running a program named in its options"
        )));
    }
    let first = rest.iter().find(|w| !w.text.starts_with('-'));
    match name {
        "config" => config_write(rest),
        "submodule" => match first.map(|w| w.text.as_str()) {
            None | Some("status" | "summary" | "foreach") => None,
            Some(other) => Some(Unknown(format!(
                "git submodule {other}, which can run commands from .gitmodules"
            ))),
        },
        "lfs" => match first.map(|w| w.text.as_str()) {
            Some(
                "ls-files" | "status" | "env" | "version" | "track" | "untrack" | "fetch" | "pull"
                | "checkout" | "fsck" | "prune",
            ) => None,
            Some("push") => Some(Write("git lfs push".to_owned())),
            other => Some(Unknown(format!(
                "git lfs {}, which Luxe does not know",
                other.unwrap_or_default()
            ))),
        },
        "subtree" => rest
            .iter()
            .any(|w| w.text == "push")
            .then(|| Write("git subtree push".to_owned())),
        _ => None,
    }
}

/// `git config`: reading is fine; setting a key that can run a program or point git
/// elsewhere makes later git commands run anything.
fn config_write(rest: &[Word]) -> Option<Verdict> {
    const READS: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
        "get",
        "list",
        "--show-origin",
        "--show-scope",
        "--name-only",
    ];
    if rest.iter().any(|w| READS.contains(&w.text.as_str()))
        && !rest.iter().any(|w| w.text == "set")
    {
        return None;
    }
    if rest
        .iter()
        .any(|w| matches!(w.text.as_str(), "-e" | "--edit" | "edit"))
    {
        return Some(Unknown("git config --edit runs an editor".to_owned()));
    }
    const VALUED: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment"];
    let mut positional = Vec::new();
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        i += 1;
        if VALUED.contains(&w.text.as_str()) {
            i += 1;
        } else if !w.text.starts_with('-') {
            positional.push(w.text.as_str());
        }
    }
    let key = match positional.as_slice() {
        ["set", key, ..] | ["unset", key, ..] => *key,
        [_] | [] => return None,
        [key, ..] => *key,
    };
    (!safe_config_key(key)).then(|| {
        Unknown(format!(
            "git config {key} can make later git commands run any program"
        ))
    })
}

/// gh commands that only read, by group; `*` is every subcommand of the group.
fn gh_reads(group: &str) -> Option<&'static [&'static str]> {
    Some(match group {
        "pr" => &["list", "view", "diff", "checks", "status", "checkout"],
        "issue" => &["list", "view", "status"],
        "repo" => &["view", "list", "clone"],
        "release" => &["list", "view", "download"],
        "run" => &["list", "view", "watch", "download"],
        "workflow" => &["list", "view"],
        "gist" => &["list", "view", "clone"],
        "label" | "cache" | "secret" | "org" | "extension" | "alias" | "codespace" | "ssh-key"
        | "gpg-key" => &["list"],
        "agent-task" => &["list", "view"],
        "variable" => &["list", "get"],
        "ruleset" => &["list", "view", "check"],
        "project" => &["list", "view", "field-list", "item-list"],
        "config" => &["get", "list"],
        "auth" => &["status"],
        "attestation" => &["verify", "download", "trusted-root"],
        "search" => &["*"],
        "status" | "browse" | "co" | "completion" | "version" | "help" => &[],
        _ => return None,
    })
}

fn gh(args: &[Word], more_args: bool) -> Option<Verdict> {
    if more_args {
        return Some(Unknown("gh with arguments from its input".to_owned()));
    }
    let group = args.first()?;
    let Some(group_name) = group.literal() else {
        return Some(Unknown("gh with a computed command".to_owned()));
    };
    if matches!(group_name, "--version" | "--help" | "-h") {
        return None;
    }
    if group_name == "api" {
        return api(args.get(1..).unwrap_or_default());
    }
    let Some(reads) = gh_reads(group_name) else {
        return Some(Unknown(format!(
            "gh {group_name} is no gh command Luxe knows (an alias or extension runs anything)"
        )));
    };
    if reads.is_empty() {
        return None;
    }
    // The subcommand: the next word that is no flag, past the flags that take a value.
    let mut i = 1;
    while let Some(word) = args.get(i) {
        match word.text.as_str() {
            "-R" | "--repo" | "--hostname" => i += 2,
            "--help" | "-h" => return None,
            t if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let sub = args.get(i)?;
    match sub.literal() {
        None => Some(Unknown(format!(
            "gh {group_name} with a computed subcommand"
        ))),
        Some(s) if reads.contains(&s) || reads.contains(&"*") => None,
        Some(s) => Some(Write(format!("gh {group_name} {s}"))),
    }
}

/// Splits `--name=value` and glued short flags such as `-XPOST` or `-ftitle=x`.
fn split_flag(text: &str) -> (&str, Option<&str>) {
    if text.starts_with("--") {
        return match text.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (text, None),
        };
    }
    match (text.get(..2), text.get(2..)) {
        (Some(flag @ ("-X" | "-f" | "-F")), Some(value)) if !value.is_empty() => {
            (flag, Some(value.strip_prefix('=').unwrap_or(value)))
        }
        _ => (text, None),
    }
}

/// `gh api`: only a GET reads. Fields or `--input` without `-X` make gh POST; `graphql` is
/// always a POST.
fn api(args: &[Word]) -> Option<Verdict> {
    if args.iter().any(Word::dynamic) {
        return Some(Unknown(
            "gh api with arguments computed at run time".to_owned(),
        ));
    }
    let mut method: Option<String> = None;
    let mut body = false;
    let mut endpoint: Option<&str> = None;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let (flag, inline) = split_flag(&word.text);
        let value = |i: &mut usize| match inline {
            Some(v) => v.to_owned(),
            None => {
                *i += 1;
                args.get(*i - 1).map(|w| w.text.clone()).unwrap_or_default()
            }
        };
        match flag {
            "-X" | "--method" => method = Some(value(&mut i).to_ascii_uppercase()),
            "-f" | "-F" | "--field" | "--raw-field" | "--input" => {
                value(&mut i);
                body = true;
            }
            "-H" | "--header" | "-q" | "--jq" | "-t" | "--template" | "--cache" | "-p"
            | "--preview" | "--hostname" => {
                value(&mut i);
            }
            t if t.starts_with('-') => {}
            t => {
                endpoint.get_or_insert(t);
            }
        }
    }
    let method = match (endpoint, method) {
        (Some("graphql"), _) => "POST".to_owned(),
        (_, Some(m)) => m,
        (_, None) if body => "POST".to_owned(),
        (_, None) => "GET".to_owned(),
    };
    (method != "GET").then(|| Write(format!("gh api {method}")))
}
