//! A review and its session for the review view's tests, shaped as luxe sends them: a
//! working tree with a changed function, a new file, a README, and a withheld `.env`, in three
//! chapters; findings with threads, a draft, one the agent works on, one outdated at its
//! file's top, and one whose file is no longer in the diff.

use std::sync::Arc;

use luxe_core::protocol::findings::{
    Anchor, Author, EntryKind, Finding, FindingStatus, ReportStatus, ReviewSession, Severity, Side,
    ThreadEntry,
};
use luxe_core::protocol::guided_review::{
    Chapter, FileStatus, Hunk, HunkLine, LineKind, Review, ReviewFile, ReviewTarget,
};

/// A hunk of `file_id` from `old_start`/`new_start` with `lines` numbered as git numbers them
/// (an empty `lines` makes a hunk that only says `header`).
pub(crate) fn hunk(
    id: &str,
    file_id: &str,
    (old_start, new_start): (u32, u32),
    header: &str,
    lines: &[(LineKind, &str)],
) -> Hunk {
    let (mut old, mut new) = (old_start, new_start);
    let mut numbered = Vec::new();
    for (kind, text) in lines {
        let (old_line, new_line) = match kind {
            LineKind::Context => (Some(old), Some(new)),
            LineKind::Del => (Some(old), None),
            LineKind::Add => (None, Some(new)),
        };
        old += u32::from(old_line.is_some());
        new += u32::from(new_line.is_some());
        numbered.push(HunkLine {
            kind: *kind,
            old_line,
            new_line,
            text,
            no_newline: false,
        });
    }
    Hunk {
        id: id.to_owned(),
        file_id: file_id.to_owned(),
        old_start,
        old_lines: old - old_start,
        new_start,
        new_lines: new - new_start,
        header: header.to_owned(),
        lines: numbered.into_iter().collect(),
    }
}

/// The file `path` with `hunks` (its id `file:` and the path), its counts from their lines.
pub(crate) fn file(path: &str, status: FileStatus, withheld: bool, hunks: &[&Hunk]) -> ReviewFile {
    let count = |kind| {
        let lines = hunks.iter().flat_map(|h| h.lines.iter());
        lines.filter(|l| l.kind == kind).count() as u32
    };
    ReviewFile {
        id: format!("file:{path}"),
        path: path.to_owned(),
        old_path: None,
        status,
        binary: false,
        withheld,
        additions: count(LineKind::Add),
        deletions: count(LineKind::Del),
        hunk_ids: hunks.iter().map(|h| h.id.clone()).collect(),
    }
}

/// A chapter of `hunks`, titled and summed up.
pub(crate) fn chapter(id: &str, title: &str, summary: &str, hunks: &[&str]) -> Chapter {
    Chapter {
        id: id.to_owned(),
        title: title.to_owned(),
        summary: summary.to_owned(),
        hunk_ids: hunks.iter().map(|h| (*h).to_owned()).collect(),
    }
}

/// The review: `src/lib.rs` and `src/new.rs`, then `README.md`, then `.env`, a chapter each.
pub(crate) fn review() -> Arc<Review> {
    use LineKind::{Add, Context, Del};
    let lib = hunk(
        "hunk:lib",
        "file:src/lib.rs",
        (12, 12),
        "fn beta() -> u32 {",
        &[
            (Context, "fn beta() -> u32 {"),
            (Del, "    2"),
            (Add, "    2 + 40"),
            (Context, "}"),
        ],
    );
    let new = hunk(
        "hunk:new",
        "file:src/new.rs",
        (0, 1),
        "",
        &[(Add, "pub fn gamma() {}"), (Add, "pub fn delta() {}")],
    );
    let readme = hunk(
        "hunk:readme",
        "file:README.md",
        (1, 1),
        "",
        &[(Context, "# Demo"), (Add, ""), (Add, "Now with gamma.")],
    );
    let env = hunk(
        "hunk:env",
        "file:.env",
        (0, 0),
        "contents withheld: .env files hold secrets",
        &[],
    );
    Arc::new(Review {
        id: "review:test".into(),
        revision_id: "revision:1".into(),
        target: ReviewTarget::WorkingTree,
        files: vec![
            file(".env", FileStatus::Modified, true, &[&env]),
            file("README.md", FileStatus::Modified, false, &[&readme]),
            file("src/lib.rs", FileStatus::Modified, false, &[&lib]),
            file("src/new.rs", FileStatus::Added, false, &[&new]),
        ],
        chapters: vec![
            chapter(
                "chapter:src",
                "src: lib.rs, new.rs",
                "beta returns 2 + 40, and gamma and delta are new.",
                &["hunk:lib", "hunk:new"],
            ),
            chapter(
                "chapter:docs",
                "Docs: README.md",
                "The README mentions gamma.",
                &["hunk:readme"],
            ),
            chapter(
                "chapter:env",
                "Settings: .env",
                "A changed .env file.",
                &["hunk:env"],
            ),
        ],
        hunks: vec![env, readme, lib, new],
    })
}

