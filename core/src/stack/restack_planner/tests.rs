use super::*;

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

fn pull(number: u64, state: &str, head: &str, base: &str, oid: &str) -> PullRef {
    PullRef {
        number,
        state: state.to_owned(),
        head_ref_name: head.to_owned(),
        base_ref_name: base.to_owned(),
        head_ref_oid: Some(oid.to_owned()),
        url: None,
        is_cross_repository: false,
    }
}

fn facts(
    local: &[(&str, &str)],
    remote: &[(&str, &str)],
    pulls: Vec<PullRef>,
    graph: &str,
) -> Facts {
    Facts {
        default_branch: "main".into(),
        local: map(local),
        remote: map(remote),
        pulls,
        graph: Graph::parse(graph),
        local_reflog: BTreeMap::new(),
        remote_reflog: BTreeMap::new(),
    }
}

fn summary(moves: &[RestackMove]) -> Vec<(String, String, String, Option<String>, String, u32)> {
    moves
        .iter()
        .map(|m| {
            (
                m.branch.clone(),
                m.old_parent.clone(),
                m.new_parent.clone(),
                m.new_parent_sha.clone(),
                m.new_base.clone(),
                m.commits,
            )
        })
        .collect()
}

fn row(
    b: &str,
    old: &str,
    new: &str,
    sha: Option<&str>,
    base: &str,
    n: u32,
) -> (String, String, String, Option<String>, String, u32) {
    (
        b.into(),
        old.into(),
        new.into(),
        sha.map(Into::into),
        base.into(),
        n,
    )
}

#[test]
fn squash_merged_bottom_moves_the_next_onto_the_base() {
    let f = facts(
        &[("a", "a1"), ("b", "b2")],
        &[("main", "s1"), ("a", "a1"), ("b", "b2")],
        vec![
            pull(1, "MERGED", "a", "main", "a1"),
            pull(2, "OPEN", "b", "a", "b2"),
        ],
        "b2 b1\nb1 a1\na1 m0\n-m0\n",
    );
    let moves = plan(&f).unwrap();
    assert_eq!(
        summary(&moves),
        [row("b", "a1", "origin/main", Some("s1"), "main", 2)]
    );
    assert_eq!(moves[0].old_head.remote.as_deref(), Some("b2"));
}

#[test]
fn merge_committed_bottom_moves_the_next_past_it() {
    let f = facts(
        &[("a", "a1"), ("b", "b1")],
        &[("main", "mm"), ("b", "b1")],
        vec![
            pull(1, "MERGED", "a", "main", "a1"),
            pull(2, "OPEN", "b", "a", "b1"),
        ],
        "b1 a1\n-a1\n",
    );
    assert_eq!(
        summary(&plan(&f).unwrap()),
        [row("b", "a1", "origin/main", Some("mm"), "main", 1)]
    );
}

#[test]
fn a_moved_base_moves_the_whole_stack() {
    let f = facts(
        &[("a", "a1"), ("b", "b1")],
        &[("main", "m1"), ("a", "a1"), ("b", "b1")],
        vec![
            pull(1, "OPEN", "a", "main", "a1"),
            pull(2, "OPEN", "b", "a", "b1"),
        ],
        "b1 a1\na1 m0\n-m0\n",
    );
    assert_eq!(
        summary(&plan(&f).unwrap()),
        [
            row("a", "m0", "origin/main", Some("m1"), "main", 1),
            row("b", "a1", "a", None, "a", 1)
        ]
    );
}

#[test]
fn a_middle_branch_amended_here_is_pushed_and_the_top_follows_it() {
    let mut f = facts(
        &[("a", "a1"), ("b", "b1x"), ("c", "c1")],
        &[("main", "m0"), ("a", "a1"), ("b", "b1"), ("c", "c1")],
        vec![
            pull(1, "OPEN", "a", "main", "a1"),
            pull(2, "OPEN", "b", "a", "b1"),
            pull(3, "OPEN", "c", "b", "c1"),
        ],
        "c1 b1\nb1 a1\nb1x a1\na1 m0\n-m0\n",
    );
    // Refused while nothing says b was ever at b1 here: that would be someone else's push.
    assert!(
        plan(&f)
            .unwrap_err()
            .contains("b on origin has commits this checkout does not")
    );
    f.local_reflog
        .insert("b".into(), vec!["b1x".into(), "b1".into()]);
    assert_eq!(
        summary(&plan(&f).unwrap()),
        [
            row("b", "a1", "a", Some("a1"), "a", 1),
            row("c", "b1", "b", None, "b", 1)
        ]
    );
}

