//! Diagnostics: every user-facing error carries `file:line:col` when it
//! comes from an input file, and maps to exit status 2.

use crate::ir::Pos;
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

/// How many characters of input text an error quotes (a token, a word, a
/// line): enough to recognise it, and a 50 MB token is not echoed whole.
pub const EXCERPT_CHARS: usize = 40;

/// `s` as an error quotes it: its first [`EXCERPT_CHARS`] characters, then
/// `…` if there is more.
pub fn excerpt(s: &str) -> String {
    match s.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

/// The safety net under [`excerpt`], for the places that quote input
/// without it: a run of a message between two backticks (a quote, or the
/// text between quotes) longer than this is cut to an excerpt. Our own
/// wording never has runs this long.
const RUN_LIMIT: usize = 200;
/// And a message is at most this many characters (the runs of many short
/// quotes add up: a list of every name of a huge model).
const MESSAGE_LIMIT: usize = 4000;

/// `message` within the limits of the safety net (borrowed when it already
/// is, which is almost always).
fn bounded(message: &str) -> Cow<'_, str> {
    // Bytes bound characters from above: short messages need no scan.
    if message.len() <= RUN_LIMIT {
        return Cow::Borrowed(message);
    }
    // Only what stands between a pair of backticks (the odd runs) is
    // quoted input; the rest is our own wording, however long.
    let quoted = |k: usize, run: &str| k % 2 == 1 && run.chars().nth(RUN_LIMIT).is_some();
    let long_run = message
        .split('`')
        .enumerate()
        .any(|(k, run)| run.len() > RUN_LIMIT && quoted(k, run));
    let mut out = if long_run {
        let runs: Vec<Cow<str>> = message
            .split('`')
            .enumerate()
            .map(|(k, run)| match quoted(k, run) {
                true => Cow::Owned(excerpt(run)),
                false => Cow::Borrowed(run),
            })
            .collect();
        Cow::Owned(runs.join("`"))
    } else {
        Cow::Borrowed(message)
    };
    if let Some((cut, _)) = out.char_indices().nth(MESSAGE_LIMIT) {
        out = Cow::Owned(format!("{}…", &out[..cut]));
    }
    out
}

/// The message for a character a lexer does not expect: the character
/// itself, or for an invisible one its code point and a hint (control
/// characters are what a binary file given as text shows first).
pub fn unexpected_char(c: char) -> String {
    if c.is_control() || (c.is_whitespace() && c != ' ') {
        format!(
            "unexpected control character U+{:04X} (is this a binary file?)",
            c as u32
        )
    } else {
        format!("unexpected character `{c}`")
    }
}

/// The text of `bytes`, or a syntax error at the line and column
/// (characters, 1-based) of the first byte that is not UTF-8.
/// A binary file given where text is expected is named as such, at 1:1
/// (a position inside it means nothing): a SPIR-V module, an ELF object
/// (a cubin), or any file with a NUL byte in its first 512 bytes.
pub fn text(bytes: Vec<u8>) -> Result<String> {
    let start = Pos { line: 1, col: 1 };
    if bytes.starts_with(&[0x03, 0x02, 0x23, 0x07]) || bytes.starts_with(&[0x07, 0x23, 0x02, 0x03])
    {
        return Err(Error::syntax(
            start,
            "a SPIR-V binary module: gpumc reads SPIR-V assembly; disassemble it with `spirv-dis FILE -o FILE.spvasm` (spirv-tools)",
        ));
    }
    if bytes.starts_with(b"\x7fELF") {
        return Err(Error::syntax(
            start,
            "an ELF binary (a cubin?): gpumc reads PTX, SPIR-V assembly, litmus tests and CUDA/OpenCL/GLSL sources as text",
        ));
    }
    if bytes.iter().take(512).any(|&b| b == 0) {
        return Err(Error::syntax(
            start,
            "a binary file (a NUL byte in its first 512 bytes): input files are UTF-8 text",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let ok = &bytes[..at];
        let line_start = ok.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
        let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
        // The line up to the bad byte is valid UTF-8: count its characters.
        let col = String::from_utf8_lossy(&ok[line_start..]).chars().count() + 1;
        let pos = Pos {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            col: u32::try_from(col).unwrap_or(u32::MAX),
        };
        Error::syntax(
            pos,
            format!(
                "invalid UTF-8 (byte 0x{:02X}): input files are UTF-8 text",
                bytes[at]
            ),
        )
    })
}

/// Reads a text file: an I/O error, or [`text`]'s error at the first byte
/// that is not UTF-8, in `path`.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    text(bytes).map_err(|e| e.in_file(path))
}

/// What went wrong, coarsely (for JSON output and exit codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// Malformed input text.
    Syntax,
    /// Well-formed input using something gpumc does not support yet.
    Unsupported,
    /// Input that parses but is inconsistent (unknown label, register…).
    Semantic,
    /// File-system errors.
    Io,
    /// Bad command-line usage.
    Usage,
    /// A resource guard tripped (`--timeout`, `--max-memory`): the check
    /// stopped without an answer (`crate::guard`).
    Limit,
}

