//! A command's output on its own: redaction across chunks, the caps, and the wording of how it
//! ended.

use super::*;
use quickcheck::quickcheck;

const SECRET: &str = "sk-live-9f8e7d6c5b4a";

fn chunk_text(event: Option<Event>) -> String {
    match event {
        Some(Event::ToolOutputDelta(delta)) => delta.chunk,
        None => String::new(),
        Some(other) => panic!("not a delta: {other:?}"),
    }
}

quickcheck! {
    /// However the output is cut into chunks, neither the client nor the model sees the value,
    /// and the client is streamed exactly what the model reads.
    fn a_secret_split_across_chunks_reaches_no_one(before: String, cuts: Vec<u8>) -> bool {
        let redactor = Redactor::new([SECRET.to_owned()]);
        let mut output = BashOutput::new(&redactor);
        let text = format!("{before}{SECRET}\nafter");
        let bytes = text.as_bytes();
        let mut streamed = String::new();
        let mut at = 0;
        for cut in cuts {
            let end = (at + usize::from(cut) % 8).min(bytes.len());
            streamed += &chunk_text(output.output("c", OutputStream::Stdout, &bytes[at..end]));
            at = end;
        }
        streamed += &chunk_text(output.output("c", OutputStream::Stderr, &bytes[at..]));
        let (last, status, model) = output.exited("c", Ok(Some(0)), None);
        streamed += &chunk_text(last);
        status == ToolStatus::Ok
            && !streamed.contains(SECRET)
            && !model.contains(SECRET)
            && (before.len() > 1_000 || streamed == model)
    }
}

#[test]
fn the_model_and_the_client_get_at_most_their_caps() {
    let mut output = BashOutput::new(&Redactor::new([]));
    let line = "é".repeat(1000);
    let mut streamed = 0;
    for _ in 0..1_100 {
        streamed += chunk_text(output.output("c", OutputStream::Stdout, line.as_bytes())).len();
    }
    assert!(streamed <= CLIENT_OUTPUT_MAX && streamed > CLIENT_OUTPUT_MAX - 4);
    let (_, _, model) = output.exited("c", Ok(Some(0)), None);
    let cut = 1_100 * line.len() - MODEL_OUTPUT_MAX;
    assert!(model.ends_with(&format!("[output truncated: {cut} more bytes]")));
}

#[test]
fn how_a_command_ended_is_said_to_the_model() {
    let ended = |status, timed_out| {
        let mut output = BashOutput::new(&Redactor::new([]));
        output.output("c", OutputStream::Stdout, b"out");
        let (_, status, text) = output.exited("c", status, timed_out);
        (status, text)
    };
    assert_eq!(ended(Ok(Some(0)), None), (ToolStatus::Ok, "out".into()));
    assert_eq!(
        ended(Ok(Some(2)), None),
        (ToolStatus::Error, "out\n[exit code 2]".into())
    );
    assert_eq!(
        ended(Ok(None), None),
        (ToolStatus::Error, "out\n[killed by a signal]".into())
    );
    assert_eq!(
        ended(Err("no bash".into()), None),
        (ToolStatus::Error, "bash could not start: no bash".into())
    );
    assert_eq!(
        ended(Ok(None), Some(Duration::from_millis(1500))),
        (
            ToolStatus::Error,
            "out\n[timed out after 1500 ms; killed]".into()
        )
    );
}