#[test]
fn refusals() {
    let settled = facts(
        &[("a", "a1")],
        &[("main", "m0"), ("a", "a1")],
        vec![pull(1, "OPEN", "a", "main", "a1")],
        "a1 m0\n-m0\n",
    );
    assert!(plan(&settled).unwrap_err().contains("nothing to restack"));
    let none = facts(
        &[("a", "a1")],
        &[("main", "m0")],
        vec![pull(1, "MERGED", "a", "main", "a1")],
        "",
    );
    assert!(plan(&none).unwrap_err().contains("no open pull request"));
    // b's only commit is a's: after a squash it would have nothing of its own.
    let empty = facts(
        &[("a", "a1"), ("b", "a1")],
        &[("main", "s1"), ("b", "a1")],
        vec![
            pull(1, "MERGED", "a", "main", "a1"),
            pull(2, "OPEN", "b", "a", "a1"),
        ],
        "a1 m0\n-m0\n",
    );
    assert!(
        plan(&empty)
            .unwrap_err()
            .contains("mark the pull request merged")
    );
    let cycle = facts(
        &[("a", "a1"), ("b", "b1")],
        &[("main", "m0")],
        vec![
            pull(1, "OPEN", "a", "b", "a1"),
            pull(2, "OPEN", "b", "a", "b1"),
        ],
        "a1 m0\nb1 m0\n-m0\n",
    );
    assert!(plan(&cycle).unwrap_err().contains("cycle"));
}

#[test]
fn a_squash_merged_bottom_gone_from_origin_with_the_next_retargeted() {
    // GitHub deleted a and moved #2 onto main: only #1's head says where b's own commits start.
    let f = facts(
        &[("b", "b2")],
        &[("main", "s1"), ("b", "b2")],
        vec![
            pull(1, "MERGED", "a", "main", "a1"),
            pull(2, "OPEN", "b", "main", "b2"),
        ],
        "b2 b1\nb1 a1\na1 m0\n-m0\n",
    );
    assert_eq!(
        summary(&plan(&f).unwrap()),
        [row("b", "a1", "origin/main", Some("s1"), "main", 2)]
    );
}

#[test]
fn a_living_base_once_merged_is_a_base_not_a_merged_branch() {
    // develop was merged into main once (#1) and has moved on; #2 stays on develop.
    let f = facts(
        &[("feat", "f1")],
        &[("main", "m1"), ("develop", "d2"), ("feat", "f1")],
        vec![
            pull(1, "MERGED", "develop", "main", "d1"),
            pull(2, "OPEN", "feat", "develop", "f1"),
        ],
        "f1 d1\nd2 d1\nd1 m0\n-m0\n",
    );
    assert_eq!(
        summary(&plan(&f).unwrap()),
        [row(
            "feat",
            "d1",
            "origin/develop",
            Some("d2"),
            "develop",
            1
        )]
    );
}

#[test]
fn the_graph_is_cut_at_every_remote_base_and_forks_are_left_alone() {
    let mut f = facts(
        &[("fix", "x1"), ("main", "m0")],
        &[("main", "m0"), ("release", "r2"), ("fix", "x1")],
        vec![
            pull(1, "OPEN", "fix", "release", "x1"),
            pull(2, "OPEN", "main", "main", "m0"),
        ],
        "x1 r1\n-r1\n",
    );
    f.pulls[1].is_cross_repository = true;
    assert_eq!(f.graph_bases(), ["main", "release"]);
    assert_eq!(
        summary(&plan(&f).unwrap()),
        [row("fix", "r1", "origin/release", Some("r2"), "release", 1)]
    );
}

#[test]
fn a_branch_with_two_open_pull_requests_on_different_bases_is_refused() {
    let f = facts(
        &[("a", "a1")],
        &[("main", "m0"), ("dev", "d0")],
        vec![
            pull(1, "OPEN", "a", "main", "a1"),
            pull(2, "OPEN", "a", "dev", "a1"),
        ],
        "a1 m0\n-m0\n",
    );
    assert!(
        plan(&f)
            .unwrap_err()
            .contains("a has two open pull requests")
    );
}

#[test]
fn reflogs_parse_by_branch_newest_first() {
    let (local, remote) = parse_reflogs(
        "a2 refs/heads/a@{0}\na1 refs/heads/a@{1}\nr1 refs/remotes/origin/a@{0}\nbad\n",
    );
    assert_eq!(local["a"], ["a2", "a1"]);
    assert_eq!(remote["a"], ["r1"]);
}
