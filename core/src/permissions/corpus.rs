//! The checked-in attack corpus (`attacks.txt`): commands that must be denied or asked about,
//! grouped in sections that name the rules in force. Core's tests decide every line in every
//! mode; the end-to-end tests run them through the binary.

/// What a section demands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Denied in every mode.
    Deny,
    /// Asks in every mode but bypass, which allows it; denied when read-only.
    GithubWrite,
    /// Asks in every mode, bypass too; denied when read-only or under a bash deny rule.
    Unknown,
    /// Allowed in every mode but read-only.
    Allow,
    /// Asks in every mode but read-only.
    Ask,
}

/// One section: its rules and its lines.
#[derive(Debug, Clone)]
pub struct Section {
    /// What must happen to every line.
    pub expect: Expect,
    /// Deny rules in force.
    pub deny: Vec<String>,
    /// Allow rules in force.
    pub allow: Vec<String>,
    /// Ask rules in force.
    pub ask: Vec<String>,
    /// The commands, `␤` turned into newlines.
    pub lines: Vec<String>,
}

/// The corpus, parsed.
pub fn sections() -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    for line in include_str!("attacks.txt").lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // A header is `[` and a lowercase word; `[[ … ]]` is a command.
        let header = line
            .strip_prefix('[')
            .filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()))
            .and_then(|l| l.strip_suffix(']'));
        if let Some(header) = header {
            let (kind, rest) = header.split_once(' ').unwrap_or((header, ""));
            // Rules hold spaces (`bash(rm *)`): each ends at its `)`.
            let rules: Vec<String> = rest
                .split_inclusive(')')
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_owned)
                .collect();
            let (expect, deny, allow, ask) = match kind {
                "deny" => (Expect::Deny, rules, vec![], vec![]),
                "github" => (Expect::GithubWrite, vec![], rules, vec![]),
                "unknown" => (Expect::Unknown, vec![], vec!["bash(*)".to_owned()], vec![]),
                "env" => (Expect::Deny, vec![], vec!["bash(*)".to_owned()], vec![]),
                "allow" => (Expect::Allow, vec![], rules, vec![]),
                "ask" => (Expect::Ask, vec![], vec![], rules),
                // A section this parser does not know must fail the tests, not vanish.
                other => panic!("attacks.txt: unknown section {other:?}"),
            };
            sections.push(Section {
                expect,
                deny,
                allow,
                ask,
                lines: Vec::new(),
            });
        } else if let Some(section) = sections.last_mut() {
            section.lines.push(line.replace('␤', "\n"));
        }
    }
    sections
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::rules::Rule;
    use crate::permissions::{Decision, Permissions, RuleSet, Target};
    use crate::protocol::values::PermissionMode::{self, *};

    fn kind(d: &Decision) -> &'static str {
        match d {
            Decision::Allow => "allow",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        }
    }

    fn want(expect: Expect, mode: PermissionMode) -> &'static str {
        match (expect, mode) {
            (Expect::Deny, _) | (_, ReadOnly) => "deny",
            (Expect::GithubWrite, Bypass) | (Expect::Allow, _) => "allow",
            (Expect::GithubWrite | Expect::Unknown | Expect::Ask, _) => "ask",
        }
    }

    fn rules(list: &[String]) -> Vec<Rule> {
        list.iter().map(|r| Rule::parse(r).unwrap()).collect()
    }

    #[test]
    fn every_line_in_every_mode() {
        let sections = sections();
        assert!(sections.len() >= 7);
        let mut failures = Vec::new();
        for section in &sections {
            let set = RuleSet {
                deny: rules(&section.deny),
                ask: rules(&section.ask),
                allow: rules(&section.allow),
            };
            for mode in [Default, AcceptEdits, Bypass, ReadOnly] {
                let p = Permissions::new(mode, set.clone()).in_dir("/work/app");
                for line in &section.lines {
                    let got = p.decide("bash", &Target::Command(line.clone()));
                    if kind(&got) != want(section.expect, mode) {
                        failures.push(format!("{:?} {mode:?} {line:?}: {got:?}", section.expect));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn unknown_lines_are_denied_under_any_bash_deny_rule() {
        let set = RuleSet {
            deny: rules(&["bash(cargo publish*)".to_owned()]),
            ..RuleSet::default()
        };
        for section in sections().iter().filter(|s| s.expect == Expect::Unknown) {
            for mode in [Default, AcceptEdits, Bypass] {
                let p = Permissions::new(mode, set.clone());
                for line in &section.lines {
                    let got = p.decide("bash", &Target::Command(line.clone()));
                    assert_eq!(kind(&got), "deny", "{mode:?} {line:?}");
                }
            }
        }
    }
}
