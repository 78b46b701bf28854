//! Table tests and properties of the shell analysis: the `.env` rows are the ones the
//! previous lexer passed, unchanged.

use super::*;
use quickcheck::quickcheck;

/// (command, names a `.env` file, verdict): `-` nothing to ask about, `gh:WHAT` a GitHub
/// write, `?` something Luxe cannot know.
const ROWS: &[(&str, bool, &str)] = &[
    ("cargo test", false, "-"),
    ("cargo test -p x 2>&1", false, "-"),
    ("cargo test; cat x", false, "-"),
    ("cargo test && rm -rf y", false, "-"),
    ("cargo test || true", false, "-"),
    ("cargo test | sh", false, "?"),
    ("cargo test |& tee", false, "-"),
    ("cargo test $(cat z)", false, "-"),
    ("cargo test `cat z`", false, "-"),
    ("cargo test \"$(cat z)\"", false, "-"),
    ("cargo test $((1+2))", false, "-"),
    ("cargo test > out", false, "-"),
    ("cargo test >> out", false, "-"),
    ("cargo test &> out", false, "-"),
    ("cargo test >| out", false, "-"),
    ("cargo test >& out", false, "-"),
    ("cargo test 2> err", false, "-"),
    ("cargo test <> f", false, "?"),
    ("cargo test 2>/dev/null", false, "-"),
    ("cargo test >/dev/null 2>&1", false, "-"),
    ("cargo test 2>&-", false, "-"),
    ("cargo test < input.txt", false, "-"),
    ("(cargo test)", false, "-"),
    ("{ cargo test; }", false, "-"),
    ("cargo test &", false, "-"),
    ("cargo test\nrm -rf y", false, "-"),
    ("cargo test\n", false, "-"),
    ("cargo test # ; rm -rf y", false, "-"),
    ("cargo test a#b", false, "-"),
    ("diff <(ls a) <(ls b)", false, "-"),
    ("tee >(cat)", false, "-"),
    ("cat <<EOF\nhi\nEOF", false, "-"),
    ("cat <<< hi", false, "-"),
    ("if true; then ls; fi", false, "-"),
    ("time cargo test", false, "-"),
    ("echo \"a;b\"", false, "-"),
    ("grep 'x|y' f", false, "-"),
    ("echo a\\;b", false, "-"),
    ("echo $HOME ${USER} \"$PWD\"", false, "-"),
    ("echo ${x@P}", false, "?"),
    ("FOO=1 cargo test", false, "-"),
    ("echo 'unterminated", false, "?"),
    ("echo \"unterminated", false, "?"),
    ("echo $(unterminated", false, "?"),
    ("echo ${unterminated", false, "?"),
    ("", false, "-"),
    ("# only a comment", false, "-"),
    ("cat .env", true, "-"),
    ("cat ./sub/.env.local", true, "-"),
    ("cat .ENV", true, "-"),
    ("cat .Env.Production", true, "-"),
    ("cat .en?", true, "-"),
    ("cat .e*", true, "-"),
    ("cat *env", true, "-"),
    ("cat .env*", true, "-"),
    ("cat .[e]nv", true, "-"),
    ("cat .[!x]nv", true, "-"),
    ("cat .[a-z]nv", true, "-"),
    ("cat .[[:alpha:]]nv", true, "-"),
    ("cat .{env,x}", true, "-"),
    ("cat .{d..f}nv", true, "-"),
    ("cat .e''nv", true, "-"),
    ("cat \".env\"", true, "-"),
    ("cat .e\\nv", true, "-"),
    ("cat $'\\x2eenv'", true, "-"),
    ("cat $'.e\\156v'", true, "-"),
    ("source .env", true, "?"),
    (". .env", true, "?"),
    ("cat < .env", true, "-"),
    ("cat 0<.env", true, "-"),
    ("tool --file=.env", true, "-"),
    ("tool --files=a.txt:.env", true, "-"),
    ("cat $HOME/.env", true, "-"),
    ("cat \"${ROOT}\"/.env", true, "-"),
    ("echo $(cat .env)", true, "-"),
    ("bash -c 'cat .env'", true, "-"),
    ("python3 -c \"print(open('.env').read())\"", true, "?"),
    ("cat .env.example", false, "-"),
    ("cat .env.sample", false, "-"),
    ("cat .envrc", false, "-"),
    ("cat .en", false, "-"),
    ("cat env", false, "-"),
    ("cat '.e*'", false, "-"),
    ("cat *.rs", false, "-"),
    ("ls *", false, "-"),
    ("cat src/*.{rs,toml}", false, "-"),
    ("cat *.*", false, "-"),
    ("cat .*", true, "-"),
    ("cat .env.l*", true, "-"),
    ("cat ?env", true, "-"),
    ("cat ?nv", false, "-"),
    ("shopt -s dotglob; cat *", true, "-"),
    ("bash -O dotglob -c 'cat *.local'", true, "-"),
    ("cat .[x]nv", false, "-"),
    ("cat .{x,y}", false, "-"),
    (".env/bin/python -V", false, "?"),
    ("PATH=.env/bin:$PATH pip list", false, "?"),
    ("git push", false, "gh:git push"),
    ("FOO=1 git push origin main", false, "gh:git push"),
    ("git -C x push", false, "gh:git push"),
    ("git --git-dir=x -c a.b=c push -f", false, "?"),
    ("/usr/bin/git push", false, "gh:git push"),
    ("git pushy", false, "?"),
    ("git log --grep push", false, "-"),
    ("git status && git push", false, "gh:git push"),
    ("cargo test; git push", false, "gh:git push"),
    (
        "git subtree push --prefix d origin b",
        false,
        "gh:git subtree push",
    ),
    ("git $CMD", false, "?"),
    ("git -c alias.p=push p", false, "?"),
    ("git -c 'alias.m=!gh pr merge 3' m", false, "?"),
    ("git rebase -x 'git push' main", false, "gh:git push"),
    ("gh pr create --fill", false, "gh:gh pr create"),
    ("gh pr -R o/r merge 3", false, "gh:gh pr merge"),
    ("gh pr view 3", false, "-"),
    ("gh pr list", false, "-"),
    ("gh issue comment 3 -b hi", false, "gh:gh issue comment"),
    ("gh release upload v1 a.tgz", false, "gh:gh release upload"),
    (
        "gh repo deploy-key add k.pub",
        false,
        "gh:gh repo deploy-key",
    ),
    ("gh repo deploy-key list", false, "gh:gh repo deploy-key"),
    ("gh secret set TOKEN", false, "gh:gh secret set"),
    (
        "gh api repos/o/r/issues -f title=x",
        false,
        "gh:gh api POST",
    ),
    ("gh api repos/o/r/issues -ftitle=x", false, "gh:gh api POST"),
    (
        "gh api repos/o/r/issues --input body.json",
        false,
        "gh:gh api POST",
    ),
    ("gh api -X GET repos/o/r", false, "-"),
    ("gh api -X GET search/issues -f q=x", false, "-"),
    ("gh api repos/o/r", false, "-"),
    ("gh api --paginate repos/o/r/issues", false, "-"),
    ("gh api --method=PATCH x", false, "gh:gh api PATCH"),
    ("gh api -XPOST x", false, "gh:gh api POST"),
    ("gh api -X delete x", false, "gh:gh api DELETE"),
    ("gh api --method put x", false, "gh:gh api PUT"),
    (
        "gh api graphql -f query='mutation { x }'",
        false,
        "gh:gh api POST",
    ),
    (
        "gh api graphql -f query='query { viewer { login } }'",
        false,
        "gh:gh api POST",
    ),
    (
        "gh api graphql -F query=@q.graphql",
        false,
        "gh:gh api POST",
    ),
    ("bash -c 'git push'", false, "gh:git push"),
    ("sh -c \"cd x && gh pr merge 3\"", false, "gh:gh pr merge"),
    ("bash -lc 'bash -c \"git push\"'", false, "gh:git push"),
    ("eval 'git push'", false, "gh:git push"),
    ("ssh host 'cd r && git push'", false, "gh:git push"),
    ("echo $(gh pr merge 3)", false, "gh:gh pr merge"),
    ("echo \"`git push`\"", false, "gh:git push"),
    ("sudo gh release create v1", false, "gh:gh release create"),
    (
        "sudo -u me env A=1 nice -n 5 command git push",
        false,
        "gh:git push",
    ),
    ("xargs git push", false, "gh:git push"),
    ("echo push | xargs git", false, "?"),
    ("time git push", false, "gh:git push"),
    ("echo 'git push' | sh", false, "?"),
    ("bash <<EOF\ngit push\nEOF", false, "gh:git push"),
    ("bash <<< 'gh pr merge 1'", false, "gh:gh pr merge"),
    ("cat <<EOF\n$(git push)\nEOF", false, "gh:git push"),
    ("cat <<'EOF'\n$(git push)\nEOF", false, "-"),
    ("cat <<EOF\ngit push\nEOF", false, "-"),
    (
        "python3 -c \"import subprocess; subprocess.run(['git', 'push'])\"",
        false,
        "?",
    ),
    ("git commit -m 'do not git push yet'", false, "-"),
    ("make", false, "-"),
    ("make test", false, "-"),
    ("make -C sub -j4 test V=1", false, "-"),
    ("make -f ci.mk check", false, "-"),
    ("make <<< $'all:\\n\\tgit push'", false, "gh:git push"),
    ("make -f - <<< $'all:\\n\\tgit push'", false, "gh:git push"),
    ("make -f - <<< $'all:\\n\\t$(shell git push)'", false, "?"),
    ("make --eval=$'all:\\n\\tgit push'", false, "gh:git push"),
    ("make 'X != git push'", false, "gh:git push"),
    ("make CC='git push;' x.o", false, "?"),
    ("echo x | make -f -", false, "?"),
    ("make -f - <<EOF\ninclude .env\nEOF", true, "?"),
    (
        "make -f - <<-EOF\nall:\n\tX != git push\nEOF",
        false,
        "gh:git push",
    ),
    ("make -f - <<EOF\nall:\n\tX != git push\nEOF", false, "-"),
    ("eval make -f - <<< $'all:\\n\\tgit push'", false, "?"),
    ("xargs make", false, "?"),
    ("make PATH=/tmp/x", false, "?"),
    ("make -p -f /dev/null", false, "-"),
    (
        "make -f - GIT_SSH_COMMAND=x <<< $'all:\\n\\tgit fetch'",
        false,
        "?",
    ),
    ("MAKEFLAGS=-j4 make", false, "?"),
    ("eval python3 <<< 'import os'", false, "?"),
    ("python3 --version", false, "-"),
    ("tmux new-session -d 'git push'", false, "?"),
    ("npx -c 'git push'", false, "gh:git push"),
    ("git push 'x", false, "?"),
    ("echo 'x' \"git push", false, "?"),
];

