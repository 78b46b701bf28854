//! `/review`'s words: which diff to read (`working-tree`, `staged`, `branch [BASE]`,
//! `commits FROM..TO`, `pr N`), as the protocol's `load_guided_review` target, and the same
//! target in words for the view's heading.

use luxe_core::protocol::guided_review::ReviewTarget;

/// What `/review` says when its words name no target.
const USAGE: &str = "/review takes working-tree, staged, branch [BASE], commits FROM..TO or pr N";

/// The target `words` (what follows `/review`) name: `Ok(None)` for none (the open review, or
/// the working tree), `Err` with how to write one.
pub(crate) fn parse_target(words: &str) -> Result<Option<ReviewTarget>, String> {
    let words: Vec<&str> = words.split_whitespace().collect();
    let target = match words.as_slice() {
        [] => return Ok(None),
        ["working-tree" | "working_tree"] => ReviewTarget::WorkingTree,
        ["staged"] => ReviewTarget::Staged,
        ["branch"] => ReviewTarget::Branch { base: None },
        ["branch", base] => ReviewTarget::Branch {
            base: Some((*base).to_owned()),
        },
        ["commits", range] => match range.split_once("..") {
            Some((from, to)) if !from.is_empty() && !to.is_empty() && !to.starts_with('.') => {
                ReviewTarget::Commits {
                    from: from.to_owned(),
                    to: to.to_owned(),
                }
            }
            _ => return Err(format!("{USAGE} (not commits {range})")),
        },
        ["pr", number] => match number.trim_start_matches('#').parse() {
            Ok(number) => ReviewTarget::PullRequest {
                number,
                repository: None,
            },
            Err(_) => return Err(format!("{USAGE} (pr takes a number, not {number})")),
        },
        _ => return Err(USAGE.to_owned()),
    };
    Ok(Some(target))
}

/// `target` in a few words: `working tree`, `branch against main`, `pull request #7`.
pub(crate) fn describe(target: &ReviewTarget) -> String {
    match target {
        ReviewTarget::WorkingTree => "working tree".to_owned(),
        ReviewTarget::Staged => "staged changes".to_owned(),
        ReviewTarget::Branch { base: None } => "branch against its base".to_owned(),
        ReviewTarget::Branch { base: Some(base) } => format!("branch against {base}"),
        ReviewTarget::Commits { from, to } => format!("commits {from}..{to}"),
        ReviewTarget::PullRequest { number, .. } => format!("pull request #{number}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_target_is_read_from_its_words_and_a_wrong_one_says_how() {
        assert_eq!(parse_target(""), Ok(None));
        assert_eq!(
            parse_target("working-tree"),
            Ok(Some(ReviewTarget::WorkingTree))
        );
        assert_eq!(parse_target(" staged "), Ok(Some(ReviewTarget::Staged)));
        assert_eq!(
            parse_target("branch"),
            Ok(Some(ReviewTarget::Branch { base: None }))
        );
        assert_eq!(
            parse_target("branch develop"),
            Ok(Some(ReviewTarget::Branch {
                base: Some("develop".into())
            }))
        );
        assert_eq!(
            parse_target("commits HEAD~2..HEAD"),
            Ok(Some(ReviewTarget::Commits {
                from: "HEAD~2".into(),
                to: "HEAD".into()
            }))
        );
        assert_eq!(
            parse_target("pr #12"),
            Ok(Some(ReviewTarget::PullRequest {
                number: 12,
                repository: None
            }))
        );
        for wrong in [
            "commits HEAD",
            "commits a...b",
            "pr twelve",
            "everything",
            "staged now",
        ] {
            let refused = parse_target(wrong).expect_err(wrong);
            assert!(refused.starts_with("/review takes"), "{wrong}: {refused}");
        }
    }
}