fn entry(author: Author, kind: EntryKind, body: &str) -> ThreadEntry {
    ThreadEntry::new(author, kind, body.to_owned(), 1_700_000_000_000)
}

/// A finding of `severity` and `status` at `anchor` with `thread`.
pub(crate) fn finding(
    id: &str,
    anchor: Anchor,
    (severity, status): (Severity, FindingStatus),
    thread: Vec<ThreadEntry>,
) -> Finding {
    Finding {
        id: id.to_owned(),
        anchor,
        severity,
        status,
        outdated: false,
        pending: false,
        line_text: None,
        thread,
    }
}

/// The line anchor of new line `line` of `src/lib.rs`'s hunk.
pub(crate) fn lib_line(line: u32) -> Anchor {
    Anchor::Line {
        file_id: "file:src/lib.rs".into(),
        hunk_id: "hunk:lib".into(),
        side: Side::New,
        line,
    }
}

/// The session: a question answered and then fixed on `2 + 40`, a draft on the new file's
/// hunk, a nitpick the agent works on, an outdated issue at `src/lib.rs`'s top, and an issue
/// on a file no longer in the diff.
pub(crate) fn session() -> ReviewSession {
    use Author::{Agent, Reviewer};
    use EntryKind::{Answer, Comment, FixRequest, Report};
    let mut report = entry(Agent, Report, "Folded 2 + 40 into 42.");
    report.status = Some(ReportStatus::Fixed);
    let answered = finding(
        "finding_1",
        lib_line(13),
        (Severity::Question, FindingStatus::Open),
        vec![
            entry(Reviewer, Comment, "Why add 40 here?"),
            entry(Agent, Answer, "Forty is the offset the caller expects."),
            entry(Reviewer, FixRequest, "Please fix this."),
            report,
        ],
    );
    let draft = finding(
        "finding_2",
        Anchor::Hunk {
            file_id: "file:src/new.rs".into(),
            hunk_id: "hunk:new".into(),
        },
        (Severity::Suggestion, FindingStatus::Draft),
        vec![entry(Reviewer, Comment, "gamma needs a doc comment")],
    );
    let mut pending = finding(
        "finding_3",
        Anchor::Line {
            file_id: "file:README.md".into(),
            hunk_id: "hunk:readme".into(),
            side: Side::New,
            line: 3,
        },
        (Severity::Nitpick, FindingStatus::Open),
        vec![entry(Reviewer, Comment, "Say what gamma does.")],
    );
    pending.pending = true;
    let mut outdated = finding(
        "finding_4",
        Anchor::Line {
            file_id: "file:src/lib.rs".into(),
            hunk_id: "hunk:gone".into(),
            side: Side::New,
            line: 2,
        },
        (Severity::Issue, FindingStatus::Open),
        vec![entry(Reviewer, Comment, "alpha should not return 1.")],
    );
    outdated.outdated = true;
    outdated.line_text = Some("    1".into());
    let mut gone = finding(
        "finding_5",
        Anchor::File {
            file_id: "file:old.rs".into(),
        },
        (Severity::Issue, FindingStatus::Resolved),
        vec![entry(Reviewer, Comment, "old.rs is dead code.")],
    );
    gone.outdated = true;
    ReviewSession {
        id: "review:test".into(),
        revision: 5,
        findings: vec![answered, draft, pending, outdated, gone],
        notes: Vec::new(),
    }
}
