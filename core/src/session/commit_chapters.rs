//! `commit_review_chapters`: one commit per chapter, in chapter order, built in a temporary
//! index so that neither the working tree nor the user's index is touched (gix cannot stage a
//! hunk or write commits from an index here, so this runs the git CLI, one command at a time).
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

use super::owners::Owner;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;

use super::own_commands::Commands;
use crate::effects::{EffectId, Input, Output};
use crate::protocol::actions::CommitReviewChapters;
use crate::protocol::events::{ChapterCommit, Event, RequestFailed, ReviewChaptersCommitted};
use crate::protocol::review::{Chapter, Hunk, LineKind, Review, ReviewFile, ReviewTarget};
use crate::stack::git as stack_git;
use crate::stack::names::branch_names;
use crate::stack::preview::CommittedBranch;
use crate::stack::refs::{is_object_id, parse_refs};

use super::Session;

/// One step of the script; those that need an earlier step's output take it from [`Commit`].
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
    /// `git commit-tree`.
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

/// A commit of chapters under way.
#[derive(Debug)]
pub(super) struct Commit {
    request_id: String,
    root: String,
    steps: VecDeque<Step>,
    /// The git command running, if the step is one.
    commands: Commands<Step>,
    /// The patch being written, if the step is that.
    writing: Option<EffectId>,
    index_path: String,
    original_head: Option<String>,
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

impl Session {
    /// `commit_review_chapters`: refused at once when it cannot start.
    pub(super) fn commit_chapters(&mut self, request: CommitReviewChapters) -> Result<(), String> {
        let review = Arc::clone(self.check_open(&request.review_id)?);
        if review.target != ReviewTarget::WorkingTree {
            return Err("only a working_tree review can be committed".into());
        }
        if self.commit.is_some() {
            return Err("a commit of chapters is already running".into());
        }
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
        let messages = request.messages.clone().unwrap_or_default();
        let root = self.review_root().unwrap_or_else(|| self.cwd.clone());
        let stacked = request.stack == Some(true);
        let steps = plan(&review, &chosen, &messages, stacked);
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
        self.commit = Some(Commit {
            request_id: request.request_id,
            root,
            steps,
            commands: Commands::default(),
            writing: None,
            index_path: String::new(),
            original_head: None,
            parent: None,
            tree: String::new(),
            commits: Vec::new(),
            failed: None,
            stack,
        });
        self.next_commit_step();
        Ok(())
    }

    /// Takes a result of the running step.
    pub(super) fn commit_effect(&mut self, input: &Input<'_>) {
        let Some(commit) = self.commit.as_mut() else {
            return;
        };
        if let Input::FileWritten { id, result } = input {
            if commit.writing != Some(*id) {
                return;
            }
            commit.writing = None;
            let outcome = result.clone();
            self.step_done(&Step::WritePatch(String::new()), outcome, String::new());
            return;
        }
        let (_, finished) = commit.commands.handle(input);
        if let Some(done) = finished {
            let outcome = match done.failure("git") {
                None => Ok(()),
                Some(why) => Err(why),
            };
            let stdout = done.stdout_text();
            self.step_done(&done.purpose, outcome, stdout);
        }
    }

