//! `commit_review_chapters` as a [`Flow`]: one commit per chapter, in chapter order, built in a
//! temporary index so that neither the working tree nor the user's index is touched (gix cannot
//! stage a hunk or write commits from an index here, so this runs the git CLI, one command at a
//! time, on the session's step runner).
//!
//! A file whose hunks all belong to one chapter is staged whole from the working tree
//! (`git add -A`, which also covers binary, mode, added, deleted and renamed files); a file split
//! across chapters gets that chapter's hunks as a patch (`git apply --cached`). Each chapter's
//! tree becomes a commit on top of the previous (`git write-tree`, `git commit-tree`); only when
//! every commit exists does HEAD move (`git update-ref`, refusing if HEAD moved meanwhile), and
//! then the committed paths of the real index are reset to the new HEAD.
//!
//! With `stack: true` the same commits become a stack instead: each chapter's commit gets a
//! branch of its own (`<current branch>-<n>-<title>`, never an existing name, each created only
//! if it does not exist), and HEAD, the index and the work tree stay as they were.
//!
//! The review's diff was read against a HEAD: when HEAD is another commit by the time the
//! commit starts (someone committed meanwhile), nothing is committed, since the chapters'
//! files and patches no longer describe the change on top of it (staged whole, they would make
//! empty or wrong commits); the review is read again instead.
//!
//! The first failure stops the script; only the removal of the temporary files still runs, and
//! the answer names the command that failed.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;

use super::unified::write_hunk;
use crate::protocol::actions::CommitReviewChapters;
use crate::protocol::events::ChapterCommit;
use crate::protocol::guided_review::{Chapter, Hunk, Review, ReviewFile};
use crate::stack::git as stack_git;
use crate::stack::names::branch_names;
use crate::stack::preview::CommittedBranch;
use crate::stack::refs::{is_object_id, parse_refs};
use crate::steps::{Cmd, FileWrite, Flow, Next, Program, Ran};

/// One step of the script; those that need an earlier step's output take it from the flow.
#[derive(Debug, Clone)]
enum Step {
    /// `git rev-parse --git-path` for the temporary index.
    FindIndexPath,
    /// `git rev-parse --verify HEAD`: the first parent, if any.
    ReadHead,
    /// `git read-tree HEAD` (or `--empty`) into the temporary index.
    ResetIndex,
    /// `git add -A -- paths` into the temporary index.
    AddWhole(Vec<String>),
    /// Write the patch for split files.
    WritePatch(String),
    /// `git apply --cached` of the patch into the temporary index.
    ApplyPatch,
    /// `git write-tree` of the temporary index.
    WriteTree,
    /// `git commit-tree` of the written tree: the chapter's id and its commit message.
    CommitTree(String, String),
    /// `git update-ref HEAD`.
    MoveHead,
    /// `git symbolic-ref HEAD`: the current branch, which a stack's names start with.
    ReadBranch,
    /// `git for-each-ref`: the branches a stack's names must not take.
    ListBranches,
    /// Create the stack's branch for the chapter committed at this position.
    CreateBranch(usize),
    /// `git reset -- paths` in the real index.
    ResetRealIndex(Vec<String>),
    /// Remove the temporary files.
    Cleanup,
}

/// What a commit of chapters made.
#[derive(Debug, Clone, PartialEq)]
pub struct Committed {
    /// One commit per chapter, in chapter order (with its branch for a stack).
    pub commits: Vec<ChapterCommit>,
    /// For `stack: true`, the stack's branches, for `preview_stack` to offer; `None` when HEAD
    /// moved instead (the review must then be read again).
    pub stack: Option<Vec<CommittedBranch>>,
}

/// Where a review was read: the repository and the HEAD its diff is against.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadAt {
    /// The repository's top directory, which the review's paths are relative to.
    pub root: String,
    /// HEAD when the diff was read (`None`: the repository had no commit yet).
    pub head: Option<String>,
}

