//! JSON read into a `Value` as serde_json reads it, except that an object naming a key twice is
//! an error: serde_json keeps the last, so `{"kind":"close","kind":"submit_user_message"}` would
//! be taken as whichever came last, while another reader of the same line (a proxy, a log, a
//! client's own check) may take the first. A frame must mean one thing to everyone who reads it.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value whose objects, at every depth, name each key once.
pub struct UniqueKeys(pub Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor).map(UniqueKeys)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so every number it holds is finite.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let UniqueKeys(value) = map.next_value()?;
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Value, String> {
        serde_json::from_str::<UniqueKeys>(text)
            .map(|v| v.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"kind":"close"}"#,
            r#"{"a":[1,-2,3.5,true,null,"x",{"b":{}}],"c":"\u00e9"}"#,
            "[]",
            "18446744073709551615",
            "-9223372036854775808",
            "1e300",
        ] {
            let ours = read(text).expect("reads");
            let theirs: Value = serde_json::from_str(text).expect("reads");
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn a_key_named_twice_at_any_depth_is_an_error() {
        for (text, column) in [
            (r#"{"kind":"close","kind":"x"}"#, 22),
            (r#"{"content":{"reply":"once","reply":"always"}}"#, 34),
            (r#"{"a":[{"b":1,"b":2}]}"#, 16),
        ] {
            let err = read(text).expect_err("refused");
            assert!(err.starts_with("duplicate key `"), "{err}");
            assert!(err.contains(&format!("column {column}")), "{err}");
        }
        // The same name in two objects is not a repeat.
        assert!(read(r#"{"a":{"x":1},"b":{"x":2}}"#).is_ok());
    }
}
