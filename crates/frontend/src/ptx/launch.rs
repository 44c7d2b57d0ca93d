//! The launch configuration of a kernel: which `.entry`, the grid and
//! block shapes, kernel argument values and dynamic shared memory. The
//! command line (`gpumc check --kernel … --grid … --block … --param …`)
//! and a `// gpumc-launch: …` comment line in the `.ptx` file use the same
//! words; the command line wins where both set something.

use crate::diag::{Error, ErrorKind, Result};
use crate::ir::Pos;

/// What a kernel argument is given as.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ParamValue {
    /// `--param n=64`: a scalar argument's value.
    Int(i64),
    /// `--param a=buf:BYTES` (`zero: false`, arbitrary contents) or
    /// `--param a=zeros:BYTES` (zero-filled): a pointer argument to a
    /// fresh global buffer of that many bytes.
    Buffer { bytes: u64, zero: bool },
}

/// The most threads a launch may have: every thread becomes a thread of
/// the checked program.
pub const MAX_THREADS: u64 = 4096;

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Launch {
    /// The `.entry` to check; `None`: the file's only kernel.
    pub kernel: Option<String>,
    /// `None`: not given (a launch needs a block shape).
    pub grid: Option<[u32; 3]>,
    pub block: Option<[u32; 3]>,
    /// By parameter: its 0-based position, its PTX name, or that name
    /// without the `KERNEL_` prefix (`param_1`).
    pub params: Vec<(String, ParamValue)>,
    /// Bytes of dynamic (`.extern .shared`) shared memory per block.
    pub shared_bytes: Option<u64>,
}

impl Launch {
    pub fn empty() -> Launch {
        Launch {
            kernel: None,
            grid: None,
            block: None,
            params: Vec::new(),
            shared_bytes: None,
        }
    }

    /// `self` with everything `other` leaves unset taken from `other`'s
    /// fallback `base` (the command line over the file's header).
    pub fn over(&self, base: &Launch) -> Launch {
        let mut params = base.params.clone();
        for (k, v) in &self.params {
            params.retain(|(b, _)| b != k);
            params.push((k.clone(), v.clone()));
        }
        Launch {
            kernel: self.kernel.clone().or_else(|| base.kernel.clone()),
            grid: self.grid.or(base.grid),
            block: self.block.or(base.block),
            params,
            shared_bytes: self.shared_bytes.or(base.shared_bytes),
        }
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == Launch::empty()
    }
}

/// `X[,Y[,Z]]`: a grid or block shape, each extent at least 1.
pub fn parse_dims(s: &str) -> std::result::Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = match p.parse::<u32>() {
            Ok(v) if v >= 1 => v,
            _ => return Err(format!("`{s}`: `{p}` is not a positive integer")),
        };
    }
    Ok(d)
}

/// `NAME=VALUE` with VALUE an integer (decimal, `0x` hex, negative),
/// `buf:BYTES` or `zeros:BYTES`.
pub fn parse_param(s: &str) -> std::result::Result<(String, ParamValue), String> {
    let Some((name, value)) = s.split_once('=') else {
        return Err(format!("`{s}`: expected NAME=VALUE"));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}`: the parameter name is empty"));
    }
    let value = value.trim();
    let buffer = |rest: &str, zero: bool| match parse_int(rest) {
        Some(b) if b > 0 => Ok(ParamValue::Buffer {
            bytes: b as u64,
            zero,
        }),
        _ => Err(format!("`{s}`: `{rest}` is not a positive byte count")),
    };
    let v = if let Some(rest) = value.strip_prefix("buf:") {
        buffer(rest, false)?
    } else if let Some(rest) = value.strip_prefix("zeros:") {
        buffer(rest, true)?
    } else {
        match parse_int(value) {
            Some(v) => ParamValue::Int(v),
            None => {
                return Err(format!(
                    "`{s}`: expected an integer, buf:BYTES or zeros:BYTES"
                ))
            }
        }
    };
    Ok((name.to_string(), v))
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()? as i64
    } else {
        body.parse::<u64>().ok()? as i64
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// The marker of a launch line in a `.ptx` file.
pub const HEADER: &str = "gpumc-launch:";

/// The launch a `.ptx` file states in `// gpumc-launch: --grid 2 --block 4
/// …` comment lines (several lines add up).
pub fn from_header(src: &str) -> Result<Launch> {
    let mut launch = Launch::empty();
    for (n, line) in src.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("//").map(str::trim_start) else {
            continue;
        };
        let Some(words) = rest.strip_prefix(HEADER) else {
            continue;
        };
        let col = (line.len() - t.len() + (t.len() - words.len()) + 1) as u32;
        let pos = Pos {
            line: n as u32 + 1,
            col,
        };
        apply_words(&mut launch, words)
            .map_err(|m| Error::new(ErrorKind::Syntax, format!("`{HEADER}` line: {m}")).at(pos))?;
    }
    Ok(launch)
}

