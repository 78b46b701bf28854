//! The golden review (`fixtures/review/`): its chapters as written down by hand before the chapter
//! code existed, and the whole review checked in as JSON so that any drift shows.
//! Regenerate the JSON after a deliberate change with
//! `LUXE_BLESS=1 cargo test -p luxe-core --test review_golden`.

#[path = "fixtures/review/source.rs"]
mod fixture;

use luxe_core::guided_review::build::build;
use luxe_core::protocol::guided_review::{Review, ReviewTarget};

fn review() -> Review {
    build(&ReviewTarget::WorkingTree, &fixture::source())
}

/// `path#n`: the `n`-th hunk of the file at `path`.
fn hunk_name(review: &Review, id: &str) -> String {
    let file = review
        .files
        .iter()
        .find(|f| f.hunk_ids.iter().any(|h| h == id))
        .expect("every hunk belongs to a file");
    let n = file.hunk_ids.iter().position(|h| h == id).unwrap();
    format!("{}#{n}", file.path)
}

#[test]
fn chapters_read_build_and_config_then_modules_with_their_tests_then_docs() {
    let review = review();
    let chapters: Vec<(&str, &str, Vec<String>)> = review
        .chapters
        .iter()
        .map(|c| {
            let hunks = c.hunk_ids.iter().map(|id| hunk_name(&review, id)).collect();
            (c.title.as_str(), c.summary.as_str(), hunks)
        })
        .collect();
    let expected: Vec<(&str, &str, Vec<&str>)> = vec![
        (
            "Dependencies and build",
            "+5 −0 in 2 files",
            // Manifests before the lock files they produce.
            vec!["Cargo.toml#0", "Cargo.lock#0"],
        ),
        (
            "Configuration and CI",
            "+1 −0 in 1 file",
            vec![".github/workflows/ci.yml#0"],
        ),
        (
            "assets: logo.png",
            "+0 −0 in 1 file (1 binary)",
            vec!["assets/logo.png#0"],
        ),
        (
            // core/src is one added line: too small for a chapter, it joins core/src/review; the
            // test named after `review` follows the code it tests.
            "core/src: lib.rs, review/build.rs, review/ids.rs",
            "+23 −1 in 4 files (1 added); touches build, count; with tests",
            vec![
                "core/src/lib.rs#0",
                "core/src/review/build.rs#0",
                "core/src/review/build.rs#1",
                "core/src/review/ids.rs#0",
                "core/tests/review.rs#0",
            ],
        ),
        (
            "io/src/git: reader.rs, status.rs",
            "+1 −9 in 3 files (1 deleted, 1 renamed); with tests",
            vec![
                "io/src/git/reader.rs#0",
                "io/src/git/status.rs#0",
                "io/tests/git.rs#0",
            ],
        ),
        (
            "Documentation",
            "+4 −2 in 2 files",
            vec!["README.md#0", "docs/review.md#0"],
        ),
    ];
    let expected: Vec<(&str, &str, Vec<String>)> = expected
        .into_iter()
        .map(|(t, s, h)| (t, s, h.into_iter().map(String::from).collect()))
        .collect();
    assert_eq!(chapters, expected);
}

#[test]
fn line_less_hunks_say_what_changed() {
    let review = review();
    let header = |path: &str| {
        let file = review.files.iter().find(|f| f.path == path).unwrap();
        let hunk = review.hunks.iter().find(|h| h.file_id == file.id).unwrap();
        assert!(hunk.lines.is_empty());
        hunk.header.clone()
    };
    assert_eq!(header("assets/logo.png"), "binary file");
    assert_eq!(
        header("io/src/git/reader.rs"),
        "renamed from io/src/git/read.rs"
    );
}

#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "the golden file is checked in by the test itself when blessing"
)]
fn the_review_matches_the_checked_in_json() {
    let generated = serde_json::to_string_pretty(&review()).unwrap() + "\n";
    if std::env::var_os("LUXE_BLESS").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/review/golden.json"
        );
        std::fs::write(path, &generated).unwrap();
        return;
    }
    let checked_in = include_str!("fixtures/review/golden.json");
    assert!(
        checked_in == generated,
        "tests/fixtures/review/golden.json differs from the review: regenerate with LUXE_BLESS=1"
    );
}