/// A commit of chapters under way.
#[derive(Debug)]
pub struct CommitFlow {
    request_id: String,
    /// The repository's top directory, which the review's paths are relative to.
    root: String,
    /// HEAD when the review was read; the commit is refused if HEAD is another now, and
    /// HEAD moves only from it (`update-ref`'s old value).
    read_against: Option<String>,
    /// Set when that refusal happened: the review must be read again.
    head_moved: bool,
    steps: VecDeque<Step>,
    /// The step whose end is awaited.
    running: Option<Step>,
    index_path: String,
    parent: Option<String>,
    tree: String,
    commits: Vec<ChapterCommit>,
    /// The first failure; the script then only cleans up.
    failed: Option<String>,
    /// For `stack: true`: the branches to make.
    stack: Option<StackBranches>,
}

/// The branches of a stack of chapters: named once the current branch and the existing ones
/// are known, made once every commit exists.
#[derive(Debug)]
struct StackBranches {
    chapters: Vec<CommittedBranch>,
    current: Option<String>,
}

impl CommitFlow {
    /// The commit `request` asks for of `review` (a working-tree review, read `at`); refused
    /// when a chapter is unknown or none is chosen.
    pub fn new(
        request: &CommitReviewChapters,
        review: &Review,
        at: ReadAt,
    ) -> Result<Self, String> {
        let chosen: Vec<&Chapter> = match &request.chapter_ids {
            None => review.chapters.iter().collect(),
            Some(ids) => {
                if let Some(unknown) = ids
                    .iter()
                    .find(|id| !review.chapters.iter().any(|c| &c.id == *id))
                {
                    return Err(format!("unknown chapter {unknown}"));
                }
                review
                    .chapters
                    .iter()
                    .filter(|c| ids.contains(&c.id))
                    .collect()
            }
        };
        if chosen.is_empty() {
            return Err("no chapters to commit".into());
        }
        if let Some(withheld) = chosen.iter().find(|c| only_withheld(review, c)) {
            return Err(format!(
                "chapter {} ({}) holds only .env files, whose contents Luxe withholds: Luxe does not commit them (commit them yourself, or leave the chapter out with chapter_ids)",
                withheld.id, withheld.title
            ));
        }
        let stacked = request.stack == Some(true);
        let messages = request.messages.clone().unwrap_or_default();
        let stack = stacked.then(|| StackBranches {
            chapters: chosen
                .iter()
                .map(|c| CommittedBranch {
                    branch: String::new(),
                    title: c.title.clone(),
                    summary: c.summary.clone(),
                })
                .collect(),
            current: None,
        });
        Ok(Self {
            request_id: request.request_id.clone(),
            root: at.root,
            read_against: at.head,
            head_moved: false,
            steps: plan(review, &chosen, &messages, stacked),
            running: None,
            index_path: String::new(),
            parent: None,
            tree: String::new(),
            commits: Vec::new(),
            failed: None,
            stack,
        })
    }

    /// The `request_id` of the `commit_review_chapters` this flow answers.
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// Whether it was refused because HEAD moved since the review was read (so the review
    /// should be read again).
    pub fn head_moved(&self) -> bool {
        self.head_moved
    }

    /// Asks for the next step that has something to do, or answers when none is left.
    fn next(&mut self) -> Next<Result<Committed, String>> {
        while let Some(step) = self.steps.pop_front() {
            // A step with nothing to do (no paths, no temporary index yet) is skipped.
            if matches!(&step, Step::AddWhole(p) | Step::ResetRealIndex(p) if p.is_empty())
                || (matches!(step, Step::Cleanup) && self.index_path.is_empty())
            {
                continue;
            }
            let next = self.ask(&step);
            self.running = Some(step);
            return next;
        }
        Next::Done(self.answer())
    }