/// An error with an optional source location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub file: Option<PathBuf>,
    pub pos: Option<Pos>,
    pub message: String,
    /// The refusal is about size, not about what the program does: a
    /// launch too large for a translation thread by thread, an address
    /// into memory of unknown size, an index choosing among too many
    /// cells. A translation of one generic thread (the parametric
    /// engine's) may take the program (see [`Error::of_scale`]).
    pub scale: bool,
}

impl Error {
    /// An error with `message`, held within the safety net's limits
    /// (see [`bounded`]).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = match bounded(&message) {
            Cow::Borrowed(_) => message,
            Cow::Owned(m) => m,
        };
        Error {
            kind,
            file: None,
            pos: None,
            message,
            scale: false,
        }
    }

    /// Marks the error as a refusal about size ([`Error::scale`]).
    pub fn of_scale(mut self) -> Self {
        self.scale = true;
        self
    }

    pub fn syntax(pos: Pos, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Syntax, message).at(pos)
    }

    pub fn unsupported(pos: Pos, message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::Unsupported,
            format!("unsupported: {}", message.into()),
        )
        .at(pos)
    }

    pub fn semantic(pos: Pos, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Semantic, message).at(pos)
    }

    pub fn io(path: &Path, err: std::io::Error) -> Self {
        Self::new(ErrorKind::Io, err.to_string()).in_file(path)
    }

    pub fn at(mut self, pos: Pos) -> Self {
        self.pos = Some(pos);
        self
    }

    /// Attaches a file name unless one is already set.
    pub fn in_file(mut self, path: &Path) -> Self {
        if self.file.is_none() {
            self.file = Some(path.to_path_buf());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, &self.pos) {
            (Some(file), Some(pos)) => write!(f, "{}:{}: ", file.display(), pos)?,
            (Some(file), None) => write!(f, "{}: ", file.display())?,
            (None, Some(pos)) => write!(f, "{}: ", pos)?,
            (None, None) => {}
        }
        // Again: `message` is public, and some errors are built whole.
        f.write_str(&bounded(&self.message))
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_inputs_are_named_at_their_start() {
        let msg = |b: &[u8]| {
            let e = text(b.to_vec()).unwrap_err();
            assert_eq!(e.pos, Some(Pos { line: 1, col: 1 }));
            e.message
        };
        assert!(msg(&[0x03, 0x02, 0x23, 0x07, 0, 0]).contains("SPIR-V binary"));
        assert!(msg(b"\x7fELF\x02\x01").contains("ELF binary"));
        assert!(msg(b"PTX x\n\0\0").contains("a binary file"));
        // Text with one bad byte keeps its position.
        let e = text(b"PTX x\n  \xff".to_vec()).unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 2, col: 3 }));
        assert_eq!(unexpected_char('#'), "unexpected character `#`");
        assert!(unexpected_char('\u{1b}').contains("U+001B"));
    }

    #[test]
    fn excerpts_are_short() {
        assert_eq!(excerpt("short"), "short");
        let forty = "x".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&forty), forty);
        let long = "é".repeat(EXCERPT_CHARS + 1);
        assert_eq!(excerpt(&long), format!("{}…", "é".repeat(EXCERPT_CHARS)));
    }

    #[test]
    fn a_huge_quote_is_cut_by_the_safety_net() {
        let token = "x".repeat(1_000_000);
        let e = Error::syntax(Pos { line: 1, col: 1 }, format!("unknown `{token}` here"));
        assert_eq!(
            e.message,
            format!("unknown `{}…` here", "x".repeat(EXCERPT_CHARS))
        );
        // Built whole, past `new`: Display cuts it.
        let e = Error {
            message: format!("unknown `{token}`"),
            ..e
        };
        assert!(e.to_string().len() < 100, "{}", e.to_string().len());
        // Many short quotes: the message as a whole is cut.
        let many = vec!["`a`"; 100_000].join(" ");
        let e = Error::new(ErrorKind::Usage, many);
        assert!(e.message.chars().count() <= MESSAGE_LIMIT + 1);
        // Our own wording is kept.
        let ours = "expected `,` (`@Config: <threads per subgroup>, <subgroups per workgroup>, <workgroups>`)";
        assert_eq!(Error::new(ErrorKind::Syntax, ours).message, ours);
        // However long, outside quotes: two engines' reasons together.
        let both = format!(
            "symbolic engine: {}; explicit engine: `x` {}",
            "a ".repeat(200),
            "b ".repeat(200)
        );
        assert_eq!(Error::new(ErrorKind::Limit, both.clone()).message, both);
    }

    #[test]
    fn invalid_utf8_is_reported_at_its_line_and_column() {
        assert_eq!(text(b"ok\n".to_vec()).unwrap(), "ok\n");
        let e = text(b"line one\n\xc3\xa9t\xff\n".to_vec()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        // `é` is one character: the bad byte is the third.
        assert_eq!(e.pos, Some(Pos { line: 2, col: 3 }));
        assert!(e.message.contains("0xFF"), "{}", e.message);
        let e = text(b"\x80".to_vec()).unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 1, col: 1 }));
        // A sequence cut short at the end of the file.
        let e = text(b"ab\xe2\x82".to_vec()).unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 1, col: 3 }));
    }
}