    /// A step ended: take its output, then run the next.
    fn step_done(&mut self, step: &Step, outcome: Result<(), String>, stdout: String) {
        let Some(commit) = self.commit.as_mut() else {
            return;
        };
        // What git prints for a tree or commit must be an object id, nothing else.
        let outcome = match (step, outcome) {
            (Step::ReadHead | Step::WriteTree | Step::CommitTree(..), Ok(()))
                if !is_object_id(&stdout) =>
            {
                Err(format!("git printed no object id ({} bytes)", stdout.len()))
            }
            (_, outcome) => outcome,
        };
        match (step, outcome) {
            // No HEAD yet: the first commit has no parent (a stack needs one to stand on).
            (Step::ReadHead, Err(_)) if commit.stack.is_some() => {
                commit.failed = Some("a stack needs a commit to stand on: HEAD has none".into());
                commit.steps.retain(|s| matches!(s, Step::Cleanup));
            }
            (Step::ReadHead, Err(_)) => {}
            // Detached: the names start with `stack`.
            (Step::ReadBranch, outcome) => {
                if let Some(stack) = commit.stack.as_mut() {
                    stack.current = outcome.ok().map(|()| stdout);
                }
            }
            (Step::ListBranches, Ok(())) => {
                if let Some(stack) = commit.stack.as_mut() {
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
                let branch = commit.stack.as_ref().map(|s| s.chapters[*i].branch.clone());
                if let Some(made) = commit.commits.get_mut(*i) {
                    made.branch = branch;
                }
            }
            (Step::ReadHead, Ok(())) => {
                commit.original_head = Some(stdout.clone());
                commit.parent = Some(stdout);
            }
            (Step::FindIndexPath, Ok(())) => {
                commit.index_path = if stdout.starts_with('/') {
                    stdout
                } else {
                    format!("{}/{stdout}", commit.root)
                };
            }
            (Step::WriteTree, Ok(())) => commit.tree = stdout,
            (Step::CommitTree(chapter_id, _), Ok(())) => {
                commit.commits.push(ChapterCommit {
                    chapter_id: chapter_id.clone(),
                    sha: stdout.clone(),
                    branch: None,
                });
                commit.parent = Some(stdout);
            }
            (Step::Cleanup, _) => {}
            (_, Ok(())) => {}
            (step, Err(why)) => {
                if commit.failed.is_none() {
                    commit.failed = Some(format!("{}: {why}", describe(step)));
                }
                // Only the cleanup is left to run.
                commit.steps.retain(|s| matches!(s, Step::Cleanup));
            }
        }
        self.next_commit_step();
    }

    /// Starts the next step, or answers when none is left.
    fn next_commit_step(&mut self) {
        let Some(commit) = self.commit.as_mut() else {
            return;
        };
        let Some(step) = commit.steps.pop_front() else {
            let Some(commit) = self.commit.take() else {
                return;
            };
            match commit.failed {
                Some(mut reason) => {
                    let made: Vec<&str> = commit
                        .commits
                        .iter()
                        .filter_map(|c| c.branch.as_deref())
                        .collect();
                    if !made.is_empty() {
                        reason.push_str(&format!(" (branches made before: {})", made.join(", ")));
                    }
                    self.emit(Event::ReviewChaptersCommitFailed(RequestFailed {
                        request_id: commit.request_id,
                        reason,
                    }));
                }
                None => {
                    self.emit(Event::ReviewChaptersCommitted(ReviewChaptersCommitted {
                        request_id: commit.request_id,
                        commits: commit.commits,
                    }));
                    // A stack leaves HEAD and the work tree alone: the review still stands.
                    match commit.stack {
                        Some(stack) => self.stacks.committed(stack.chapters),
                        None => self.refresh_review(),
                    }
                }
            }
            return;
        };
        let git = |args: &[&str]| Command {
            program: "git",
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: Vec::new(),
        };
        // The temporary index is chosen through git's environment.
        let in_index = |args: &[&str]| Command {
            env: vec![("GIT_INDEX_FILE".to_owned(), commit.index_path.clone())],
            ..git(args)
        };
        let command: Result<Command, (String, Vec<u8>)> = match &step {
            Step::FindIndexPath => Ok(git(&["rev-parse", "--git-path", "luxe-review.index"])),
            Step::ReadHead => Ok(git(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])),
            Step::ResetIndex => Ok(match &commit.parent {
                Some(head) => in_index(&["read-tree", head]),
                None => in_index(&["read-tree", "--empty"]),
            }),
            Step::AddWhole(paths) => {
                let mut args = vec!["add", "-A", "--"];
                args.extend(paths.iter().map(String::as_str));
                Ok(in_index(&args))
            }
            Step::WritePatch(patch) => Err((
                format!("{}.patch", commit.index_path),
                patch.clone().into_bytes(),
            )),
            Step::ApplyPatch => {
                let patch = format!("{}.patch", commit.index_path);
                Ok(in_index(&[
                    "apply",
                    "--cached",
                    "--whitespace=nowarn",
                    &patch,
                ]))
            }
            Step::WriteTree => Ok(in_index(&["write-tree"])),
            Step::CommitTree(_, message) => {
                let mut args = vec!["commit-tree", commit.tree.as_str(), "-m", message.as_str()];
                if let Some(parent) = &commit.parent {
                    args.extend(["-p", parent.as_str()]);
                }
                Ok(git(&args))
            }
            Step::MoveHead => {
                let last = commit.parent.clone().unwrap_or_default();
                let mut args = vec![
                    "update-ref",
                    "-m",
                    "luxe: commit review chapters",
                    "HEAD",
                    last.as_str(),
                ];
                if let Some(old) = &commit.original_head {
                    args.push(old.as_str());
                }
                Ok(git(&args))
            }
            Step::ReadBranch => Ok(git(&["symbolic-ref", "--quiet", "--short", "HEAD"])),
            Step::ListBranches => Ok(git(&stack_git::branches()
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>())),
            Step::CreateBranch(i) => {
                let branch = commit
                    .stack
                    .as_ref()
                    .map(|s| s.chapters[*i].branch.as_str());
                let sha = commit.commits.get(*i).map(|c| c.sha.as_str());
                Ok(Command {
                    program: "git",
                    args: stack_git::create_branch(
                        branch.unwrap_or_default(),
                        sha.unwrap_or_default(),
                    ),
                    env: Vec::new(),
                })
            }
            Step::ResetRealIndex(paths) => {
                let mut args = vec!["reset", "--quiet", "--"];
                args.extend(paths.iter().map(String::as_str));
                Ok(git(&args))
            }
            Step::Cleanup => Ok(Command {
                program: "rm",
                args: vec![
                    "-f".to_owned(),
                    commit.index_path.clone(),
                    format!("{}.patch", commit.index_path),
                ],
                env: Vec::new(),
            }),
        };
        // A step with nothing to do (no paths) is skipped.
        if matches!(&step, Step::AddWhole(p) | Step::ResetRealIndex(p) if p.is_empty())
            || (matches!(step, Step::Cleanup) && commit.index_path.is_empty())
        {
            return self.next_commit_step();
        }
        let root = commit.root.clone();
        match command {
            Ok(command) => {
                let id = self.spawn(
                    Owner::Commit,
                    command.program,
                    command.args,
                    root,
                    command.env,
                );
                if let Some(commit) = self.commit.as_mut() {
                    commit.commands.start(id, step, None);
                }
            }
            Err((path, bytes)) => {
                let id = self.effect_id(Owner::Commit);
                if let Some(commit) = self.commit.as_mut() {
                    commit.writing = Some(id);
                }
                self.outputs
                    .push_back(Output::WriteFile { id, path, bytes });
            }
        }
    }
}

/// A command of the script.
struct Command {
    program: &'static str,
    args: Vec<String>,
    env: Vec<(String, String)>,
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
        for file in &review.files {
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

/// Appends `hunks` of `file` to `patch` as a unified diff git can apply.
fn write_patch(patch: &mut String, file: &ReviewFile, hunks: &[&Hunk]) {
    let _ = writeln!(
        patch,
        "diff --git a/{0} b/{0}\n--- a/{0}\n+++ b/{0}",
        file.path
    );
    for hunk in hunks {
        let _ = writeln!(
            patch,
            "@@ -{},{} +{},{} @@",
            hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
        );
        for line in &hunk.lines {
            let sign = match line.kind {
                LineKind::Context => ' ',
                LineKind::Add => '+',
                LineKind::Del => '-',
            };
            let _ = writeln!(patch, "{sign}{}", line.text);
            if line.no_newline {
                patch.push_str("\\ No newline at end of file\n");
            }
        }
    }
}