    /// The command (or file) `step` is, from what the earlier steps found.
    fn ask(&self, step: &Step) -> Next<Result<Committed, String>> {
        let git = |args: &[&str]| Cmd::git(owned(args)).in_dir(&self.root);
        // The temporary index is chosen through git's environment.
        let in_index = |args: &[&str]| git(args).with_env("GIT_INDEX_FILE", &self.index_path);
        let patch = format!("{}.patch", self.index_path);
        Next::Run(match step {
            Step::FindIndexPath => git(&["rev-parse", "--git-path", "luxe-review.index"]),
            Step::ReadHead => git(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]),
            Step::ResetIndex => match &self.parent {
                Some(head) => in_index(&["read-tree", head]),
                None => in_index(&["read-tree", "--empty"]),
            },
            Step::AddWhole(paths) => {
                let mut args = vec!["add", "-A", "--"];
                args.extend(paths.iter().map(String::as_str));
                in_index(&args)
            }
            Step::WritePatch(text) => {
                return Next::Write(FileWrite {
                    path: patch,
                    bytes: text.clone().into_bytes(),
                });
            }
            Step::ApplyPatch => in_index(&["apply", "--cached", "--whitespace=nowarn", &patch]),
            Step::WriteTree => in_index(&["write-tree"]),
            Step::CommitTree(_, message) => {
                let mut args = vec!["commit-tree", self.tree.as_str(), "-m", message.as_str()];
                if let Some(parent) = &self.parent {
                    args.extend(["-p", parent.as_str()]);
                }
                git(&args)
            }
            Step::MoveHead => {
                let last = self.parent.clone().unwrap_or_default();
                let mut args = vec![
                    "update-ref",
                    "-m",
                    "luxe: commit review chapters",
                    "HEAD",
                    last.as_str(),
                ];
                if let Some(old) = &self.read_against {
                    args.push(old.as_str());
                }
                git(&args)
            }
            Step::ReadBranch => Cmd::git(stack_git::current_branch()).in_dir(&self.root),
            Step::ListBranches => Cmd::git(stack_git::branches()).in_dir(&self.root),
            Step::CreateBranch(i) => {
                let branch = self.stack.as_ref().map(|s| s.chapters[*i].branch.as_str());
                let sha = self.commits.get(*i).map(|c| c.sha.as_str());
                Cmd::git(stack_git::create_branch(
                    branch.unwrap_or_default(),
                    sha.unwrap_or_default(),
                ))
                .in_dir(&self.root)
            }
            Step::ResetRealIndex(paths) => {
                let mut args = vec!["reset", "--quiet", "--"];
                args.extend(paths.iter().map(String::as_str));
                git(&args)
            }
            Step::Cleanup => Cmd::new(
                Program::Rm,
                vec!["-f".into(), self.index_path.clone(), patch],
            )
            .in_dir(&self.root),
        })
    }

    /// `step` ended with `outcome`, having printed `stdout` (trimmed): what it found is kept,
    /// and a failure leaves only the cleanup to run.
    fn took(&mut self, step: &Step, outcome: Result<(), String>, stdout: String) {
        // What git prints for a tree or commit must be an object id, nothing else.
        let outcome = match (step, outcome) {
            (Step::ReadHead | Step::WriteTree | Step::CommitTree(..), Ok(()))
                if !is_object_id(&stdout) =>
            {
                Err(format!("git printed no object id ({} bytes)", stdout.len()))
            }
            (_, outcome) => outcome,
        };
        if matches!(step, Step::ReadHead) {
            let now = outcome.is_ok().then_some(stdout.as_str());
            if now != self.read_against.as_deref() {
                self.failed = Some(format!(
                    "HEAD moved since the review was read (from {} to {}): nothing was \
                     committed, and the review is read again",
                    short(self.read_against.as_deref()),
                    short(now),
                ));
                self.head_moved = true;
                self.steps.retain(|s| matches!(s, Step::Cleanup));
                return;
            }
        }
        match (step, outcome) {
            // No HEAD yet: the first commit has no parent (a stack needs one to stand on).
            (Step::ReadHead, Err(_)) if self.stack.is_some() => {
                self.failed = Some("a stack needs a commit to stand on: HEAD has none".into());
                self.steps.retain(|s| matches!(s, Step::Cleanup));
            }
            (Step::ReadHead, Err(_)) => {}
            // Detached: the names start with `stack`.
            (Step::ReadBranch, outcome) => {
                if let Some(stack) = self.stack.as_mut() {
                    stack.current = outcome.ok().map(|()| stdout);
                }
            }
            (Step::ListBranches, Ok(())) => {
                if let Some(stack) = self.stack.as_mut() {
                    // Taken here or on origin: a name of origin's would adopt its branch.
                    let refs = parse_refs(&stdout);
                    let existing = refs
                        .local
                        .into_keys()
                        .chain(refs.remote.into_keys())
                        .collect();
                    let titles: Vec<&str> =
                        stack.chapters.iter().map(|c| c.title.as_str()).collect();
                    let names = branch_names(stack.current.as_deref(), &titles, &existing);
                    for (chapter, name) in stack.chapters.iter_mut().zip(names) {
                        chapter.branch = name;
                    }
                }
            }
            (Step::CreateBranch(i), Ok(())) => {
                let branch = self.stack.as_ref().map(|s| s.chapters[*i].branch.clone());
                if let Some(made) = self.commits.get_mut(*i) {
                    made.branch = branch;
                }
            }
            (Step::ReadHead, Ok(())) => {
                self.parent = Some(stdout);
            }
            (Step::FindIndexPath, Ok(())) => {
                self.index_path = if stdout.starts_with('/') {
                    stdout
                } else {
                    format!("{}/{stdout}", self.root)
                };
            }
            (Step::WriteTree, Ok(())) => self.tree = stdout,
            (Step::CommitTree(chapter_id, _), Ok(())) => {
                self.commits.push(ChapterCommit {
                    chapter_id: chapter_id.clone(),
                    sha: stdout.clone(),
                    branch: None,
                });
                self.parent = Some(stdout);
            }
            (Step::Cleanup, _) | (_, Ok(())) => {}
            (step, Err(why)) => {
                if self.failed.is_none() {
                    self.failed = Some(format!("{}: {why}", describe(step)));
                }
                // Only the cleanup is left to run.
                self.steps.retain(|s| matches!(s, Step::Cleanup));
            }
        }
    }

    /// The answer once no step is left: the commits, or the first failure (naming the
    /// branches a stack made before it).
    fn answer(&mut self) -> Result<Committed, String> {
        match self.failed.take() {
            Some(mut reason) => {
                let made: Vec<&str> = self
                    .commits
                    .iter()
                    .filter_map(|c| c.branch.as_deref())
                    .collect();
                if !made.is_empty() {
                    reason.push_str(&format!(" (branches made before: {})", made.join(", ")));
                }
                Err(reason)
            }
            None => Ok(Committed {
                commits: std::mem::take(&mut self.commits),
                stack: self.stack.take().map(|s| s.chapters),
            }),
        }
    }
}

