//! The fuzz targets' bodies: the codec, the whole core through [`Checked`], the stack flows and
//! the shell analysis, each asserting what must hold for any input.

use std::collections::BTreeMap;
use std::time::Instant;

use super::{Checked, check_line, test_config};
use crate::effects::Output;
use crate::protocol::codec::{decode, encode};
use crate::protocol::events::Event;

/// Fuzz body for the codec: decoding never panics, a decoded action survives a round trip
/// through its own serialization, and a rejection encodes as one line of JSON.
pub fn codec(data: &[u8]) {
    match decode(data) {
        Ok(None) => {}
        Ok(Some(incoming)) => {
            let action = incoming.action;
            let again = serde_json::to_vec(&action).expect("actions serialize");
            match decode(&again) {
                Ok(Some(back)) => assert_eq!(back.action, action),
                other => panic!("round trip of {action:?} gave {other:?}"),
            }
        }
        Err(rejection) => {
            let mut line = Vec::new();
            encode(&rejection.into_event(), &mut line);
            check_line(&line);
        }
    }
}

/// Fuzz body for the whole core: `data` split on LF is fed line by line to a fresh session,
/// every answer checked; then, unless a line closed it, the session must still answer.
pub fn session(now: Instant, data: &[u8]) {
    let mut config = test_config();
    // Small, so that fuzz inputs reach the over-long-line path.
    config.max_frame_bytes = 256;
    let mut checked = Checked::new(config, now);
    for line in data.split(|b| *b == b'\n') {
        checked.line(line);
    }
    if !checked.is_closed() {
        let out = checked.line(br#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
        assert!(
            matches!(out.as_slice(), [Output::Frame(f)] if matches!(f.event(), Event::StateChanged(_))),
            "the session stopped answering: {out:?}"
        );
    }
}

/// Fuzz body for the stack flows: every flow fed arbitrary command outputs (chunks of `data`
/// split at 0xFF; a chunk's first byte picks success or failure) never panics, and ends once
/// the outputs run out or it answers.
pub fn stack_flows(data: &[u8]) {
    use crate::protocol::stack::{OldHead, RestackMove, StackDraft};
    use crate::stack::open::OpenFlow;
    use crate::stack::plan_flow::{PlanFlow, Planned};
    use crate::stack::preview::PreviewFlow;
    use crate::stack::restack::RestackFlow;
    use crate::steps::{Flow, Next, Ran};

    fn drive<F: Flow>(flow: &mut F, answers: &mut impl Iterator<Item = Ran>) -> Option<F::Output> {
        let mut next = flow.start();
        loop {
            match next {
                Next::Done(done) => return Some(done),
                Next::Run(_) | Next::Write(_) => next = flow.on(answers.next()?),
            }
        }
    }
    let mut answers = data.split(|b| *b == 0xff).map(|chunk| {
        let text = String::from_utf8_lossy(chunk.get(1..).unwrap_or_default()).into_owned();
        if chunk.first().is_some_and(|b| b % 4 == 0) {
            Ran::failed(text)
        } else {
            Ran::ok(text)
        }
    });
    let drafts = match drive(
        &mut PreviewFlow::new(None, None, "main".into(), None),
        &mut answers,
    ) {
        Some(Ok(drafts)) if !drafts.is_empty() => drafts,
        _ => vec![StackDraft {
            branch: "a".into(),
            base: "main".into(),
            title: "t".into(),
            description: "d".into(),
        }],
    };
    let heads = vec!["h".to_owned(); drafts.len()];
    drive(&mut OpenFlow::new(drafts, heads), &mut answers);
    let planned = match drive(&mut PlanFlow::new("main".into()), &mut answers) {
        Some(Ok(planned)) => planned,
        _ => Planned {
            moves: vec![RestackMove {
                branch: "a".into(),
                pull_request: 1,
                old_head: OldHead {
                    local: "l".into(),
                    remote: None,
                },
                old_parent: "p".into(),
                new_parent: "origin/main".into(),
                new_parent_sha: Some("m".into()),
                new_base: "main".into(),
                commits: 1,
            }],
            old_base: BTreeMap::new(),
            checked_out: BTreeMap::new(),
            scratch_dir: data.first().map(|_| "/g".to_owned()),
        },
    };
    drive(&mut RestackFlow::new("f".into(), planned), &mut answers);
}

/// Fuzz body for the shell analysis: any text is analyzed without a panic, and a command
/// built from the same bytes around a denied call (`rm v` under `deny: ["bash(rm *)"]`) is
/// denied in every mode that runs bash.
pub fn shell(data: &[u8]) {
    use crate::permissions::rules::Rule;
    use crate::permissions::{Decision, Permissions, RuleSet, Target};
    use crate::protocol::values::PermissionMode;

    let _ = crate::permissions::shell::analyze(&String::from_utf8_lossy(data));
    let command = crate::permissions::compose::around_denied(data, 8);
    let rules = RuleSet {
        deny: vec![Rule::parse("bash(rm *)").expect("a valid rule")],
        allow: vec![Rule::parse("bash(*)").expect("a valid rule")],
        ..RuleSet::default()
    };
    for mode in [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Bypass,
    ] {
        let decision =
            Permissions::new(mode, rules.clone()).decide("bash", &Target::Command(command.clone()));
        assert!(
            matches!(decision, Decision::Deny { .. }),
            "{mode:?} {command:?}: {decision:?}"
        );
    }
}
