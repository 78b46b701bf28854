//! Settings JSON read so that every error is placed at what it is about.
//!
//! serde_json alone places an error where its reader stood when the error reached it: at the end
//! of a wrong value or an unknown key, and, for a conversion that refuses a value
//! it has read whole (a permission rule, an MCP server entry), after the object or array around
//! that value was closed, lines below it (issue #27). So the text is read twice: serde_json
//! reads it into a tree (its syntax errors stand, each at the character it could not read), a
//! scan of the same text finds where each value and key of the tree starts, and the settings
//! types are read from the tree, whose reader knows which value an error arose in.
//!
//! Where an error goes:
//! - a scalar of the wrong type, or one a conversion refuses, is placed where it starts;
//! - an object or array of the wrong type, where it starts;
//! - an unknown or repeated key, at the key;
//! - an object or array refused whole (it lacks something, its members do not fit together),
//!   at the entry holding it: its key in an object, its start in an array, the file's start at
//!   the top;
//! - an array longer than what it is read as, at the first value too many.

use std::fmt;
use std::slice;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, Deserialize, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess,
    Visitor,
};
use serde::forward_to_deserialize_any;

/// A line and a column, both from 1; the column counts bytes, as serde_json's do.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Place {
    line: usize,
    column: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// `T` read from `text`, or what is wrong and where (see the module's doc).
pub(super) fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, (Place, String)> {
    let mut root: Node = serde_json::from_str(text).map_err(|err| {
        let message = err.to_string();
        // serde_json appends " at line L column C"; the place is given apart.
        let message = message
            .rsplit_once(" at line ")
            .map_or(&*message, |(m, _)| m);
        let at = Place {
            line: err.line(),
            column: err.column(),
        };
        (at, message.to_owned())
    })?;
    root.place(&mut Scan::new(text));
    T::deserialize(&root).map_err(|err| (err.at.unwrap_or(root.at), err.message))
}

/// A JSON value and where it starts.
struct Node {
    at: Place,
    value: Value,
}

/// A JSON value as serde_json read it. An object keeps its members in order, a repeated key
/// too, so that the settings types see (and refuse) what the text says.
enum Value {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    String(String),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

/// One member of an object.
struct Member {
    key: String,
    key_at: Place,
    value: Node,
}

impl Node {
    /// Sets where this value, and everything in it, start; `scan` is just before it.
    fn place(&mut self, scan: &mut Scan) {
        self.at = scan.token();
        match &mut self.value {
            Value::String(_) => scan.string(),
            Value::Array(items) => {
                scan.bump();
                for item in items {
                    item.place(scan);
                }
                scan.token();
                scan.bump();
            }
            Value::Object(members) => {
                scan.bump();
                for member in members {
                    member.key_at = scan.token();
                    scan.string();
                    member.value.place(scan);
                }
                scan.token();
                scan.bump();
            }
            Value::Null | Value::Bool(_) | Value::U64(_) | Value::I64(_) | Value::F64(_) => {
                scan.scalar();
            }
        }
    }

    /// Places an error about this value as a whole. A scalar is the value that is wrong; an
    /// object or array refused whole lacks something, or its members do not fit together, so
    /// the entry holding it places the error.
    fn own(&self, err: Error) -> Error {
        match self.value {
            Value::Array(_) | Value::Object(_) => err,
            _ => err.or_at(self.at),
        }
    }
}

/// A walk over text serde_json has read whole, in the order of the tree it built.
struct Scan<'t> {
    bytes: &'t [u8],
    i: usize,
    line: usize,
    line_start: usize,
}

impl<'t> Scan<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            bytes: text.as_bytes(),
            i: 0,
            line: 1,
            line_start: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn bump(&mut self) {
        if self.peek() == Some(b'\n') {
            self.line += 1;
            self.line_start = self.i + 1;
        }
        self.i += 1;
    }

    /// Goes to the next value, key or closing bracket and says where it is. `:` and `,` are
    /// passed over too: the tree already says what comes next.
    fn token(&mut self) -> Place {
        while matches!(
            self.peek(),
            Some(b' ' | b'\t' | b'\n' | b'\r' | b':' | b',')
        ) {
            self.bump();
        }
        Place {
            line: self.line,
            column: self.i - self.line_start + 1,
        }
    }

    /// Passes over a string, an escaped quote included.
    fn string(&mut self) {
        self.bump();
        while let Some(byte) = self.peek() {
            self.bump();
            match byte {
                b'"' => return,
                b'\\' => self.bump(),
                _ => {}
            }
        }
    }

    /// Passes over a number, `true`, `false` or `null`.
    fn scalar(&mut self) {
        while self
            .peek()
            .is_some_and(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}'))
        {
            self.bump();
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Build)
    }
}

