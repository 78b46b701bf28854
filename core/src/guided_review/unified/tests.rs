//! The diff text of a change: where its hunks start on each side (at the start, the middle and
//! the end of a file, several of them, a created file), git's marker for a last line without a
//! newline, and, for any two texts, that applying the diff to either side gives the other.

use quickcheck::{Arbitrary, Gen, QuickCheck};

use super::*;

/// `n` numbered lines, `line 1` to `line n`, each with its newline.
fn numbered(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// `lines` with line `at` (1-based) replaced by `with`.
fn replaced(lines: &[String], at: usize, with: &str) -> String {
    let mut lines = lines.to_vec();
    lines[at - 1] = with.to_owned();
    lines.concat()
}

/// The hunk headers of `diff`.
fn headers(diff: &str) -> Vec<&str> {
    diff.lines().filter(|l| l.starts_with("@@ ")).collect()
}

#[test]
fn a_change_at_the_start_has_only_the_context_after_it() {
    let old = numbered(10);
    let diff = file_diff("a.txt", Some(&old.concat()), &replaced(&old, 1, "first\n"));
    assert_eq!(
        diff,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,4 +1,4 @@\n-line 1\n+first\n line 2\n line 3\n line 4\n"
    );
}

#[test]
fn a_change_in_the_middle_is_numbered_where_it_sits_with_three_lines_around_it() {
    let old = numbered(20);
    let diff = file_diff("a.txt", Some(&old.concat()), &replaced(&old, 10, "ten\n"));
    assert_eq!(headers(&diff), ["@@ -7,7 +7,7 @@"]);
    assert!(
        diff.ends_with(
            "@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+ten\n line 11\n line 12\n line 13\n"
        ),
        "{diff}"
    );
}

#[test]
fn a_change_at_the_end_has_only_the_context_before_it() {
    let old = numbered(10);
    let diff = file_diff("a.txt", Some(&old.concat()), &replaced(&old, 10, "last\n"));
    assert_eq!(
        diff,
        "--- a/a.txt\n+++ b/a.txt\n@@ -7,4 +7,4 @@\n line 7\n line 8\n line 9\n-line 10\n+last\n"
    );
}

#[test]
fn changes_far_apart_are_hunks_of_their_own_numbered_after_what_came_before() {
    let old = numbered(30);
    let mut new = old.clone();
    // Two lines more after line 3, so every later line is two further down the new side.
    new[2] = "line 3\nadded a\nadded b\n".to_owned();
    new[24] = "twenty-five\n".to_owned();
    let diff = file_diff("a.txt", Some(&old.concat()), &new.concat());
    assert_eq!(headers(&diff), ["@@ -1,6 +1,8 @@", "@@ -22,7 +24,7 @@"]);
    assert!(
        diff.contains("\n line 3\n+added a\n+added b\n line 4\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n line 24\n-line 25\n+twenty-five\n line 26\n"),
        "{diff}"
    );
    // Six unchanged lines apart, their contexts touch: one hunk, as git makes it.
    let mut near = old.clone();
    near[2] = "three\n".to_owned();
    near[9] = "ten\n".to_owned();
    let diff = file_diff("a.txt", Some(&old.concat()), &near.concat());
    assert_eq!(headers(&diff), ["@@ -1,13 +1,13 @@"]);
}

#[test]
fn a_created_file_comes_from_dev_null_and_equal_sides_have_no_hunk() {
    assert_eq!(
        file_diff("new.txt", None, "a\nb\n"),
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    );
    assert_eq!(
        file_diff("empty.txt", Some(""), "a\n"),
        "--- a/empty.txt\n+++ b/empty.txt\n@@ -0,0 +1,1 @@\n+a\n"
    );
    assert_eq!(
        file_diff("a.txt", Some("same\n"), "same\n"),
        "--- a/a.txt\n+++ b/a.txt\n"
    );
    assert_eq!(
        file_diff("a.txt", Some("gone\n"), ""),
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +0,0 @@\n-gone\n"
    );
}

#[test]
fn a_last_line_without_a_newline_is_marked_as_git_marks_it() {
    assert_eq!(
        file_diff("a.txt", Some("a\nb"), "a\nc"),
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    );
    // Only the newline added: the line differs, and only its old side is marked.
    assert_eq!(
        file_diff("a.txt", Some("a"), "a\n"),
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+a\n"
    );
    // A context line without one is marked once.
    let diff = file_diff("a.txt", Some("a\nz"), "b\nz");
    assert!(
        diff.ends_with("-a\n+b\n z\n\\ No newline at end of file\n"),
        "{diff}"
    );
    for (old, new) in [
        ("a\nb", "a\nc"),
        ("a", "a\n"),
        ("a\n", "a"),
        ("a\nz", "b\nz"),
    ] {
        let diff = file_diff("a.txt", Some(old), new);
        assert_eq!(apply(&diff, old, Direction::Forward).as_deref(), Some(new));
        assert_eq!(apply(&diff, new, Direction::Backward).as_deref(), Some(old));
    }
}

#[test]
fn a_carriage_return_stays_part_of_its_line() {
    let (old, new) = ("a\r\nb\r\n", "a\r\nc\r\n");
    let diff = file_diff("a.txt", Some(old), new);
    assert!(diff.contains("\n a\r\n-b\r\n+c\r\n"), "{diff:?}");
    assert_eq!(apply(&diff, old, Direction::Forward).as_deref(), Some(new));
}

#[test]
fn a_diff_that_does_not_fit_the_text_is_not_applied() {
    let diff = file_diff("a.txt", Some("a\nb\nc\n"), "a\nB\nc\n");
    assert_eq!(
        apply(&diff, "a\n", Direction::Forward),
        None,
        "past its end"
    );
    let short = diff.replace("@@ -1,3 +1,3 @@", "@@ -1,4 +1,3 @@");
    assert_eq!(
        apply(&short, "a\nb\nc\nd\n", Direction::Forward),
        None,
        "a count off"
    );
    // A redacted line is counted, not compared: the hunk still lands where its header says.
    let redacted = diff.replace(" a\n", " [redacted]\n");
    assert_eq!(
        apply(&redacted, "a\nB\nc\n", Direction::Backward).as_deref(),
        Some("[redacted]\nb\nc\n")
    );
}

/// A text of a few distinct lines, so that a diff has lines to match and to move.
#[derive(Debug, Clone)]
struct Text(String);

impl Arbitrary for Text {
    fn arbitrary(g: &mut Gen) -> Self {
        const LINES: [&str; 7] = ["a", "b", "c", "", "}", "a\r", "fn x() {"];
        let picks = Vec::<u8>::arbitrary(g);
        let mut text: String = picks
            .iter()
            .map(|p| format!("{}\n", LINES[usize::from(*p) % LINES.len()]))
            .collect();
        // About one text in three ends without its newline.
        if picks.first().is_some_and(|p| p % 3 == 0) {
            text.pop();
        }
        Self(text)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let lines: Vec<String> = self.0.split_inclusive('\n').map(str::to_owned).collect();
        Box::new(lines.shrink().map(|lines| Self(lines.concat())))
    }
}

fn applies_both_ways(old: Text, new: Text, created: bool) -> bool {
    let old = if created { None } else { Some(old.0) };
    let diff = file_diff("f", old.as_deref(), &new.0);
    let old = old.unwrap_or_default();
    apply(&diff, &old, Direction::Forward).as_deref() == Some(new.0.as_str())
        && apply(&diff, &new.0, Direction::Backward).as_deref() == Some(old.as_str())
}

#[test]
fn property_applying_the_diff_to_one_side_gives_the_other() {
    QuickCheck::new()
        .tests(2000)
        .quickcheck(applies_both_ways as fn(Text, Text, bool) -> bool);
    // And texts of any characters.
    fn any_text(old: String, new: String) -> bool {
        let diff = file_diff("f", Some(&old), &new);
        apply(&diff, &old, Direction::Forward).as_deref() == Some(new.as_str())
    }
    QuickCheck::new()
        .tests(500)
        .quickcheck(any_text as fn(String, String) -> bool);
}
