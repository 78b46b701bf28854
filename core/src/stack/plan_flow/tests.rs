use super::*;

/// Drives a plan with `answers`, one per command, and returns the commands it ran and its end.
fn drive(answers: &[&str]) -> (Vec<Vec<String>>, Option<Result<Planned, String>>) {
    let mut flow = PlanFlow::new("main".into());
    let mut ran = Vec::new();
    let mut next = flow.start();
    let mut answers = answers.iter();
    loop {
        match next {
            Next::Done(done) => return (ran, Some(done)),
            Next::Run(cmd) => {
                ran.push(cmd.args.clone());
                let Some(answer) = answers.next() else {
                    return (ran, None);
                };
                next = flow.on(Ran::ok(*answer));
            }
            Next::Write(_) => unreachable!("a plan writes no file"),
        }
    }
}

#[test]
fn pull_requests_whose_branches_are_gone_are_refused() {
    // The only pull request was merged and its branch deleted here and on origin: no reflog
    // to read, so the flow goes straight to the graph (it used to call itself for ever).
    let pulls = r#"[{"number":1,"state":"MERGED","headRefName":"gone","baseRefName":"main","headRefOid":"c1"}]"#;
    let refs = "refs/heads/main\0c0\nrefs/remotes/origin/main\0c0\n";
    let (ran, done) = drive(&["", pulls, refs, "c0\n"]);
    assert_eq!(
        ran.len(),
        4,
        "fetch, gh pr list, for-each-ref, rev-list: {ran:?}"
    );
    assert_eq!(
        ran[3].first().map(String::as_str),
        Some("rev-list"),
        "{ran:?}"
    );
    let refusal = done.expect("answered").expect_err("refused");
    assert!(
        refusal.starts_with("no open pull request has its branch"),
        "{refusal}"
    );
}

#[test]
fn reflogs_are_read_when_a_branch_is_here() {
    let pulls =
        r#"[{"number":1,"state":"OPEN","headRefName":"a","baseRefName":"main","headRefOid":"c1"}]"#;
    let refs = "refs/heads/main\0c0\nrefs/heads/a\0c1\nrefs/remotes/origin/main\0c0\n";
    let (ran, _) = drive(&["", pulls, refs]);
    let reflogs = ran.get(3).expect("a fourth command");
    assert!(reflogs.iter().any(|a| a == "refs/heads/a"), "{reflogs:?}");
}

#[test]
fn the_fuzzers_finding_ends() {
    // The input the `stack` fuzz target found the endless recursion with, kept as a seed.
    crate::harness::stack_flows(include_bytes!(
        "../../../../fuzz/seeds/stack/plan-without-branches.bin"
    ));
}
