//! `build` case by case: file kinds, line ends, hunk numbering and grouping, headers and ids.

use super::*;
use crate::protocol::guided_review::{HunkLine, HunkLines, LineKind};

fn file(path: &str, status: FileStatus, old: Option<&[u8]>, new: Option<&[u8]>) -> ChangedFile {
    ChangedFile {
        path: path.into(),
        old_path: None,
        status,
        old_mode: old.map(|_| 0o100644),
        new_mode: new.map(|_| 0o100644),
        old: old.map(<[u8]>::to_vec),
        new: new.map(<[u8]>::to_vec),
    }
}

fn modified(path: &str, old: &str, new: &str) -> ChangedFile {
    file(
        path,
        FileStatus::Modified,
        Some(old.as_bytes()),
        Some(new.as_bytes()),
    )
}

fn review(files: Vec<ChangedFile>) -> Review {
    let source = DiffSource {
        root: "/repo".into(),
        files,
        ..DiffSource::default()
    };
    build(&ReviewTarget::WorkingTree, &source)
}

/// `@@ -a,b +c,d @@` of each hunk.
fn ranges(review: &Review) -> Vec<(u32, u32, u32, u32)> {
    let hunks = review.hunks.iter();
    hunks
        .map(|h| (h.old_start, h.old_lines, h.new_start, h.new_lines))
        .collect()
}

/// Each line as git prints it: kind and text.
fn printed(lines: &HunkLines) -> Vec<String> {
    let print = |l: HunkLine<'_>| {
        let kind = match l.kind {
            LineKind::Context => ' ',
            LineKind::Add => '+',
            LineKind::Del => '-',
        };
        format!("{kind}{}{}", l.text, if l.no_newline { "\\" } else { "" })
    };
    lines.iter().map(print).collect()
}

/// `n` numbered lines with the listed ones changed.
fn numbered(n: u32, changed: &[u32]) -> String {
    (1..=n)
        .map(|i| match changed.contains(&i) {
            true => format!("changed {i}\n"),
            false => format!("line {i}\n"),
        })
        .collect()
}

#[test]
fn an_added_file_is_all_additions_from_minus_zero() {
    let r = review(vec![file(
        "a.txt",
        FileStatus::Added,
        None,
        Some(b"x\ny\n"),
    )]);
    assert_eq!(ranges(&r), [(0, 0, 1, 2)]);
    assert_eq!(printed(&r.hunks[0].lines), ["+x", "+y"]);
    let second = r.hunks[0].lines.get(1).unwrap();
    assert_eq!((second.old_line, second.new_line), (None, Some(2)));
    assert_eq!((r.files[0].additions, r.files[0].deletions), (2, 0));
    assert_eq!(r.files[0].hunk_ids, [r.hunks[0].id.clone()]);
    assert_eq!(r.hunks[0].file_id, r.files[0].id);
    assert_eq!(r.hunks[0].header, "");
}

#[test]
fn a_deleted_file_is_all_deletions_to_plus_zero() {
    let r = review(vec![file("a.txt", FileStatus::Deleted, Some(b"x\n"), None)]);
    assert_eq!(ranges(&r), [(1, 1, 0, 0)]);
    assert_eq!(printed(&r.hunks[0].lines), ["-x"]);
    assert_eq!((r.files[0].additions, r.files[0].deletions), (0, 1));
}

#[test]
fn a_modified_line_is_a_deletion_then_an_addition_with_context() {
    let r = review(vec![modified(
        "a",
        "1\n2\n3\n4\n5\n",
        "1\n2\nthree\n4\n5\n",
    )]);
    assert_eq!(ranges(&r), [(1, 5, 1, 5)]);
    let lines = &r.hunks[0].lines;
    assert_eq!(printed(lines), [" 1", " 2", "-3", "+three", " 4", " 5"]);
    let numbers: Vec<_> = lines.iter().map(|l| (l.old_line, l.new_line)).collect();
    assert_eq!(
        numbers,
        [
            (Some(1), Some(1)),
            (Some(2), Some(2)),
            (Some(3), None),
            (None, Some(3)),
            (Some(4), Some(4)),
            (Some(5), Some(5)),
        ]
    );
}

#[test]
fn a_pure_rename_has_one_hunk_without_lines_and_a_changed_one_has_hunks() {
    let mut pure = modified("new.rs", "same\n", "same\n");
    pure.status = FileStatus::Renamed;
    pure.old_path = Some("old.rs".into());
    let mut changed = modified("moved.rs", "a\n", "b\n");
    changed.status = FileStatus::Renamed;
    changed.old_path = Some("was.rs".into());
    let r = review(vec![pure, changed]);
    let moved = &r.hunks[0];
    assert_eq!(printed(&moved.lines), ["-a", "+b"]);
    assert_eq!(r.files[0].old_path.as_deref(), Some("was.rs"));
    let renamed = &r.hunks[1];
    assert!(renamed.lines.is_empty());
    assert_eq!(renamed.header, "renamed from old.rs");
    assert_eq!(ranges(&r)[1], (0, 0, 0, 0));
    assert_eq!((r.files[1].additions, r.files[1].deletions), (0, 0));
}

