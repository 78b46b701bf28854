//! A path and a line become the anchor of the hunk that shows the line, on either side, for
//! one line or a range within a hunk; anything else is refused with what the file shows.

use super::*;
use crate::protocol::guided_review::{FileStatus, HunkLine, LineKind, ReviewTarget};

fn line(kind: LineKind, old: Option<u32>, new: Option<u32>) -> HunkLine<'static> {
    HunkLine {
        kind,
        old_line: old,
        new_line: new,
        text: "text",
        no_newline: false,
    }
}

fn ctx(old: u32, new: u32) -> HunkLine<'static> {
    line(LineKind::Context, Some(old), Some(new))
}

fn add(new: u32) -> HunkLine<'static> {
    line(LineKind::Add, None, Some(new))
}

fn del(old: u32) -> HunkLine<'static> {
    line(LineKind::Del, Some(old), None)
}

fn hunk(id: &str, file_id: &str, lines: &[HunkLine<'static>]) -> Hunk {
    Hunk {
        id: id.into(),
        file_id: file_id.into(),
        old_start: 0,
        old_lines: 0,
        new_start: 0,
        new_lines: 0,
        header: String::new(),
        lines: lines.iter().copied().collect(),
    }
}

fn file(
    id: &str,
    path: &str,
    old_path: Option<&str>,
    status: FileStatus,
    hunks: &[&Hunk],
) -> ReviewFile {
    ReviewFile {
        id: id.into(),
        path: path.into(),
        old_path: old_path.map(str::to_owned),
        status,
        binary: false,
        additions: 0,
        deletions: 0,
        hunk_ids: hunks.iter().map(|h| h.id.clone()).collect(),
        withheld: false,
    }
}

/// `a.rs` with two hunks (new 1–4 / old 1–3, new 21–23 / old 20–21), `b.rs` renamed from
/// `old_b.rs`, a binary `img.png`, and a deleted `gone.rs`.
fn review() -> Review {
    let a1 = hunk(
        "hunk:a1",
        "file:a",
        &[ctx(1, 1), del(2), add(2), add(3), ctx(3, 4)],
    );
    let a2 = hunk("hunk:a2", "file:a", &[ctx(20, 21), add(22), ctx(21, 23)]);
    let b1 = hunk("hunk:b1", "file:b", &[ctx(5, 5), del(6), add(6), ctx(7, 7)]);
    let mut img = Hunk::note("file:img".into(), "binary file".into());
    img.id = "hunk:img".into();
    let g1 = hunk("hunk:g1", "file:g", &[del(1), del(2)]);
    Review {
        id: "review:r".into(),
        revision_id: "rev".into(),
        target: ReviewTarget::WorkingTree,
        files: vec![
            file("file:a", "a.rs", None, FileStatus::Modified, &[&a1, &a2]),
            file(
                "file:b",
                "b.rs",
                Some("old_b.rs"),
                FileStatus::Renamed,
                &[&b1],
            ),
            file("file:img", "img.png", None, FileStatus::Modified, &[&img]),
            file("file:g", "gone.rs", None, FileStatus::Deleted, &[&g1]),
        ],
        hunks: vec![a1, a2, b1, img, g1],
        chapters: Vec::new(),
    }
}

fn at(path: &str, side: Side, line: u32, end_line: Option<u32>) -> Result<Anchor, NotShown> {
    anchor_at(
        &review(),
        &Place {
            path,
            side,
            line,
            end_line,
        },
    )
}

fn on(file: &str, hunk: &str, side: Side, line: u32) -> Anchor {
    Anchor::Line {
        file_id: file.into(),
        hunk_id: hunk.into(),
        side,
        line,
    }
}

fn refused(result: Result<Anchor, NotShown>) -> String {
    result.expect_err("not in the review").to_string()
}

#[test]
fn added_deleted_and_context_lines_anchor_to_the_hunk_that_shows_them() {
    // Added: new side.
    assert_eq!(
        at("a.rs", Side::New, 3, None),
        Ok(on("file:a", "hunk:a1", Side::New, 3))
    );
    assert_eq!(
        at("a.rs", Side::New, 22, None),
        Ok(on("file:a", "hunk:a2", Side::New, 22))
    );
    // Deleted: old side, by its old number.
    assert_eq!(
        at("a.rs", Side::Old, 2, None),
        Ok(on("file:a", "hunk:a1", Side::Old, 2))
    );
    assert_eq!(
        at("gone.rs", Side::Old, 2, None),
        Ok(on("file:g", "hunk:g1", Side::Old, 2))
    );
    // Context: either side, each by its own number.
    assert_eq!(
        at("a.rs", Side::New, 4, None),
        Ok(on("file:a", "hunk:a1", Side::New, 4))
    );
    assert_eq!(
        at("a.rs", Side::Old, 3, None),
        Ok(on("file:a", "hunk:a1", Side::Old, 3))
    );
    assert_eq!(
        at("a.rs", Side::Old, 21, None),
        Ok(on("file:a", "hunk:a2", Side::Old, 21))
    );
}

#[test]
fn a_line_outside_every_hunk_is_refused_with_the_ranges_the_file_shows() {
    assert_eq!(
        refused(at("a.rs", Side::New, 10, None)),
        "a.rs new line 10 is not shown in the review, which shows new lines 1–4, 21–23 and old lines 1–3, 20–21 of a.rs"
    );
    // A deleted line has no new number: a deleted file shows only old lines.
    assert_eq!(
        refused(at("gone.rs", Side::New, 1, None)),
        "gone.rs new line 1 is not shown in the review, which shows no new lines and old lines 1–2 of gone.rs"
    );
    // The old side of a line that only exists on the new side.
    assert!(matches!(
        at("a.rs", Side::Old, 23, None),
        Err(NotShown::Lines { .. })
    ));
    assert_eq!(
        refused(at("img.png", Side::New, 1, None)),
        "img.png new line 1 is not shown in the review: it shows no lines of img.png, whose change has none (a binary file, a mode change, an empty file or a pure rename)"
    );
}

#[test]
fn an_unknown_path_is_refused_with_the_review_s_files() {
    assert_eq!(
        refused(at("src/a.rs", Side::New, 1, None)),
        "the review has no file src/a.rs; its files are a.rs, b.rs, img.png, gone.rs"
    );
    let mut many = review();
    let template = many.files[0].clone();
    many.files = (0..25)
        .map(|n| ReviewFile {
            path: format!("f{n}.rs"),
            ..template.clone()
        })
        .collect();
    let place = Place {
        path: "x.rs",
        side: Side::New,
        line: 1,
        end_line: None,
    };
    let told = anchor_at(&many, &place).unwrap_err().to_string();
    assert!(told.ends_with("f18.rs, f19.rs and 5 more"), "{told}");
}

#[test]
fn a_renamed_file_is_found_by_its_new_and_its_old_path() {
    assert_eq!(
        at("b.rs", Side::New, 6, None),
        Ok(on("file:b", "hunk:b1", Side::New, 6))
    );
    assert_eq!(
        at("old_b.rs", Side::Old, 6, None),
        Ok(on("file:b", "hunk:b1", Side::Old, 6))
    );
    assert_eq!(
        at("old_b.rs", Side::New, 7, None),
        Ok(on("file:b", "hunk:b1", Side::New, 7))
    );
    assert!(refused(at("old_b.rs", Side::Old, 1, None)).contains("old lines 5–7 of old_b.rs"));
}

#[test]
fn end_line_makes_a_range_within_one_hunk_and_never_across_hunks() {
    assert_eq!(
        at("a.rs", Side::New, 2, Some(4)),
        Ok(Anchor::Range {
            file_id: "file:a".into(),
            hunk_id: "hunk:a1".into(),
            side: Side::New,
            start_line: 2,
            end_line: 4,
        })
    );
    assert_eq!(
        at("a.rs", Side::Old, 20, Some(21)),
        Ok(Anchor::Range {
            file_id: "file:a".into(),
            hunk_id: "hunk:a2".into(),
            side: Side::Old,
            start_line: 20,
            end_line: 21,
        })
    );
    // A range of one line is a line.
    assert_eq!(
        at("a.rs", Side::New, 3, Some(3)),
        Ok(on("file:a", "hunk:a1", Side::New, 3))
    );
    // Both ends shown, in two hunks: the lines between are not.
    let across = at("a.rs", Side::New, 2, Some(22));
    assert!(
        matches!(across, Err(NotShown::AcrossHunks { .. })),
        "{across:?}"
    );
    assert_eq!(
        refused(across),
        "a.rs new lines 2–22 run across separate hunks, and a range must lie within one; the review shows new lines 1–4, 21–23 and old lines 1–3, 20–21 of a.rs"
    );
    // An end outside every hunk.
    assert_eq!(
        refused(at("a.rs", Side::New, 3, Some(9))),
        "a.rs new lines 3–9 are not all shown in the review, which shows new lines 1–4, 21–23 and old lines 1–3, 20–21 of a.rs"
    );
}

#[test]
fn paths_are_taken_as_the_review_shows_them_absolute_or_from_the_working_directory() {
    let mut r = review();
    r.files[0].path = "src/a.rs".into();
    let path = |cwd: &str, given: &str| review_path(&r, "/repo", cwd, given);
    assert_eq!(path("/repo", "src/a.rs"), "src/a.rs");
    assert_eq!(path("/repo", "./src/a.rs"), "src/a.rs");
    assert_eq!(path("/repo", "/repo/src/a.rs"), "src/a.rs");
    // From a working directory below the root, either way works.
    assert_eq!(path("/repo/src", "a.rs"), "src/a.rs");
    assert_eq!(path("/repo/src", "src/a.rs"), "src/a.rs");
    // What names no file stays as given, to be refused with its own name.
    assert_eq!(path("/repo/src", "nope.rs"), "nope.rs");
    assert_eq!(path("/repo", "/elsewhere/a.rs"), "/elsewhere/a.rs");
    assert_eq!(path("/repository", "/repository/a.rs"), "/repository/a.rs");
}
