//! Building a review: 2,000 files of 250 code-like lines, each with five places where five lines
//! are replaced (100,000 changed lines in all), diffed, hunked, hashed and put in chapters. Freeing
//! the review afterwards is not timed. `git diff` of the same change takes about five times as
//! long on the same machine. `cargo bench -p luxe-core --bench review`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use luxe_core::effects::{ChangedFile, DiffSource};
use luxe_core::guided_review::build::build;
use luxe_core::protocol::guided_review::{FileStatus, ReviewTarget};
use std::hint::black_box;

const FILES: usize = 2_000;
const LINES: usize = 250;
/// Where each file's edits start; each replaces five lines.
const EDITS: [usize; 5] = [21, 71, 121, 171, 221];

fn text(file: usize, edited: bool) -> Vec<u8> {
    let mut text = String::new();
    for i in 0..LINES {
        let changed = edited && EDITS.iter().any(|&at| (at..at + 5).contains(&i));
        let line = match i % 10 {
            0 => format!("fn f{file}_{i}(x: u32) -> u32 {{"),
            8 => String::new(),
            9 => "}".to_owned(),
            _ if changed => format!("    let v{i} = x * {i} - {file} + 1;"),
            _ => format!("    let v{i} = x * {i} + {file};"),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text.into_bytes()
}

fn source() -> DiffSource {
    let files = (0..FILES)
        .map(|f| ChangedFile {
            path: format!("crate{}/src/module{}/file{f}.rs", f % 7, f % 50),
            old_path: None,
            status: FileStatus::Modified,
            old_mode: Some(0o100644),
            new_mode: Some(0o100644),
            old: Some(text(f, false)),
            new: Some(text(f, true)),
        })
        .collect();
    DiffSource {
        root: "/bench".into(),
        files,
        ..DiffSource::default()
    }
}

fn review(c: &mut Criterion) {
    let source = source();
    let changed: u32 = build(&ReviewTarget::WorkingTree, &source)
        .files
        .iter()
        .map(|f| f.additions + f.deletions)
        .sum();
    assert!(changed >= 100_000, "{changed} changed lines");
    let mut group = c.benchmark_group("review");
    group.sample_size(20);
    group.throughput(Throughput::Elements(FILES as u64));
    group.bench_function("build 2,000 files, 100,000 changed lines", |b| {
        b.iter_with_large_drop(|| build(black_box(&ReviewTarget::WorkingTree), black_box(&source)))
    });
    group.finish();
}

criterion_group!(benches, review);
criterion_main!(benches);