#[test]
fn a_mode_change_alone_says_so() {
    let mut f = modified("run.sh", "echo\n", "echo\n");
    f.new_mode = Some(0o100755);
    let r = review(vec![f]);
    assert_eq!(r.hunks.len(), 1);
    assert_eq!(r.hunks[0].header, "mode 100644 → 100755");
    assert!(r.hunks[0].lines.is_empty());
}

#[test]
fn a_nul_in_the_first_8000_bytes_makes_a_file_binary() {
    let mut late_nul = vec![b'a'; 8000];
    late_nul.extend_from_slice(b"\0\n");
    let r = review(vec![
        file("img.png", FileStatus::Modified, Some(b"a\0"), Some(b"b\0")),
        file("late.txt", FileStatus::Added, None, Some(&late_nul)),
        file("new.bin", FileStatus::Added, None, Some(b"\0")),
    ]);
    assert!(r.files[0].binary);
    assert_eq!(r.hunks[0].header, "binary file");
    assert!(r.hunks[0].lines.is_empty());
    assert_eq!((r.files[0].additions, r.files[0].deletions), (0, 0));
    assert!(
        !r.files[1].binary,
        "a NUL after 8,000 bytes is not looked at"
    );
    assert_eq!(r.hunks[1].lines.len(), 1);
    assert_eq!(r.hunks[2].header, "binary file");
}

#[test]
fn empty_files_added_or_deleted_have_one_hunk_that_says_so() {
    let r = review(vec![
        file("a", FileStatus::Added, None, Some(b"")),
        file("b", FileStatus::Deleted, Some(b""), None),
    ]);
    let headers: Vec<&str> = r.hunks.iter().map(|h| h.header.as_str()).collect();
    assert_eq!(headers, ["new empty file", "deleted empty file"]);
}

#[test]
fn crlf_keeps_its_carriage_return_in_the_text() {
    let r = review(vec![modified("w.txt", "a\r\nb\r\n", "a\r\nc\r\n")]);
    assert_eq!(printed(&r.hunks[0].lines), [" a\r", "-b\r", "+c\r"]);
}

#[test]
fn a_missing_last_newline_is_marked_on_either_side() {
    let r = review(vec![
        modified("gains", "a\nb", "a\nb\n"),
        modified("loses", "a\nb\n", "a\nb"),
        modified("neither", "a\nb", "a\nc"),
        modified("context", "a\nb\nc\nd\ne", "A\nb\nc\nd\ne"),
    ]);
    let by_path =
        |p: &str| printed(&r.hunks[r.files.iter().position(|f| f.path == p).unwrap()].lines);
    assert_eq!(by_path("gains"), [" a", "-b\\", "+b"]);
    assert_eq!(by_path("loses"), [" a", "-b", "+b\\"]);
    assert_eq!(by_path("neither"), [" a", "-b\\", "+c\\"]);
    // The changed line is more than three lines from the end: no marker in the hunk.
    assert_eq!(by_path("context"), ["-a", "+A", " b", " c", " d"]);
}

#[test]
fn changes_at_the_start_and_the_end_have_short_context() {
    let r = review(vec![modified(
        "f",
        &numbered(10, &[]),
        &numbered(10, &[1, 10]),
    )]);
    assert_eq!(ranges(&r), [(1, 4, 1, 4), (7, 4, 7, 4)]);
}

#[test]
fn changes_merge_while_their_contexts_touch() {
    // Six unchanged lines between the changes: one hunk; seven: two.
    let touching = review(vec![modified(
        "f",
        &numbered(30, &[]),
        &numbered(30, &[10, 17]),
    )]);
    assert_eq!(ranges(&touching), [(7, 14, 7, 14)]);
    let apart = review(vec![modified(
        "f",
        &numbered(30, &[]),
        &numbered(30, &[10, 18]),
    )]);
    assert_eq!(ranges(&apart), [(7, 7, 7, 7), (15, 7, 15, 7)]);
}

#[test]
fn the_header_is_the_nearest_letter_led_line_above_the_hunk() {
    let old = "fn first() {\n    a;\n    b;\n    c;\n    d;\n}\n\n  x\n  y\n  z\n  w\n";
    let new = old.replace("    d;", "    D;").replace("  w", "  W");
    let long = format!("{}\n  1\n  2\n  3\n  4\n", "x".repeat(100));
    let long_new = long.replace("  4", "  four");
    let r = review(vec![
        modified("a.rs", old, &new),
        modified("b.rs", &long, &long_new),
        modified("c.rs", "  1\n  2\n", "  1\n  two\n"),
    ]);
    let headers: Vec<&str> = r.hunks.iter().map(|h| h.header.as_str()).collect();
    assert_eq!(headers, ["fn first() {", &"x".repeat(80), ""]);
    assert_eq!(r.files[0].hunk_ids.len(), 1, "the two changes merged");
}

