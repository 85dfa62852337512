//! A small indenting writer for generated Rust, so output does not depend on rustfmt.

/// Accumulates lines of generated code at the current indentation.
#[derive(Default)]
pub struct Formatter {
    text: String,
    depth: usize,
}

impl Formatter {
    /// An empty formatter.
    pub fn new() -> Formatter {
        Formatter::default()
    }

    /// Writes one line at the current indentation (an empty `s` writes a blank line).
    pub fn line(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        if !s.is_empty() {
            for _ in 0..self.depth {
                self.text.push_str("    ");
            }
            self.text.push_str(s);
        }
        self.text.push('\n');
    }

    /// Writes `// s` for every line of `s`.
    pub fn comment(&mut self, s: impl AsRef<str>) {
        for l in s.as_ref().lines() {
            self.line(format!("// {l}"));
        }
    }

    /// Writes `/// s` for every line of `s`.
    pub fn doc(&mut self, s: impl AsRef<str>) {
        for l in s.as_ref().lines() {
            self.line(format!("/// {l}").trim_end());
        }
    }

    /// Opens a block: writes `head` (which ends in its opening bracket) and indents.
    pub fn open(&mut self, head: impl AsRef<str>) {
        self.line(head);
        self.depth += 1;
    }

    /// Closes a block with `tail` (usually `}`), dedenting first.
    pub fn close(&mut self, tail: impl AsRef<str>) {
        self.depth = self.depth.saturating_sub(1);
        self.line(tail);
    }

    /// Closes one block and opens the next on the same line, like `} else {`.
    pub fn reopen(&mut self, s: impl AsRef<str>) {
        self.depth = self.depth.saturating_sub(1);
        self.line(s);
        self.depth += 1;
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indents_blocks() {
        let mut f = Formatter::new();
        f.doc("A function.");
        f.open("fn x() {");
        f.comment("body");
        f.line("1");
        f.line("");
        f.close("}");
        assert_eq!(f.finish(), "/// A function.\nfn x() {\n    // body\n    1\n\n}\n");
    }
}
