//! A line of bytes becomes an [`Action`] or the exact rejection of design §1's bad-input table;
//! an [`Event`] becomes one line of JSON.

use std::convert::Infallible;

use serde_json::Value;

use super::actions::Action;
use super::events::{ActionRejected, Event, RequestFailed};
use super::hand_json;
use super::kinds::known_action;
use super::unique_keys::UniqueKeys;

/// A line that decoded to something luxe recognises.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    /// `content.request_id` when it is a string, so any answer can echo it.
    pub request_id: Option<String>,
    /// What the line asks for.
    pub action: Action,
}

/// Why a line cannot be acted on; becomes one `action_rejected`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// The line's kind, when it had a readable one.
    pub kind: Option<String>,
    /// The reason, shaped as design §1 says.
    pub reason: String,
    /// The line's readable `content.request_id`.
    pub request_id: Option<String>,
}

impl Rejection {
    /// A rejection of a line whose kind could not be read.
    pub fn malformed(detail: impl std::fmt::Display) -> Self {
        Self {
            kind: None,
            reason: format!("malformed frame: {detail}"),
            request_id: None,
        }
    }

    /// The rejection of a line longer than the frame limit.
    pub fn too_long() -> Self {
        Self {
            kind: None,
            reason: "frame too long".to_owned(),
            request_id: None,
        }
    }

    /// The event that answers this rejection: `action_rejected`, except for an `edit_review`
    /// whose `request_id` could be read, which is answered `review_session_save_failed` (every
    /// `edit_review` is answered once under its `request_id`, saved or save_failed).
    pub fn into_event(self) -> Event {
        match (self.kind.as_deref(), self.request_id) {
            (Some("edit_review"), Some(request_id)) => {
                Event::ReviewSessionSaveFailed(RequestFailed {
                    request_id,
                    reason: self.reason,
                })
            }
            (_, request_id) => Event::ActionRejected(ActionRejected {
                kind: self.kind,
                reason: self.reason,
                request_id,
            }),
        }
    }
}

/// Decodes one line (without its LF). `Ok(None)` is a blank line, which is ignored.
pub fn decode(line: &[u8]) -> Result<Option<Incoming>, Rejection> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let text = std::str::from_utf8(line).map_err(|err| {
        Rejection::malformed(format_args!("invalid UTF-8 at byte {}", err.valid_up_to()))
    })?;
    let UniqueKeys(frame) = serde_json::from_str(text).map_err(Rejection::malformed)?;
    let Value::Object(mut frame) = frame else {
        return Err(Rejection::malformed(format_args!(
            "expected a JSON object, got {}",
            json_type(&frame)
        )));
    };
    let content = frame.remove("content").unwrap_or(Value::Null);
    let request_id = match &content {
        Value::Object(fields) => fields
            .get("request_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    };
    // A frame without a usable kind still echoes its readable request_id.
    let malformed = |detail: std::fmt::Arguments<'_>| Rejection {
        request_id: request_id.clone(),
        ..Rejection::malformed(detail)
    };
    let kind = match frame.get("kind") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(other) => {
            return Err(malformed(format_args!(
                "`kind` must be a string, got {}",
                json_type(other)
            )));
        }
        None => return Err(malformed(format_args!("missing string field `kind`"))),
    };
    let reject = |reason: String| Rejection {
        kind: Some(kind.to_owned()),
        reason,
        request_id: request_id.clone(),
    };
    let Some(known) = known_action(kind) else {
        return Err(reject(format!("unknown kind {kind:?}")));
    };
    let content = match content {
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(_) => content,
        other => {
            return Err(reject(format!(
                "{known}: content must be an object, got {}",
                json_type(&other)
            )));
        }
    };
    let action = match Action::decode_content(known, content) {
        Some(Ok(action)) => action,
        Some(Err(err)) => return Err(reject(format!("{known}: {err}"))),
        // A kind the catalogue has and this build does not type (none today: a test holds
        // the two lists equal).
        None => return Err(reject("not supported by this build yet".into())),
    };
    Ok(Some(Incoming { request_id, action }))
}

