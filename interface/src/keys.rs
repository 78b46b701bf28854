//! What the terminal tells the interface, in the interface's own words: io translates
//! crossterm's events into these, so the machine never sees a terminal library.

/// Modifier keys held with a key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Mods {
    /// Shift (seen with Enter only where the terminal has the keyboard enhancement protocol).
    pub shift: bool,
    /// Control.
    pub ctrl: bool,
    /// Alt (Meta, Option).
    pub alt: bool,
}

/// A key, as the interface tells keys apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
// The named keys say what they are: only those with more to say are documented.
#[allow(missing_docs)]
pub enum KeyCode {
    /// A character (with Control: the letter, not its control code).
    Char(char),
    /// Enter or Return.
    Enter,
    Tab,
    /// Shift+Tab.
    BackTab,
    Backspace,
    Delete,
    Esc,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
}

impl KeyCode {
    /// Every key but the characters, for tests and fuzzing that press any of them.
    pub const NAMED: [KeyCode; 14] = [
        KeyCode::Enter,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::Esc,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::PageUp,
        KeyCode::PageDown,
    ];
}

/// One key press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// Which key.
    pub code: KeyCode,
    /// What was held with it.
    pub mods: Mods,
}

impl Key {
    /// A key pressed alone.
    pub fn plain(code: KeyCode) -> Self {
        Self {
            code,
            mods: Mods::default(),
        }
    }

    /// `c` with Control.
    pub fn ctrl(c: char) -> Self {
        Self {
            code: KeyCode::Char(c),
            mods: Mods {
                ctrl: true,
                ..Mods::default()
            },
        }
    }
}

/// Something that happened at the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermEvent {
    /// A key press.
    Key(Key),
    /// Pasted text, whole (bracketed paste).
    Paste(String),
    /// The mouse wheel turned one notch: up (towards older rows) or down.
    Wheel {
        /// Towards the top of the transcript.
        up: bool,
    },
    /// The terminal's new size, in cells.
    Resize {
        /// Columns.
        width: u16,
        /// Rows.
        height: u16,
    },
}