impl Flow for CommitFlow {
    type Output = Result<Committed, String>;

    fn start(&mut self) -> Next<Self::Output> {
        self.next()
    }

    fn on(&mut self, ran: Ran) -> Next<Self::Output> {
        if let Some(step) = self.running.take() {
            let outcome = match ran.failure() {
                None => Ok(()),
                Some(why) => Err(why.to_owned()),
            };
            self.took(&step, outcome, ran.stdout().trim().to_owned());
        }
        self.next()
    }
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

/// A commit's short name, or what stands for none.
fn short(head: Option<&str>) -> &str {
    head.map_or("no commit", |id| id.get(..7).unwrap_or(id))
}

/// What a step is, for a failure's reason.
fn describe(step: &Step) -> &'static str {
    match step {
        Step::FindIndexPath => "git rev-parse --git-path",
        Step::ReadHead => "git rev-parse HEAD",
        Step::ResetIndex => "git read-tree",
        Step::AddWhole(_) => "git add",
        Step::WritePatch(_) => "writing the chapter's patch",
        Step::ApplyPatch => "git apply --cached",
        Step::WriteTree => "git write-tree",
        Step::CommitTree(..) => "git commit-tree",
        Step::MoveHead => "git update-ref HEAD (did HEAD move?)",
        Step::ReadBranch => "git symbolic-ref HEAD",
        Step::ListBranches => "git for-each-ref",
        Step::CreateBranch(_) => "git update-ref (creating a stack's branch; does it exist?)",
        Step::ResetRealIndex(_) => "git reset",
        Step::Cleanup => "removing the temporary index",
    }
}