/// Appends `event` as one line of JSON, LF included.
pub fn encode(event: &Event, out: &mut Vec<u8>) {
    let Ok(()) = encode_in_parts::<Infallible>(event, out, &mut |_| Ok(()));
}

/// Appends `event` as one line of JSON, LF included, as [`encode`] does; while it writes a
/// review (tens of MB for a large one) it hands `out` to `part` between hunks, so that a
/// writer can send what is there and empty it rather than hold the whole frame. An error from
/// `part` stops the encoding and is returned. Frames leave core encoded by
/// [`crate::effects::Frame`], which redacts what this writes.
pub(crate) fn encode_in_parts<E>(
    event: &Event,
    out: &mut Vec<u8>,
    part: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let kind = event.kind();
    match event {
        // The hottest frames (one per streamed token) and the largest (a review) skip serde's
        // generic map machinery; tests hold them byte-identical to what serde writes.
        Event::TokenDelta(delta) | Event::ThinkingDelta(delta) => {
            hand_json::delta(out, kind, delta)
        }
        Event::GuidedReviewLoaded(loaded) => {
            let request_id = Some(loaded.request_id.as_str());
            hand_json::review(out, kind, request_id, &loaded.review, part)?;
        }
        Event::GuidedReviewUpdated(updated) => {
            hand_json::review(out, kind, None, &updated.review, part)?;
        }
        // Events hold only strings, numbers, bools and string-keyed maps, which always
        // serialize.
        #[allow(clippy::expect_used)]
        _ => serde_json::to_writer(&mut *out, event).expect("events always serialize"),
    }
    out.push(b'\n');
    Ok(())
}

