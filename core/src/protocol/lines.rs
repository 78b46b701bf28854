//! Splits the client's byte stream into lines on LF, never holding more than the frame limit.

/// One result of splitting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// A whole line, without its LF (a trailing CR is left for the codec to strip).
    Complete(&'a [u8]),
    /// A line longer than the limit; its bytes were dropped as they arrived.
    TooLong,
}

/// Buffers at most `max` bytes of a partial line; a longer line is skipped, not buffered whole.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    partial: Vec<u8>,
    max: usize,
    skipping: bool,
}

impl LineSplitter {
    /// A splitter that rejects lines longer than `max` bytes (LF not counted).
    pub fn new(max: usize) -> Self {
        Self {
            partial: Vec::new(),
            max,
            skipping: false,
        }
    }

    /// Feeds `chunk`, calling `on_line` for every line it completes, in order.
    pub fn push(&mut self, mut chunk: &[u8], mut on_line: impl FnMut(Line<'_>)) {
        while let Some(lf) = memchr::memchr(b'\n', chunk) {
            let (head, rest) = (&chunk[..lf], &chunk[lf + 1..]);
            chunk = rest;
            if std::mem::take(&mut self.skipping) {
                on_line(Line::TooLong);
            } else if self.partial.is_empty() {
                on_line(self.checked(head));
            } else if self.partial.len() + head.len() > self.max {
                self.partial.clear();
                on_line(Line::TooLong);
            } else {
                self.partial.extend_from_slice(head);
                on_line(Line::Complete(&self.partial));
                self.partial.clear();
            }
        }
        if self.skipping {
            return;
        }
        if self.partial.len() + chunk.len() > self.max {
            self.partial = Vec::new();
            self.skipping = true;
        } else {
            self.partial.extend_from_slice(chunk);
        }
    }

    /// Ends the stream: a last line without LF still counts.
    pub fn finish(&mut self, mut on_line: impl FnMut(Line<'_>)) {
        if std::mem::take(&mut self.skipping) {
            on_line(Line::TooLong);
        } else if !self.partial.is_empty() {
            on_line(Line::Complete(&self.partial));
            self.partial = Vec::new();
        }
    }

    /// Bytes held for an unfinished line (never more than the limit).
    pub fn buffered(&self) -> usize {
        self.partial.len()
    }

    fn checked<'a>(&self, line: &'a [u8]) -> Line<'a> {
        if line.len() > self.max {
            Line::TooLong
        } else {
            Line::Complete(line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[derive(Debug, PartialEq)]
    enum Owned {
        Line(Vec<u8>),
        TooLong,
    }

    fn split(max: usize, chunks: &[&[u8]]) -> (Vec<Owned>, usize) {
        let mut splitter = LineSplitter::new(max);
        let mut out = Vec::new();
        let mut peak = 0;
        let mut collect = |line: Line<'_>| {
            out.push(match line {
                Line::Complete(bytes) => Owned::Line(bytes.to_vec()),
                Line::TooLong => Owned::TooLong,
            })
        };
        for chunk in chunks {
            splitter.push(chunk, &mut collect);
            peak = peak.max(splitter.buffered());
        }
        splitter.finish(&mut collect);
        (out, peak)
    }

    fn reference(max: usize, stream: &[u8]) -> Vec<Owned> {
        let mut lines: Vec<&[u8]> = stream.split(|b| *b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines
            .into_iter()
            .map(|l| {
                if l.len() > max {
                    Owned::TooLong
                } else {
                    Owned::Line(l.to_vec())
                }
            })
            .collect()
    }

    #[test]
    fn lines_across_chunks() {
        let (out, _) = split(10, &[b"ab", b"c\nde\n", b"f"]);
        assert_eq!(
            out,
            vec![
                Owned::Line(b"abc".to_vec()),
                Owned::Line(b"de".to_vec()),
                Owned::Line(b"f".to_vec())
            ]
        );
    }

    #[test]
    fn long_line_is_skipped_without_buffering() {
        let long = [b'x'; 100];
        let (out, peak) = split(10, &[&long[..50], &long[50..], b"\nok\n"]);
        assert_eq!(out, vec![Owned::TooLong, Owned::Line(b"ok".to_vec())]);
        assert!(peak <= 10);
    }

    #[test]
    fn exactly_the_limit_is_allowed() {
        let (out, _) = split(3, &[b"abc\nabcd\n"]);
        assert_eq!(out, vec![Owned::Line(b"abc".to_vec()), Owned::TooLong]);
    }

    quickcheck! {
        fn any_chunking_matches_the_reference(stream: Vec<u8>, cuts: Vec<usize>, max: u8) -> bool {
            // Bias towards newlines so lines are short enough to matter.
            let stream: Vec<u8> = stream.into_iter().map(|b| if b % 7 == 0 { b'\n' } else { b }).collect();
            let max = usize::from(max % 16);
            let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c % (stream.len() + 1)).collect();
            bounds.push(0);
            bounds.push(stream.len());
            bounds.sort_unstable();
            let chunks: Vec<&[u8]> = bounds.windows(2).map(|w| &stream[w[0]..w[1]]).collect();
            let (out, peak) = split(max, &chunks);
            out == reference(max, &stream) && peak <= max
        }
    }
}