/// Reads `--kernel K --grid X --block X --param N=V --shared-bytes N`
/// words into `launch`.
fn apply_words(launch: &mut Launch, words: &str) -> std::result::Result<(), String> {
    let mut it = words.split_whitespace();
    while let Some(flag) = it.next() {
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (flag, None),
        };
        let mut value = || -> std::result::Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it
                    .next()
                    .map(str::to_string)
                    .ok_or_else(|| format!("`{flag}` needs a value")),
            }
        };
        match flag {
            "--kernel" => launch.kernel = Some(value()?),
            "--grid" => launch.grid = Some(parse_dims(&value()?)?),
            "--block" => launch.block = Some(parse_dims(&value()?)?),
            "--param" => {
                let (k, v) = parse_param(&value()?)?;
                launch.params.retain(|(b, _)| *b != k);
                launch.params.push((k, v));
            }
            "--shared-bytes" => {
                let v = value()?;
                launch.shared_bytes =
                    Some(parse_int(&v).filter(|&b| b >= 0).ok_or_else(|| {
                        format!("`--shared-bytes {v}`: not a byte count")
                    })? as u64);
            }
            other => {
                return Err(format!(
                    "unknown option `{other}` (expected --kernel, --grid, --block, --param or --shared-bytes)"
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims() {
        assert_eq!(parse_dims("4"), Ok([4, 1, 1]));
        assert_eq!(parse_dims("2,3"), Ok([2, 3, 1]));
        assert_eq!(parse_dims("2, 3, 4"), Ok([2, 3, 4]));
        assert!(parse_dims("0").is_err());
        assert!(parse_dims("1,2,3,4").is_err());
        assert!(parse_dims("x").is_err());
    }

    #[test]
    fn params() {
        assert_eq!(parse_param("n=8"), Ok(("n".into(), ParamValue::Int(8))));
        assert_eq!(parse_param("1=-3"), Ok(("1".into(), ParamValue::Int(-3))));
        assert_eq!(
            parse_param("a=buf:64"),
            Ok((
                "a".into(),
                ParamValue::Buffer {
                    bytes: 64,
                    zero: false
                }
            ))
        );
        assert_eq!(
            parse_param("a=zeros:0x10"),
            Ok((
                "a".into(),
                ParamValue::Buffer {
                    bytes: 16,
                    zero: true
                }
            ))
        );
        assert!(parse_param("a=buf:0").is_err());
        assert!(parse_param("a").is_err());
        assert!(parse_param("=3").is_err());
        assert!(parse_param("a=x").is_err());
    }

    #[test]
    fn header_lines_add_up_and_the_command_line_wins() {
        let src = "// gpumc-launch: --grid 2 --block 4\n.version 7.0\n  // gpumc-launch: --param n=3 --kernel k\n";
        let h = from_header(src).unwrap();
        assert_eq!(h.grid, Some([2, 1, 1]));
        assert_eq!(h.block, Some([4, 1, 1]));
        assert_eq!(h.kernel.as_deref(), Some("k"));
        let cli = Launch {
            block: Some([8, 1, 1]),
            params: vec![("n".into(), ParamValue::Int(5))],
            ..Launch::empty()
        };
        let l = cli.over(&h);
        assert_eq!(l.grid, Some([2, 1, 1]));
        assert_eq!(l.block, Some([8, 1, 1]));
        assert_eq!(l.params, vec![("n".into(), ParamValue::Int(5))]);
    }

    #[test]
    fn header_errors_have_positions() {
        let e = from_header("\n  // gpumc-launch: --grid 0").unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 2, col: 19 }));
        assert!(e.message.contains("positive"), "{}", e.message);
        let e = from_header("// gpumc-launch: --frob 1").unwrap_err();
        assert!(
            e.message.contains("unknown option `--frob`"),
            "{}",
            e.message
        );
        let e = from_header("// gpumc-launch: --grid").unwrap_err();
        assert!(e.message.contains("needs a value"), "{}", e.message);
    }
}