/// Builds a [`Node`] as serde_json reads it; [`Node::place`] says where it is afterwards.
struct Build;

impl Build {
    fn node<E>(value: Value) -> Result<Node, E> {
        Ok(Node {
            at: Place::default(),
            value,
        })
    }
}

impl<'de> Visitor<'de> for Build {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Self::node(Value::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Self::node(Value::Bool(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Self::node(Value::U64(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Self::node(Value::I64(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Self::node(Value::F64(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Self::node(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Self::node(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Self::node(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key()? {
            members.push(Member {
                key,
                key_at: Place::default(),
                value: map.next_value()?,
            });
        }
        Self::node(Value::Object(members))
    }
}

/// An error the settings types raised, and the place of what it is about once it is known.
#[derive(Debug)]
struct Error {
    at: Option<Place>,
    message: String,
}

impl Error {
    /// Places the error at `at`, unless it was placed already, deeper in.
    fn or_at(mut self, at: Place) -> Self {
        self.at.get_or_insert(at);
        self
    }
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Self {
            at: None,
            message: message.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The members of an object or array as its reader takes them.
struct Access<'de, T> {
    rest: slice::Iter<'de, T>,
    reached: Reached<'de, T>,
}

/// How far a container's reader had got, which says where an error it raises belongs.
enum Reached<'de, T> {
    /// No member yet: the container is of the wrong kind.
    Start,
    /// At this member (a repeated key, say).
    At(&'de T),
    /// Past the last member: the container lacks something, and its entry places the error.
    End,
}

impl<'de, T> Access<'de, T> {
    fn new(members: &'de [T]) -> Self {
        Self {
            rest: members.iter(),
            reached: Reached::Start,
        }
    }

    /// The next member, remembered as the one reached.
    fn next(&mut self) -> Option<&'de T> {
        let next = self.rest.next();
        self.reached = next.map_or(Reached::End, Reached::At);
        next
    }

    /// Places an error the container's reader raised itself (see [`Reached`]).
    fn place(&self, err: Error, container: Place, member: fn(&T) -> Place) -> Error {
        match self.reached {
            Reached::Start => err.or_at(container),
            Reached::At(reached) => err.or_at(member(reached)),
            Reached::End => err,
        }
    }
}

impl<'de> SeqAccess<'de> for Access<'de, Node> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        self.next()
            .map(|item| seed.deserialize(item).map_err(|err| err.or_at(item.at)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rest.len())
    }
}

impl<'de> MapAccess<'de> for Access<'de, Member> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        self.next()
            .map(|member| {
                seed.deserialize(BorrowedStrDeserializer::<Error>::new(&member.key))
                    .map_err(|err| err.or_at(member.key_at))
            })
            .transpose()
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let Reached::At(member) = self.reached else {
            return Err(de::Error::custom("a value was asked for without its key"));
        };
        let value = &member.value;
        seed.deserialize(value)
            .map_err(|err| value.own(err).or_at(member.key_at))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rest.len())
    }
}

impl<'de> Deserializer<'de> for &'de Node {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let read = match &self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(v) => visitor.visit_bool(*v),
            Value::U64(v) => visitor.visit_u64(*v),
            Value::I64(v) => visitor.visit_i64(*v),
            Value::F64(v) => visitor.visit_f64(*v),
            Value::String(v) => visitor.visit_borrowed_str(v),
            Value::Array(items) => {
                let mut access = Access::new(items);
                visitor
                    .visit_seq(&mut access)
                    .map_err(|err| access.place(err, self.at, |item| item.at))
                    .and_then(|read| match access.rest.as_slice().first() {
                        // Read as an object's fields in order, an array may hold more than
                        // there are.
                        Some(extra) => Err(<Error as de::Error>::invalid_length(
                            items.len(),
                            &"fewer elements in array",
                        )
                        .or_at(extra.at)),
                        None => Ok(read),
                    })
            }
            Value::Object(members) => {
                let mut access = Access::new(members);
                visitor
                    .visit_map(&mut access)
                    .map_err(|err| access.place(err, self.at, |member| member.key_at))
            }
        };
        read.map_err(|err| self.own(err))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|err| self.own(err))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match &self.value {
            Value::String(name) => visitor
                .visit_enum(BorrowedStrDeserializer::new(name))
                .map_err(|err| self.own(err)),
            _ => self.deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}
