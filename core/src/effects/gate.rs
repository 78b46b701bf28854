//! The one point every output passes on its way to io: [`Redactor::gate`], here beside the
//! outputs it gates so that the redaction below knows nothing of them.

use super::Output;
use crate::redact::Redactor;

impl Redactor {
    /// `output` as it may leave core: a frame is given this redactor, which its encoding
    /// passes ([`crate::effects::Frame::encode_in_parts`]); a model request's body is redacted
    /// as JSON now. Other effects carry no text for the client or the model.
    pub fn gate(&self, output: Output) -> Output {
        match output {
            Output::Frame(frame) => Output::Frame(frame.gated(self)),
            Output::HttpRequest { id, mut request } => {
                if let std::borrow::Cow::Owned(body) = self.redact_json(&request.body) {
                    request.body = body;
                }
                Output::HttpRequest { id, request }
            }
            other => other,
        }
    }
}