#[test]
fn identical_hunks_get_distinct_stable_ids() {
    let block = "a\nb\nc\nx\nd\ne\nf\n";
    let old = format!("{block}{}{block}", numbered(10, &[]));
    let new = old.replace('x', "y");
    let r = review(vec![modified("twice", &old, &new)]);
    assert_eq!(r.hunks.len(), 2);
    // The same lines, at other numbers.
    let unnumbered = |lines: &HunkLines| -> Vec<_> {
        let unnumbered = |l: HunkLine<'_>| (l.kind, l.text.to_owned(), l.no_newline);
        lines.iter().map(unnumbered).collect()
    };
    assert_eq!(unnumbered(&r.hunks[0].lines), unnumbered(&r.hunks[1].lines));
    assert_ne!(r.hunks[0].lines, r.hunks[1].lines);
    assert_ne!(r.hunks[0].id, r.hunks[1].id);
    assert_eq!(review(vec![modified("twice", &old, &new)]), r);
}

#[test]
fn a_hunk_keeps_its_id_when_a_hunk_above_it_grows() {
    let old = numbered(40, &[]);
    let small = old
        .replace("line 5\n", "line five\n")
        .replace("line 30\n", "line thirty\n");
    let grown = old
        .replace("line 5\n", "line five\nand more\nand more\n")
        .replace("line 30\n", "line thirty\n");
    let before = review(vec![modified("f", &old, &small)]);
    let after = review(vec![modified("f", &old, &grown)]);
    assert_ne!(before.hunks[0].id, after.hunks[0].id);
    assert_eq!(before.hunks[1].id, after.hunks[1].id);
    assert_ne!(before.hunks[1].new_start, after.hunks[1].new_start);
    assert_ne!(before.revision_id, after.revision_id);
    assert_eq!(before.id, after.id, "same repository and target");
}

#[test]
fn ids_name_their_kind_and_follow_paths_roots_and_targets() {
    let r = review(vec![
        modified("b", "1\n", "2\n"),
        modified("a", "1\n", "2\n"),
    ]);
    assert_eq!(r.files[0].path, "a", "files come sorted by path");
    assert!(r.id.starts_with("review:") && r.files[0].id.starts_with("file:"));
    assert!(r.hunks[0].id.starts_with("hunk:"));
    assert_eq!(r.revision_id.len(), 32);
    assert_ne!(
        r.hunks[0].id, r.hunks[1].id,
        "the path is part of a hunk id"
    );
    let staged = DiffSource {
        root: "/repo".into(),
        ..DiffSource::default()
    };
    assert_ne!(build(&ReviewTarget::Staged, &staged).id, r.id);
    let elsewhere = DiffSource {
        root: "/other".into(),
        ..DiffSource::default()
    };
    assert_ne!(build(&ReviewTarget::WorkingTree, &elsewhere).id, r.id);
}

#[test]
fn invalid_utf8_is_replaced_not_dropped() {
    let r = review(vec![file(
        "latin1.txt",
        FileStatus::Modified,
        Some(b"caf\xe9\n"),
        Some(b"cafe\n"),
    )]);
    assert_eq!(printed(&r.hunks[0].lines), ["-caf\u{fffd}", "+cafe"]);
}

#[test]
fn sliding_changes_land_where_git_puts_them() {
    // Blank lines can be taken from anywhere in a run of blank lines; git's indent heuristic
    // takes them at the end of the file (imara-diff's own post-processing would not).
    let r = review(vec![
        modified("grow", "\n\n", "\n\n\n\n"),
        modified("shrink", "\n\n\n\n", "\n\n\n"),
        modified(
            "fn.rs",
            "fn a() {\n    x;\n}\n\nfn c() {\n    z;\n}\n",
            "fn a() {\n    x;\n}\n\nfn b() {\n    y;\n}\n\nfn c() {\n    z;\n}\n",
        ),
    ]);
    assert_eq!(ranges(&r), [(2, 6, 2, 10), (1, 2, 1, 4), (1, 4, 1, 3)]);
    assert_eq!(printed(&r.hunks[1].lines), [" ", " ", "+", "+"]);
    assert_eq!(printed(&r.hunks[2].lines), [" ", " ", " ", "-"]);
    let added: Vec<String> = printed(&r.hunks[0].lines)[3..7].to_vec();
    assert_eq!(added, ["+fn b() {", "+    y;", "+}", "+"]);
    assert_eq!(r.hunks[0].header, "fn a() {");
}