fn verdict(a: &Analysis) -> String {
    match (&a.unknown, &a.github_write) {
        (Some(_), _) => "?".to_owned(),
        (None, Some(what)) => format!("gh:{what}"),
        (None, None) => "-".to_owned(),
    }
}

#[test]
fn table() {
    let mut failures = Vec::new();
    for &(command, env, want) in ROWS {
        let got = analyze(command);
        if got.names_env_file != env || verdict(&got) != want {
            failures.push(format!(
                "{command:?}\n   got  env={} {} ({:?})\n   want env={env} {want}",
                got.names_env_file,
                verdict(&got),
                got.unknown
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn deep_nesting_is_cut_off_safely() {
    let mut command = "git push".to_owned();
    for _ in 0..20 {
        command = format!("echo $({command})");
    }
    assert!(analyze(&command).github_write.is_some());

    let mut command = "cat .env".to_owned();
    // Each level of quoting triples the quotes: ten levels are plenty.
    for _ in 0..10 {
        command = format!("bash -c {}", shell_quote(&command));
    }
    let got = analyze(&command);
    assert!(got.names_env_file);
    assert!(got.unknown.is_some(), "too deep to follow is unknown");
}

#[test]
fn large_inputs_stay_fast() {
    let words = "{a,b}".repeat(5000);
    assert!(!analyze(&format!("cat {words}")).names_env_file);
    let brackets = "[".repeat(50_000);
    assert!(!analyze(&format!("cat {brackets}")).names_env_file);
    let parens = "$(".repeat(50_000);
    assert!(analyze(&parens).unknown.is_some());
    let newlines = "\n".repeat(50_000);
    assert!(analyze(&format!("ls{newlines}")).unknown.is_none());
}

#[test]
fn wrappers_are_unwrapped_to_the_command_that_runs() {
    for (command, runs) in [
        ("sudo -u me env A=1 nice -n 5 command git push", "git push"),
        ("timeout -s KILL 5 cargo test", "cargo test"),
        ("/usr/bin/time -f %e make", "make"),
        ("xargs -0 -n1 rm", "rm"),
        ("find . -name x -exec rm -f {} +", "rm -f {}"),
        ("bash -c 'cd x && cargo test'", "cargo test"),
        ("exec -a name ls", "ls"),
        ("stdbuf -oL tail -f log", "tail -f log"),
    ] {
        let got = analyze(command);
        let texts: Vec<String> = got
            .parts
            .iter()
            .filter(|p| p.runs)
            .map(Part::text)
            .collect();
        assert!(texts.contains(&runs.to_owned()), "{command}: {texts:?}");
    }
}

#[test]
fn output_redirections_to_files_are_writes() {
    for (command, writes) in [
        ("cargo test > out", true),
        ("cargo test >> out", true),
        ("cargo test &> out", true),
        ("cargo test >| out", true),
        ("cargo test 2> err", true),
        ("cargo test >& out", true),
        ("cargo test 2>/dev/null", false),
        ("cargo test >/dev/null 2>&1", false),
        ("cargo test 2>&-", false),
        ("cargo test < input.txt", false),
        ("{ cargo test; } > out", true),
    ] {
        let got = analyze(command);
        let part = got.parts.iter().find(|p| p.runs).unwrap();
        assert_eq!(part.writes, writes, "{command}");
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Strings built from shell syntax, so the properties meet quotes and operators often.
fn shellish(seed: &[u8]) -> String {
    const PIECES: &[&str] = &[
        " ", "'", "\"", "\\", "$", "(", ")", "`", "{", "}", ";", "&", "|", "<", ">", "\n", "#",
        "*", "?", "[", "]", "=", ":", "/", "-", ",", "..", ".env", "git", "push", "gh", "pr",
        "api", "-X", "-f", "bash", "-c", "<<", "EOF", "a", "$(", "${", "$'", "$((", "2>&1", "!",
        "@P", "\t", "é", "if", "then", "fi", "do", "done", "case", "esac", "eval", "xargs", "find",
        "-exec", "env", "sed", "awk", "[[", "]]", "make", "-E", "all:", "$$",
    ];
    seed.iter()
        .map(|b| PIECES[usize::from(*b) % PIECES.len()])
        .collect()
}

quickcheck! {
    fn arbitrary_strings_never_panic(s: String) -> bool {
        let _ = analyze(&s);
        true
    }

    fn shellish_strings_never_panic(seed: Vec<u8>) -> bool {
        let _ = analyze(&shellish(&seed));
        true
    }

    // Except a `[` before a `$(` or backtick, which bash may run as a subscript elsewhere.
    fn single_quoted_text_is_inert(s: String, seed: Vec<u8>) -> bool {
        [s, shellish(&seed)].iter().filter(|s| !s.contains('[')).all(|s| {
            // A NUL cannot reach bash: no process argument holds one.
            let inner = s.replace(['\'', '\0'], "");
            let got = analyze(&format!("echo '{inner}'"));
            got.unknown.is_none() && got.github_write.is_none()
        })
    }

    // A trailing `\` joins the next line to this one and a here-doc opener makes it text:
    // bash itself then runs no `git push`, so those inputs are left out.
    fn an_appended_push_is_always_seen(s: String, seed: Vec<u8>) -> bool {
        [s, shellish(&seed)].iter().all(|s| {
            let got = analyze(&format!("{s}\ngit push"));
            s.ends_with('\\') || s.contains("<<") || got.unknown.is_some() || got.github_write.is_some()
        })
    }
}