/// What kind of JSON `value` is, with its article ("a string", "an array"), for messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::actions::SteerTurn;
    use crate::protocol::events::{ErrorEvent, TokenDelta};

    fn rejected(line: &str) -> Rejection {
        decode(line.as_bytes()).expect_err("the line should be rejected")
    }

    fn action(line: &str) -> Action {
        match decode(line.as_bytes()) {
            Ok(Some(Incoming { action, .. })) => action,
            other => panic!("expected an action, got {other:?}"),
        }
    }

    // Design §1, row "not JSON".
    #[test]
    fn not_json_is_malformed_with_position() {
        let r = rejected("{\"kind\": nope}");
        assert_eq!(r.kind, None);
        assert!(r.reason.starts_with("malformed frame: "), "{}", r.reason);
        assert!(r.reason.contains("line 1 column 11"), "{}", r.reason);
    }

    // Design §1, row "invalid UTF-8".
    #[test]
    fn invalid_utf8_is_malformed_with_offset() {
        let r = decode(b"{\"kind\":\"close\xff\"}").unwrap_err();
        assert_eq!(r.kind, None);
        assert_eq!(r.reason, "malformed frame: invalid UTF-8 at byte 14");
    }

    // Design §1, row "JSON but not an object".
    #[test]
    fn non_object_is_malformed() {
        for (line, got) in [
            ("[1,2]", "an array"),
            ("42", "a number"),
            ("\"close\"", "a string"),
        ] {
            let r = rejected(line);
            assert_eq!(r.kind, None);
            assert_eq!(
                r.reason,
                format!("malformed frame: expected a JSON object, got {got}")
            );
        }
    }

    // Design §1, row "no string kind".
    #[test]
    fn missing_or_non_string_kind_is_malformed() {
        let r = rejected(r#"{"content":{"request_id":"r1"}}"#);
        assert_eq!(r.reason, "malformed frame: missing string field `kind`");
        assert_eq!(r.kind, None);
        let r = rejected(r#"{"kind":7}"#);
        assert_eq!(
            r.reason,
            "malformed frame: `kind` must be a string, got a number"
        );
    }

    #[test]
    fn a_frame_naming_a_key_twice_is_malformed() {
        let r = rejected(r#"{"kind":"close","kind":"submit_user_message"}"#);
        assert_eq!(r.kind, None);
        assert!(
            r.reason
                .starts_with("malformed frame: duplicate key `kind`"),
            "{}",
            r.reason
        );
        let r = rejected(
            r#"{"kind":"respond_permission","content":{"id":"p1","reply":"once","reply":"always"}}"#,
        );
        assert!(r.reason.contains("duplicate key `reply`"), "{}", r.reason);
    }

    // Design §1, row "unknown kind".
    #[test]
    fn unknown_kind_names_the_kind() {
        let r = rejected(r#"{"kind":"fly","content":{"request_id":"r9"}}"#);
        assert_eq!(r.kind.as_deref(), Some("fly"));
        assert_eq!(r.reason, "unknown kind \"fly\"");
        assert_eq!(r.request_id.as_deref(), Some("r9"));
    }

    // Design §1, row "known kind, bad content": the seed's exact example.
    #[test]
    fn bad_content_carries_serde_message_prefixed_by_kind() {
        let r = rejected(r#"{"kind":"steer_turn","content":{}}"#);
        assert_eq!(r.kind.as_deref(), Some("steer_turn"));
        assert_eq!(r.reason, "steer_turn: missing field `text`");
        let r = rejected(r#"{"kind":"set_mode","content":{"mode":"fast"}}"#);
        assert_eq!(
            r.reason,
            "set_mode: unknown variant `fast`, expected `build` or `plan`"
        );
        let r = rejected(r#"{"kind":"close","content":[1]}"#);
        assert_eq!(r.reason, "close: content must be an object, got an array");
    }

    #[test]
    fn a_frame_without_a_usable_kind_echoes_its_request_id() {
        for line in [
            r#"{"content":{"request_id":"nk"}}"#,
            r#"{"kind":5,"content":{"request_id":"nk"}}"#,
        ] {
            let r = rejected(line);
            assert_eq!(
                (r.kind, r.request_id.as_deref()),
                (None, Some("nk")),
                "{line}"
            );
        }
    }

    #[test]
    fn an_edit_review_that_makes_no_edit_is_answered_save_failed_under_its_request_id() {
        for (content, reason) in [
            (
                r#"{"request_id":"ne","review_id":"review:r"}"#,
                "edit_review: missing field `edit`",
            ),
            (
                r#"{"request_id":"ne","edit":"resolve","comment_id":"c"}"#,
                "edit_review: missing field `review_id`",
            ),
            (
                r#"{"request_id":"ne","review_id":"r","edit":"comment","body":"b","anchor":{"kind":"file","file_id":"f"}}"#,
                "edit_review: missing field `severity`",
            ),
        ] {
            let line = format!(r#"{{"kind":"edit_review","content":{content}}}"#);
            let failed = RequestFailed {
                request_id: "ne".into(),
                reason: reason.into(),
            };
            assert_eq!(
                rejected(&line).into_event(),
                Event::ReviewSessionSaveFailed(failed)
            );
        }
        // Without a readable request_id there is nothing to answer under.
        let r = rejected(r#"{"kind":"edit_review","content":{"request_id":7}}"#);
        assert!(matches!(r.into_event(), Event::ActionRejected(_)));
    }

    #[test]
    fn fields_a_newer_luxe_knows_are_ignored_at_every_depth() {
        let line = r#"{"kind":"edit_review","zz":1,"content":{"request_id":"e","review_id":"r","edit":"comment","body":"b","severity":"issue","zzz":[1],"anchor":{"kind":"line","file_id":"f","hunk_id":"h","side":"new","line":3,"zzz":{"a":1}}}}"#;
        assert!(matches!(
            decode(line.as_bytes()),
            Ok(Some(Incoming {
                action: Action::EditReview(_),
                ..
            }))
        ));
        let load = r#"{"kind":"load_guided_review","content":{"request_id":"l","target":{"kind":"branch","base":"main","zzz":true}}}"#;
        assert!(matches!(decode(load.as_bytes()), Ok(Some(_))), "{load}");
    }

    // Design §1, row "frame too long" (the splitter finds it; this is its wording).
    #[test]
    fn too_long_reason() {
        let r = Rejection::too_long();
        assert_eq!((r.kind, r.reason.as_str()), (None, "frame too long"));
    }

    #[test]
    fn blank_lines_are_ignored() {
        assert_eq!(decode(b""), Ok(None));
        assert_eq!(decode(b"  \t"), Ok(None));
        assert_eq!(decode(b"\r"), Ok(None));
    }

    #[test]
    fn trailing_cr_is_stripped() {
        assert_eq!(action("{\"kind\":\"close\"}\r"), Action::Close);
    }

    #[test]
    fn unknown_fields_are_ignored_and_null_content_is_no_payload() {
        assert_eq!(
            action(r#"{"kind":"steer_turn","extra":1,"content":{"text":"go","x":[1]}}"#),
            Action::SteerTurn(SteerTurn { text: "go".into() })
        );
        assert_eq!(action(r#"{"kind":"close","content":null}"#), Action::Close);
        assert_eq!(action(r#"{"kind":"close"}"#), Action::Close);
    }

    #[test]
    fn unicode_separators_are_ordinary_characters() {
        let line = "{\"kind\":\"steer_turn\",\"content\":{\"text\":\"a\u{2028}b\u{2029}\"}}";
        assert_eq!(
            action(line),
            Action::SteerTurn(SteerTurn {
                text: "a\u{2028}b\u{2029}".into()
            })
        );
    }

    #[test]
    fn request_id_is_echoed_only_when_a_string() {
        let r = rejected(r#"{"kind":"list_models","content":{"request_id":5}}"#);
        assert_eq!(r.request_id, None);
        let r = rejected(r#"{"kind":"compact","content":{"request_id":"c1","instructions":3}}"#);
        assert_eq!(r.request_id.as_deref(), Some("c1"));
    }

    #[test]
    fn every_kind_of_the_catalogue_is_typed() {
        let typed: std::collections::BTreeSet<&str> = Action::KINDS.iter().copied().collect();
        let catalogue: std::collections::BTreeSet<&str> =
            super::super::kinds::ACTION_KINDS.iter().copied().collect();
        assert_eq!(typed, catalogue);
    }

    #[test]
    fn a_frame_without_payload_leaves_out_content() {
        let json = serde_json::to_string(&Action::Close).unwrap();
        assert_eq!(json, r#"{"kind":"close"}"#);
    }

    #[test]
    fn encode_writes_one_line_with_kind_and_content() {
        let mut out = Vec::new();
        encode(
            &Event::Error(ErrorEvent {
                message: "x".into(),
            }),
            &mut out,
        );
        assert_eq!(
            out,
            b"{\"kind\":\"error\",\"content\":{\"message\":\"x\"}}\n"
        );
    }

    quickcheck::quickcheck! {
        fn hand_encoded_deltas_match_serde(block: u32, text: String, thinking: bool) -> bool {
            let delta = TokenDelta { block, delta: text };
            let event = if thinking { Event::ThinkingDelta(delta) } else { Event::TokenDelta(delta) };
            let mut ours = Vec::new();
            encode(&event, &mut ours);
            let mut theirs = serde_json::to_vec(&event).unwrap();
            theirs.push(b'\n');
            ours == theirs
        }
    }

    #[test]
    fn every_typed_action_is_in_the_catalogue() {
        for kind in Action::KINDS {
            assert!(known_action(kind).is_some(), "{kind}");
        }
        for kind in Event::KINDS {
            assert!(super::super::kinds::EVENT_KINDS.contains(kind), "{kind}");
        }
    }
}
