//! The save queue against a reference model: whatever the order of changes, steps and write
//! results, changes are answered in the order they came, one write at a time, and only what was
//! written counts.

use super::*;
use crate::protocol::guided_review::ReviewTarget;
use quickcheck::{Arbitrary, Gen, quickcheck};

fn review() -> Review {
    Review {
        id: "review:r".into(),
        revision_id: "rev".into(),
        target: ReviewTarget::WorkingTree,
        files: Vec::new(),
        hunks: Vec::new(),
        chapters: Vec::new(),
    }
}

fn note(n: usize) -> Change {
    Change::Note {
        body: format!("note {n}"),
    }
}

fn which(change: &Change) -> String {
    match change {
        Change::Note { body } => body.clone(),
        Change::Edit { request_id, .. } => request_id.clone(),
        other => format!("{other:?}"),
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// A change that applies (`true`) or one that is refused as it is applied.
    Push(bool),
    /// The session asks for the next change and writes it.
    Step,
    /// The write in flight ends, well or not.
    Written(bool),
}

impl Arbitrary for Op {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 3 {
            0 => Self::Push(bool::arbitrary(g)),
            1 => Self::Step,
            _ => Self::Written(bool::arbitrary(g)),
        }
    }
}

quickcheck! {
    fn changes_are_answered_in_order_one_write_at_a_time(ops: Vec<Op>) -> bool {
        let review = review();
        let mut saves = ReviewSaves::default();
        let mut stored = Stored::new("review:r");
        let (mut pushed, mut answered) = (Vec::new(), Vec::new());
        let mut in_flight: Option<(EffectId, u64)> = None;
        let mut next_id = 0;
        for op in ops {
            match op {
                Op::Push(applies) => {
                    let n = pushed.len();
                    let change = if applies {
                        note(n)
                    } else {
                        Change::Edit {
                            request_id: format!("edit {n}"),
                            // No such finding: refused when applied.
                            edit: ReviewEdit::Resolve {
                                comment_id: "finding_none".into(),
                            },
                        }
                    };
                    pushed.push(which(&change));
                    saves.push(change);
                }
                Op::Step => match saves.next(&stored, &review, 5) {
                    None => {}
                    Some(_) if in_flight.is_some() => return false,
                    Some(Err(refused)) => answered.push(which(&refused.change)),
                    Some(Ok(kept)) => {
                        // Applied to what is on disk: one revision more.
                        if kept.next.session.revision != stored.session.revision + 1 {
                            return false;
                        }
                        next_id += 1;
                        in_flight = Some((EffectId(next_id), kept.next.session.revision));
                        saves.writing(EffectId(next_id), kept);
                    }
                },
                Op::Written(ok) => {
                    // A result for a write not in flight is nobody's.
                    if saves.written(EffectId(next_id + 1), Ok(())).is_some() {
                        return false;
                    }
                    let Some((id, revision)) = in_flight.take() else {
                        continue;
                    };
                    let result = if ok { Ok(()) } else { Err("disk full".into()) };
                    match saves.written(id, result) {
                        Some(Ok(kept)) if ok => {
                            if kept.next.session.revision != revision {
                                return false;
                            }
                            answered.push(which(&kept.change));
                            stored = kept.next;
                        }
                        Some(Err(refused)) if !ok => {
                            if !refused.reason.contains("disk full") {
                                return false;
                            }
                            answered.push(which(&refused.change));
                        }
                        _ => return false,
                    }
                }
            }
        }
        let queued: Vec<String> = saves.take_queued().iter().map(which).collect();
        let written = in_flight.is_some() as usize;
        answered.len() + written + queued.len() == pushed.len()
            && pushed[..answered.len()] == answered[..]
            && pushed[answered.len() + written..] == queued[..]
    }
}

#[test]
fn an_agent_review_request_starts_the_agent_once_saved() {
    let mut saves = ReviewSaves::default();
    saves.push(Change::AgentReviewRequested {
        request_id: "r1".into(),
    });
    let Some(Ok(kept)) = saves.next(&Stored::new("review:r"), &review(), 5) else {
        panic!("the request applies");
    };
    assert_eq!(kept.work, Some(ReviewWork::Review));
    assert_eq!(kept.next.session.revision, 1);
    assert!(
        saves.next(&Stored::new("review:r"), &review(), 5).is_none(),
        "nothing queued"
    );
}
