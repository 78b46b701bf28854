//! `preview_stack` as a flow: find the stack (given, committed last, or HEAD's line), read
//! each branch's commits over the one below, and draft one pull request per branch.

use std::collections::BTreeMap;

use super::chain::stack_of_head;
use super::describe::{Entry, with_stack};
use super::git;
use super::refs::parse_refs;
use crate::github::{gh, parse};
use crate::protocol::stack::StackDraft;
use crate::steps::{Cmd, Flow, Next, Ran};

/// A branch `commit_review_chapters{stack: true}` made, with its chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedBranch {
    /// The branch's name, as `commit_review_chapters` created it.
    pub branch: String,
    /// The chapter's title.
    pub title: String,
    /// The chapter's summary.
    pub summary: String,
}

#[derive(Debug)]
enum Phase {
    Line,
    Branches(Vec<String>),
    Log(usize),
}

/// A preview being drafted.
#[derive(Debug)]
pub struct PreviewFlow {
    default_branch: String,
    current: Option<String>,
    chapters: BTreeMap<String, CommittedBranch>,
    branches: Vec<String>,
    commits: Vec<Vec<(String, String)>>,
    phase: Phase,
}

impl PreviewFlow {
    /// `branches` as asked (bottom first), else `committed`, else HEAD's line is read.
    pub fn new(
        branches: Option<Vec<String>>,
        committed: Option<&[CommittedBranch]>,
        default_branch: String,
        current: Option<String>,
    ) -> Self {
        let chapters: BTreeMap<String, CommittedBranch> = committed
            .unwrap_or_default()
            .iter()
            .map(|c| (c.branch.clone(), c.clone()))
            .collect();
        let known =
            branches.or_else(|| committed.map(|c| c.iter().map(|b| b.branch.clone()).collect()));
        let phase = if known.is_some() {
            Phase::Log(0)
        } else {
            Phase::Line
        };
        Self {
            default_branch,
            current,
            chapters,
            branches: known.unwrap_or_default(),
            commits: Vec::new(),
            phase,
        }
    }

    /// Each branch's head as previewed (its newest commit), bottom first.
    pub fn heads(&self) -> Vec<String> {
        self.commits
            .iter()
            .filter_map(|c| c.last().map(|(sha, _)| sha.clone()))
            .collect()
    }

    fn base_of(&self, i: usize) -> String {
        match i {
            0 => self.default_branch.clone(),
            _ => self.branches[i - 1].clone(),
        }
    }

    fn next_log(&mut self) -> Next<Result<Vec<StackDraft>, String>> {
        if self.branches.is_empty() {
            return Next::Done(Err(format!(
                "no stack here: HEAD has no local branches above {} (name them with branches)",
                self.default_branch
            )));
        }
        let i = self.commits.len();
        self.phase = Phase::Log(i);
        if i < self.branches.len() {
            let base = match i {
                0 => format!("origin/{}", self.default_branch),
                _ => self.branches[i - 1].clone(),
            };
            return Next::Run(Cmd::git(gh::git_log(&base, &self.branches[i])));
        }
        Next::Done(Ok(self.drafts()))
    }

    fn drafts(&self) -> Vec<StackDraft> {
        let entries: Vec<Entry<'_>> = self
            .branches
            .iter()
            .map(|b| Entry {
                branch: b,
                number: None,
            })
            .collect();
        self.branches
            .iter()
            .zip(&self.commits)
            .enumerate()
            .map(|(i, (branch, commits))| {
                let chapter = self.chapters.get(branch);
                let title = match (chapter, commits.as_slice()) {
                    (Some(chapter), _) => chapter.title.clone(),
                    (None, [(_, subject)]) => subject.clone(),
                    (None, _) => branch.replace(['-', '_', '/'], " "),
                };
                let mut own = chapter
                    .map(|c| format!("{}\n\n", c.summary))
                    .unwrap_or_default();
                own.push_str("## Commits\n");
                for (sha, subject) in commits {
                    own.push_str(&format!("- {subject} ({})\n", parse::short_sha(sha)));
                }
                StackDraft {
                    branch: branch.clone(),
                    base: self.base_of(i),
                    title,
                    description: with_stack(&own, &entries, i),
                }
            })
            .collect()
    }
}

