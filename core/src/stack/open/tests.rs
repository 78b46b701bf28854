use super::*;
use crate::steps::drive;

fn drafts() -> Vec<StackDraft> {
    ["a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(i, b)| StackDraft {
            branch: (*b).to_owned(),
            base: if i == 0 {
                "main".into()
            } else {
                ["a", "b"][i - 1].into()
            },
            title: format!("T{b}"),
            description: format!("D{b}\n\n## Stack\nold list\n"),
        })
        .collect()
}

fn heads() -> Vec<String> {
    ["ha", "hb", "hc"].map(String::from).to_vec()
}

/// `git for-each-ref` as the branches stand at their previewed heads.
fn refs() -> Ran {
    Ran::ok("refs/heads/a\0ha\nrefs/heads/b\0hb\nrefs/heads/c\0hc\n")
}

fn arg_after<'a>(cmd: &'a Cmd, flag: &str) -> Option<&'a str> {
    let at = cmd.args.iter().position(|a| a == flag)?;
    cmd.args.get(at + 1).map(String::as_str)
}

fn creates(cmds: &[Cmd]) -> Vec<(String, String)> {
    cmds.iter()
        .filter(|c| c.args.starts_with(&["pr".into(), "create".into()]))
        .map(|c| {
            (
                arg_after(c, "--head").unwrap_or_default().to_owned(),
                arg_after(c, "--base").unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn opens_bottom_first_then_lists_every_number_in_each() {
    let mut flow = OpenFlow::new(drafts(), heads());
    let mut next_number = 10;
    let (cmds, done) = drive(&mut flow, |cmd| match cmd.args[0].as_str() {
        "pr" if cmd.args[1] == "list" => Ran::ok("[]"),
        "for-each-ref" => refs(),
        "pr" if cmd.args[1] == "create" => {
            next_number += 1;
            Ran::ok(format!("https://github.com/o/r/pull/{next_number}\n"))
        }
        _ => Ran::ok(""),
    });
    let opened = done.unwrap();
    assert_eq!(
        opened.iter().map(|p| p.number).collect::<Vec<_>>(),
        [11, 12, 13]
    );
    assert_eq!(
        creates(&cmds),
        [
            ("a".into(), "main".into()),
            ("b".into(), "a".into()),
            ("c".into(), "b".into())
        ]
    );
    let edits: Vec<&Cmd> = cmds
        .iter()
        .filter(|c| c.args.get(1).is_some_and(|a| a == "edit"))
        .collect();
    assert_eq!(edits.len(), 3);
    let body = arg_after(edits[1], "--body").unwrap();
    assert!(body.starts_with("Db\n\n## Stack\n"), "{body}");
    assert!(
        body.contains("3. #13 `c`\n2. #12 `b` ← this pull request\n1. #11 `a`\n"),
        "{body}"
    );
    assert!(!body.contains("old list"));
    assert!(flow.finished());
}

#[test]
fn a_failed_create_keeps_what_opened_and_a_second_confirm_opens_only_the_rest() {
    let mut flow = OpenFlow::new(drafts(), heads());
    let (_, done) = drive(&mut flow, |cmd| {
        match (cmd.args[0].as_str(), cmd.args[1].as_str()) {
            ("pr", "list") => Ran::ok("[]"),
            ("for-each-ref", _) => refs(),
            ("pr", "create") if arg_after(cmd, "--head") == Some("a") => {
                Ran::ok("https://github.com/o/r/pull/1\n")
            }
            ("pr", "create") => Ran::failed("HTTP 502"),
            _ => Ran::ok(""),
        }
    });
    assert!(
        done.unwrap_err()
            .reason
            .contains("gh pr create for b: HTTP 502")
    );
    assert_eq!(flow.opened().len(), 1);
    assert_eq!(
        flow.pending().map(|p| p.branch).collect::<Vec<_>>(),
        ["b", "c"]
    );
    // Meanwhile b's pull request did open (the failure was gh's, not GitHub's): adopted.
    let (cmds, done) = drive(&mut flow, |cmd| {
        match (cmd.args[0].as_str(), cmd.args[1].as_str()) {
            ("pr", "list") => Ran::ok(
                r#"[{"number":1,"state":"OPEN","headRefName":"a","baseRefName":"main","url":"u1"},
                {"number":2,"state":"OPEN","headRefName":"b","baseRefName":"a","url":"u2"}]"#,
            ),
            ("pr", "create") => Ran::ok("https://github.com/o/r/pull/3\n"),
            ("for-each-ref", _) => refs(),
            _ => Ran::ok(""),
        }
    });
    assert_eq!(creates(&cmds), [("c".to_owned(), "b".to_owned())]);
    assert_eq!(
        done.unwrap().iter().map(|p| p.number).collect::<Vec<_>>(),
        [1, 2, 3]
    );
}

#[test]
fn confirmation_changes_titles_and_own_text_only() {
    let mut flow = OpenFlow::new(drafts(), heads());
    flow.confirm(
        &[("a".to_owned(), "New".to_owned())].into(),
        &[("b".to_owned(), "Mine\n## Stack\nwhatever".to_owned())].into(),
        true,
    );
    let (cmds, _) = drive(&mut flow, |cmd| match cmd.args[1].as_str() {
        "list" => Ran::ok("[]"),
        _ if cmd.args[0] == "for-each-ref" => refs(),
        "create" => Ran::ok("https://github.com/o/r/pull/5\n"),
        _ => Ran::ok(""),
    });
    let first = cmds
        .iter()
        .find(|c| c.args.get(1).is_some_and(|a| a == "create"))
        .unwrap();
    assert_eq!(arg_after(first, "--title"), Some("New"));
    assert!(first.args.iter().any(|a| a == "--draft"));
    let b_edit = cmds
        .iter()
        .filter(|c| c.args.get(1).is_some_and(|a| a == "edit"))
        .nth(1)
        .unwrap();
    assert!(
        arg_after(b_edit, "--body")
            .unwrap()
            .starts_with("Mine\n\n## Stack\n")
    );
}

#[test]
fn a_branch_moved_since_the_preview_is_not_pushed() {
    let mut flow = OpenFlow::new(drafts(), heads());
    let (cmds, done) = drive(&mut flow, |cmd| match cmd.args[0].as_str() {
        "pr" => Ran::ok("[]"),
        "for-each-ref" => Ran::ok("refs/heads/a\0ha\nrefs/heads/b\0moved\nrefs/heads/c\0hc\n"),
        _ => Ran::ok(""),
    });
    let reason = done.unwrap_err().reason;
    assert!(
        reason.contains("b moved since the preview (hb → moved)"),
        "{reason}"
    );
    assert!(!cmds.iter().any(|c| c.args[0] == "push"));
}
