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
    let f = facts(
        &[("a", "a1"), ("b", "b1x"), ("c", "c1")],
        &[("main", "m0"), ("a", "a1"), ("b", "b1"), ("c", "c1")],
        vec![
            pull(1, "OPEN", "a", "main", "a1"),
            pull(2, "OPEN", "b", "a", "b1"),
            pull(3, "OPEN", "c", "b", "c1"),
        ],
        "c1 b1\nb1 a1\nb1x a1\na1 m0\n-m0\n",
    );
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