impl Flow for PreviewFlow {
    type Output = Result<Vec<StackDraft>, String>;

    /// The first command, or the answer when none is needed.
    fn start(&mut self) -> Next<Self::Output> {
        if matches!(self.phase, Phase::Line) {
            return Next::Run(Cmd::git(git::first_parent_line(&self.default_branch)));
        }
        self.next_log()
    }

    /// Takes the last command's end.
    fn on(&mut self, ran: Ran) -> Next<Self::Output> {
        let stdout = match ran.result {
            Ok(stdout) => stdout,
            Err(reason) => return Next::Done(Err(format!("git: {reason}"))),
        };
        match std::mem::replace(&mut self.phase, Phase::Log(0)) {
            Phase::Line => {
                let line = stdout.lines().map(str::to_owned).collect();
                self.phase = Phase::Branches(line);
                Next::Run(Cmd::git(git::branches()))
            }
            Phase::Branches(line) => {
                let refs = parse_refs(&stdout);
                self.branches = stack_of_head(
                    &line,
                    &refs.local,
                    self.current.as_deref(),
                    &self.default_branch,
                );
                self.next_log()
            }
            Phase::Log(i) => {
                let commits = parse::commits(&stdout);
                if commits.is_empty() {
                    return Next::Done(Err(format!(
                        "{} has no commits over {}: a pull request needs at least one",
                        self.branches[i],
                        self.base_of(i)
                    )));
                }
                self.commits.push(commits);
                self.phase = Phase::Log(i + 1);
                self.next_log()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(flow: &mut PreviewFlow, answers: &[&str]) -> Result<Vec<StackDraft>, String> {
        let mut next = flow.start();
        let mut answers = answers.iter();
        loop {
            match next {
                Next::Run(_) => next = flow.on(Ran::ok(*answers.next().expect("an answer"))),
                Next::Write(_) => unreachable!("a preview writes no file"),
                Next::Done(done) => return done,
            }
        }
    }

    #[test]
    fn heads_line_gives_the_stack_and_each_gets_its_commits() {
        let mut flow = PreviewFlow::new(None, None, "main".into(), Some("b".into()));
        let drafts = run(
            &mut flow,
            &[
                "c2\nc1\n",
                "refs/heads/a\0c1\nrefs/heads/b\0c2\nrefs/heads/main\0c0\n",
                "c1aaaaaaaa\0Add parser\x1e",
                "c2bbbbbbbb\0Use parser\x1e",
            ],
        )
        .unwrap();
        assert_eq!(drafts.len(), 2);
        assert_eq!(
            (drafts[0].branch.as_str(), drafts[0].base.as_str()),
            ("a", "main")
        );
        assert_eq!(
            (drafts[1].branch.as_str(), drafts[1].base.as_str()),
            ("b", "a")
        );
        assert_eq!(drafts[0].title, "Add parser");
        assert!(drafts[1].description.contains("2. `b` ← this pull request"));
    }

    #[test]
    fn committed_chapters_title_the_drafts_and_empty_branches_are_refused() {
        let committed = [CommittedBranch {
            branch: "x-1-parser".into(),
            title: "Parser".into(),
            summary: "The parser.".into(),
        }];
        let mut flow = PreviewFlow::new(None, Some(&committed), "main".into(), None);
        let drafts = run(&mut flow, &["c1aaaaaaaa\0one\x1ec2bbbbbbbb\0two\x1e"]).unwrap();
        assert_eq!(drafts[0].title, "Parser");
        assert!(
            drafts[0]
                .description
                .starts_with("The parser.\n\n## Commits\n- one (c1aaaaa)")
        );
        let mut empty = PreviewFlow::new(Some(vec!["z".into()]), None, "main".into(), None);
        assert!(
            run(&mut empty, &[""])
                .unwrap_err()
                .contains("no commits over main")
        );
    }
}