/// The script for committing `chosen` (in chapter order) of `review`: onto HEAD, or with
/// `stacked` each on a new branch, leaving HEAD, the index and the work tree alone.
fn plan(
    review: &Review,
    chosen: &[&Chapter],
    messages: &BTreeMap<String, String>,
    stacked: bool,
) -> VecDeque<Step> {
    let chapter_of: BTreeMap<&str, &str> = review
        .chapters
        .iter()
        .flat_map(|c| c.hunk_ids.iter().map(move |h| (h.as_str(), c.id.as_str())))
        .collect();
    let hunks: BTreeMap<&str, &Hunk> = review.hunks.iter().map(|h| (h.id.as_str(), h)).collect();
    let mut steps = VecDeque::from([Step::FindIndexPath, Step::ReadHead]);
    if stacked {
        steps.extend([Step::ReadBranch, Step::ListBranches]);
    }
    steps.push_back(Step::ResetIndex);
    let mut touched = BTreeSet::new();
    for chapter in chosen {
        let mut whole = Vec::new();
        let mut patch = String::new();
        // A withheld file (.env) is never committed: Luxe does not show what it holds, so it
        // does not put it in a commit (a stack's would be pushed) either. It stays as it is.
        for file in review.files.iter().filter(|f| !f.withheld) {
            let mine: Vec<&Hunk> = file
                .hunk_ids
                .iter()
                .filter(|h| chapter_of.get(h.as_str()) == Some(&chapter.id.as_str()))
                .filter_map(|h| hunks.get(h.as_str()).copied())
                .collect();
            if mine.is_empty() {
                continue;
            }
            touched.insert(file.path.clone());
            if let Some(old) = &file.old_path {
                touched.insert(old.clone());
            }
            if mine.len() == file.hunk_ids.len() {
                whole.push(file.path.clone());
                whole.extend(file.old_path.clone());
            } else {
                write_patch(&mut patch, file, &mine);
            }
        }
        steps.push_back(Step::AddWhole(whole));
        if !patch.is_empty() {
            steps.push_back(Step::WritePatch(patch));
            steps.push_back(Step::ApplyPatch);
        }
        let message = messages
            .get(&chapter.id)
            .cloned()
            .unwrap_or_else(|| format!("{}\n\n{}", chapter.title, chapter.summary));
        steps.push_back(Step::WriteTree);
        steps.push_back(Step::CommitTree(chapter.id.clone(), message));
    }
    if stacked {
        steps.extend((0..chosen.len()).map(Step::CreateBranch));
    } else {
        steps.push_back(Step::MoveHead);
        steps.push_back(Step::ResetRealIndex(touched.into_iter().collect()));
    }
    steps.push_back(Step::Cleanup);
    steps
}

/// Whether every file with a hunk in `chapter` is withheld (so it would commit nothing).
fn only_withheld(review: &Review, chapter: &Chapter) -> bool {
    let mut files = review
        .files
        .iter()
        .filter(|f| f.hunk_ids.iter().any(|h| chapter.hunk_ids.contains(h)))
        .peekable();
    files.peek().is_some() && files.all(|f| f.withheld)
}

/// Appends `hunks` of `file` to `patch` as a unified diff git can apply.
fn write_patch(patch: &mut String, file: &ReviewFile, hunks: &[&Hunk]) {
    let _ = writeln!(
        patch,
        "diff --git a/{0} b/{0}\n--- a/{0}\n+++ b/{0}",
        file.path
    );
    for hunk in hunks {
        write_hunk(patch, hunk);
    }
}

#[cfg(test)]
mod tests;
