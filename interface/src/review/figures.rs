//! The review view's share of the figures at scale: a review of 2,000 changed files
//! and 100,000 changed lines, from its `guided_review_loaded` to the first chapter drawn, and a
//! key (`n`, `]`, `j`, `}`, `p`, `G`) with the frame after it. Not a pass/fail test: run with
//! `cargo test -p luxe-interface --release review_at_scale -- --ignored --nocapture`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use luxe_core::protocol::events::{Event, GuidedReviewLoaded};
use luxe_core::protocol::guided_review::{FileStatus, Hunk, LineKind, Review, ReviewTarget};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::ReviewView;
use super::fixture::{chapter, file, hunk};
use crate::keys::{Key, KeyCode};
use crate::sheet::Writes;

/// 2,000 files of 5 hunks of 10 changed lines each (and 6 of context), in 100 chapters of 20
/// files.
fn large() -> Arc<Review> {
    let mut files = Vec::new();
    let mut hunks = Vec::new();
    for f in 0..2_000 {
        let path = format!("src/module_{}/file_{f}.rs", f / 20);
        let file_id = format!("file:{path}");
        let texts: Vec<String> = (0..16)
            .map(|n| format!("    let value_{n} = compute({n}, {f});"))
            .collect();
        let mut mine: Vec<Hunk> = Vec::new();
        for h in 0..5u32 {
            let lines: Vec<(LineKind, &str)> = (texts.iter().enumerate())
                .map(|(n, text)| {
                    let kind = match n {
                        0..=2 | 13..=15 => LineKind::Context,
                        n if n % 2 == 0 => LineKind::Add,
                        _ => LineKind::Del,
                    };
                    (kind, text.as_str())
                })
                .collect();
            mine.push(hunk(
                &format!("hunk:{f}:{h}"),
                &file_id,
                (1 + h * 40, 1 + h * 40),
                "fn compute() {",
                &lines,
            ));
        }
        let refs: Vec<&Hunk> = mine.iter().collect();
        files.push(file(&path, FileStatus::Modified, false, &refs));
        hunks.extend(mine);
    }
    let chapters = (0..100)
        .map(|c| {
            let ids: Vec<&str> = (hunks.iter())
                .filter(|h| h.file_id.starts_with(&format!("file:src/module_{c}/")))
                .map(|h| h.id.as_str())
                .collect();
            chapter(
                &format!("chapter:{c}"),
                &format!("module_{c}"),
                "Twenty files change.",
                &ids,
            )
        })
        .collect();
    Arc::new(Review {
        id: "review:large".into(),
        revision_id: "revision".into(),
        target: ReviewTarget::WorkingTree,
        files,
        hunks,
        chapters,
    })
}

fn frame(view: &mut ReviewView, buf: &mut Buffer) {
    super::render::draw(view, buf.area, buf, false, Writes::default());
}

#[test]
#[ignore = "figures, not a check: run with --ignored --nocapture"]
fn review_at_scale() {
    let review = large();
    let lines: usize = review.hunks.iter().map(|h| h.lines.len()).sum();
    let changed = review
        .files
        .iter()
        .map(|f| f.additions + f.deletions)
        .sum::<u32>();
    let mut buf = Buffer::empty(Rect::new(0, 0, 120, 39));
    let mut view = ReviewView::default();
    let load = view.open_target(None).expect("a load");
    let luxe_core::protocol::actions::Action::LoadGuidedReview(load) = load else {
        panic!("not a load");
    };
    let started = Instant::now();
    view.take(&Event::GuidedReviewLoaded(GuidedReviewLoaded {
        request_id: load.request_id,
        review,
    }));
    frame(&mut view, &mut buf);
    let opened = started.elapsed();
    println!(
        "2,000 files, {changed} changed lines ({lines} with context): loaded to first chapter drawn in {opened:?}"
    );
    for (name, code) in [
        ("n", KeyCode::Char('n')),
        ("]", KeyCode::Char(']')),
        ("j", KeyCode::Char('j')),
        ("}", KeyCode::Char('}')),
        ("p", KeyCode::Char('p')),
        ("G", KeyCode::Char('G')),
    ] {
        let mut times: Vec<Duration> = (0..200)
            .map(|_| {
                let at = Instant::now();
                view.key(Key::plain(code), Writes::default());
                frame(&mut view, &mut buf);
                at.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "{name} and its frame: median {:?}, worst {:?}",
            times[100], times[199]
        );
    }
}
