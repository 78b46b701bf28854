//! A [`Review`] built from a [`DiffSource`], purely: files, hunks as `git diff -U3` prints them,
//! content-hash ids and chapters.
//!
//! Binary detection is git's: a side with a NUL byte in its first 8,000 bytes. A file whose
//! change has no lines gets one hunk without lines (all counts 0) whose header says what changed,
//! parts joined by `, `: `binary file`, `new empty file`, `deleted empty file`,
//! `renamed from <old>`, `copied from <old>`, `type changed`, `mode 100644 → 100755`, or
//! `no content change` when there is nothing else to say. A `.env` file (on either side) is not
//! diffed at all: its one hunk says `contents withheld: .env files hold secrets`.

use memchr::memchr;

use crate::permissions::is_env_file;

use super::chapters::chapters;
use super::hunks::{Differ, TextChange};
use super::ids::{ContentHash, HunkIds, file_id, lines_hashes, review_id};
use crate::effects::{ChangedFile, DiffSource};
use crate::protocol::guided_review::{FileStatus, Hunk, Review, ReviewFile, ReviewTarget};

/// The header of a withheld file's one hunk.
pub(super) const WITHHELD: &str = "contents withheld: .env files hold secrets";

/// Whether a review withholds the contents of the file at `path` (renamed from `old_path`):
/// a `.env` file on either side, as the read tool refuses it.
pub(super) fn withholds(path: &str, old_path: Option<&str>) -> bool {
    is_env_file(path) || old_path.is_some_and(is_env_file)
}

/// How far git looks for a NUL byte to call a file binary (`FIRST_FEW_BYTES`).
const BINARY_PROBE: usize = 8000;

/// Builds the review of `source`, compared as `target` says.
pub fn build(target: &ReviewTarget, source: &DiffSource) -> Review {
    let mut changed: Vec<&ChangedFile> = source.files.iter().collect();
    changed.sort_by(|a, b| a.path.cmp(&b.path));
    let mut files = Vec::with_capacity(changed.len());
    let mut counts = Vec::with_capacity(changed.len());
    let mut hunks = Vec::new();
    let mut differ = Differ::default();
    for file in changed {
        let (review_file, file_hunks) = build_file(file, &mut differ);
        files.push(review_file);
        counts.push(file_hunks.len());
        hunks.extend(file_hunks);
    }
    name_hunks(&mut files, &counts, &mut hunks);
    let chapters = chapters(&files, &hunks);
    Review {
        id: review_id(&source.root, target),
        revision_id: revision_id(&files, &hunks),
        target: target.clone(),
        files,
        hunks,
        chapters,
    }
}

/// A file and its hunks, which have no ids yet.
fn build_file<'a>(file: &'a ChangedFile, differ: &mut Differ<'a>) -> (ReviewFile, Vec<Hunk>) {
    let id = file_id(&file.path);
    let old = file.old.as_deref().unwrap_or_default();
    let new = file.new.as_deref().unwrap_or_default();
    let withheld = withholds(&file.path, file.old_path.as_deref());
    let binary = !withheld && (is_binary(old) || is_binary(new));
    let change = if binary || withheld {
        None
    } else {
        Some(differ.change(old, new, &id)).filter(|c| !c.hunks.is_empty())
    };
    let TextChange {
        hunks,
        additions,
        deletions,
    } = change.unwrap_or_else(|| {
        let header = if withheld {
            WITHHELD.to_owned()
        } else {
            note(file, binary)
        };
        TextChange {
            hunks: vec![Hunk::note(id.clone(), header)],
            additions: 0,
            deletions: 0,
        }
    });
    let review_file = ReviewFile {
        id,
        path: file.path.clone(),
        old_path: file.old_path.clone(),
        status: file.status,
        binary,
        withheld,
        additions,
        deletions,
        hunk_ids: Vec::with_capacity(hunks.len()),
    };
    (review_file, hunks)
}

/// Gives every hunk its id and every file its hunks' ids; the hunks are in file order,
/// `counts[i]` of them for `files[i]`.
pub(super) fn name_hunks(files: &mut [ReviewFile], counts: &[usize], hunks: &mut [Hunk]) {
    let paths = files
        .iter()
        .zip(counts)
        .flat_map(|(file, &n)| std::iter::repeat_n(file.path.as_str(), n));
    let hashes = lines_hashes(paths.zip(hunks.iter().map(|hunk| &hunk.lines)));
    let mut named = hunks.iter_mut().zip(hashes);
    for (file, &n) in files.iter_mut().zip(counts) {
        let mut ids = HunkIds::new(&file.path);
        for (hunk, hash) in named.by_ref().take(n) {
            // Only a hunk without lines says what changed instead.
            hunk.id = if hunk.lines.is_empty() {
                ids.note(&hunk.header)
            } else {
                ids.lines(hash)
            };
            file.hunk_ids.push(hunk.id.clone());
        }
    }
}

/// Git's test: a NUL byte in the first 8,000 bytes.
fn is_binary(bytes: &[u8]) -> bool {
    memchr(0, &bytes[..bytes.len().min(BINARY_PROBE)]).is_some()
}

/// What changed in a file whose change has no lines.
fn note(file: &ChangedFile, binary: bool) -> String {
    let mut parts = Vec::new();
    if binary {
        parts.push("binary file".to_owned());
    }
    let old_path = file.old_path.as_deref().unwrap_or_default();
    match file.status {
        FileStatus::Added if !binary => parts.push("new empty file".to_owned()),
        FileStatus::Deleted if !binary => parts.push("deleted empty file".to_owned()),
        FileStatus::Renamed => parts.push(format!("renamed from {old_path}")),
        FileStatus::Copied => parts.push(format!("copied from {old_path}")),
        FileStatus::TypeChanged => parts.push("type changed".to_owned()),
        FileStatus::Added | FileStatus::Deleted | FileStatus::Modified => {}
    }
    if let (Some(old), Some(new)) = (file.old_mode, file.new_mode)
        && old != new
    {
        parts.push(format!("mode {old:06o} → {new:06o}"));
    }
    if parts.is_empty() {
        parts.push("no content change".to_owned());
    }
    parts.join(", ")
}

/// A hash of the whole diff: every file's id and old path, every hunk's id and numbers (the
/// numbers too, since line anchors quote them).
pub(super) fn revision_id(files: &[ReviewFile], hunks: &[Hunk]) -> String {
    let mut hash = ContentHash::default();
    for file in files {
        hash.field(&file.id)
            .field(file.old_path.as_deref().unwrap_or_default());
    }
    for hunk in hunks {
        hash.field(&hunk.id);
        for n in [
            hunk.old_start,
            hunk.old_lines,
            hunk.new_start,
            hunk.new_lines,
        ] {
            hash.number(u64::from(n));
        }
    }
    hash.hex()
}

#[cfg(test)]
mod tests;
