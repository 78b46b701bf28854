//! One macro that turns a list of `Variant(Content) = "kind"` (or `Variant = "kind"` for a frame
//! without payload) into a frame enum, so the kind strings, the serde tags and the decoder
//! cannot drift apart.

/// Declares a frame enum: adjacently tagged as `{"kind": …, "content": …}`, a variant without
/// payload serialized with `content` left out; with `KINDS`, `kind()` and `decode_content`.
macro_rules! frame_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident $(($content:ty))? = $kind:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", content = "content")]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $kind)] $variant $(($content))?, )*
        }

        impl $name {
            /// Every kind this enum types, in declaration order.
            pub const KINDS: &'static [&'static str] = &[$($kind),*];

            /// The frame's `kind`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( Self::$variant { .. } => $kind, )*
                }
            }

            /// Parses the `content` object of a frame of kind `kind`; `None` when this enum does
            /// not type that kind. Errors carry serde's own message (``missing field `text` ``).
            /// A variant without payload ignores whatever fields its content has.
            #[allow(dead_code)]
            pub(crate) fn decode_content(
                kind: &str,
                content: serde_json::Value,
            ) -> Option<Result<Self, serde_json::Error>> {
                Some(match kind {
                    $( $kind => $crate::protocol::frame_enum::decode_variant!(
                        content, Self::$variant $(, $content)?
                    ), )*
                    _ => return None,
                })
            }
        }
    };
}

/// The body of one `decode_content` arm.
macro_rules! decode_variant {
    ($content:ident, $variant:path) => {{
        let _ = $content;
        Ok($variant)
    }};
    ($content:ident, $variant:path, $ty:ty) => {
        <$ty as serde::Deserialize>::deserialize($content).map($variant)
    };
}

pub(crate) use {decode_variant, frame_enum};
