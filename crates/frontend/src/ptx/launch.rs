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

/// CUDA's limits on a launch (compute capability 5.0 and later): a
/// launch no GPU runs is refused rather than checked, and sizes within
/// them multiply without overflow (the thread count is still counted
/// with checked arithmetic).
pub const MAX_BLOCK_DIMS: [u32; 3] = [1024, 1024, 64];
/// Threads in one block, all dimensions together.
pub const MAX_BLOCK_THREADS: u64 = 1024;
pub const MAX_GRID_DIMS: [u32; 3] = [(1 << 31) - 1, 65535, 65535];
/// Dynamic shared memory per block: CUDA's per-block limit on current
/// GPUs (227 KiB, compute capability 9.0; less on older ones).
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;
/// The largest `buf:BYTES`/`zeros:BYTES` buffer and declared variable:
/// 1 TiB, past any GPU's memory, so that offsets into a buffer never come
/// near the ends of the 64-bit integers they are computed in.
pub const MAX_BUFFER_BYTES: u64 = 1 << 40;

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

/// The threads of a launch, counted in u128: within CUDA's limits at most
/// 2^73, so the count cannot wrap (a wrapped count once slipped under the
/// limit).
pub fn thread_count(grid: [u32; 3], block: [u32; 3]) -> u128 {
    grid.iter().chain(&block).map(|&v| u128::from(v)).product()
}

impl Launch {
    /// The threads of this launch (a grid or block not given counts 1).
    pub fn threads(&self) -> u128 {
        thread_count(self.grid.unwrap_or([1; 3]), self.block.unwrap_or([1; 3]))
    }

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

    /// Every size within CUDA's limits (what the command line and the
    /// header lines already ensure; a library caller may build any
    /// `Launch`).
    pub fn check_limits(&self) -> std::result::Result<(), String> {
        if let Some(g) = self.grid {
            check_grid(g)?;
        }
        if let Some(b) = self.block {
            check_block(b)?;
        }
        if let Some(n) = self.shared_bytes {
            check_shared_bytes(n)?;
        }
        for (name, v) in &self.params {
            if let ParamValue::Buffer { bytes, .. } = v {
                check_buffer_bytes(*bytes).map_err(|e| format!("parameter `{name}`: {e}"))?;
            }
        }
        Ok(())
    }
}

const AXES: [&str; 3] = ["x", "y", "z"];

/// A grid shape within CUDA's limits.
pub fn check_grid(d: [u32; 3]) -> std::result::Result<(), String> {
    for (k, (&v, &max)) in d.iter().zip(&MAX_GRID_DIMS).enumerate() {
        if v > max {
            return Err(format!(
                "a grid of {v} blocks in {} (CUDA allows at most {max})",
                AXES[k]
            ));
        }
    }
    Ok(())
}

/// A block shape within CUDA's limits.
pub fn check_block(d: [u32; 3]) -> std::result::Result<(), String> {
    for (k, (&v, &max)) in d.iter().zip(&MAX_BLOCK_DIMS).enumerate() {
        if v > max {
            return Err(format!(
                "a block of {v} threads in {} (CUDA allows at most {max})",
                AXES[k]
            ));
        }
    }
    // Each factor is at most 1024 now: no overflow.
    let n: u64 = d.iter().map(|&v| u64::from(v)).product();
    if n > MAX_BLOCK_THREADS {
        return Err(format!(
            "a block of {n} threads (CUDA allows at most {MAX_BLOCK_THREADS})"
        ));
    }
    Ok(())
}

/// Dynamic shared memory within CUDA's per-block limit.
pub fn check_shared_bytes(n: u64) -> std::result::Result<(), String> {
    if n > MAX_SHARED_BYTES {
        return Err(format!(
            "{n} bytes of dynamic shared memory per block (CUDA allows at most {MAX_SHARED_BYTES}, 227 KiB)"
        ));
    }
    Ok(())
}

/// A buffer size within [`MAX_BUFFER_BYTES`].
pub fn check_buffer_bytes(n: u64) -> std::result::Result<(), String> {
    if n > MAX_BUFFER_BYTES {
        return Err(format!(
            "a buffer of {n} bytes (at most {MAX_BUFFER_BYTES}, 1 TiB)"
        ));
    }
    Ok(())
}

/// `--grid X[,Y[,Z]]`: [`parse_dims`] within CUDA's grid limits.
pub fn parse_grid(s: &str) -> std::result::Result<[u32; 3], String> {
    let d = parse_dims(s)?;
    check_grid(d).map_err(|e| format!("`{}`: {e}", crate::diag::excerpt(s)))?;
    Ok(d)
}

/// `--block X[,Y[,Z]]`: [`parse_dims`] within CUDA's block limits.
pub fn parse_block(s: &str) -> std::result::Result<[u32; 3], String> {
    let d = parse_dims(s)?;
    check_block(d).map_err(|e| format!("`{}`: {e}", crate::diag::excerpt(s)))?;
    Ok(d)
}

/// `--shared-bytes N`: a byte count within CUDA's per-block limit.
pub fn parse_shared_bytes(s: &str) -> std::result::Result<u64, String> {
    let n =
        parse_uint(s).ok_or_else(|| format!("`{}`: not a byte count", crate::diag::excerpt(s)))?;
    check_shared_bytes(n)?;
    Ok(n)
}

/// `X[,Y[,Z]]`: a grid or block shape, each extent at least 1.
pub fn parse_dims(s: &str) -> std::result::Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let quoted = crate::diag::excerpt(s);
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{quoted}`: expected X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = match p.parse::<u32>() {
            Ok(v) if v >= 1 => v,
            _ => {
                return Err(format!(
                    "`{quoted}`: `{}` is not a positive integer",
                    crate::diag::excerpt(p)
                ))
            }
        };
    }
    Ok(d)
}

/// `NAME=VALUE` with VALUE an integer (decimal, `0x` hex, negative),
/// `buf:BYTES` or `zeros:BYTES`.
pub fn parse_param(s: &str) -> std::result::Result<(String, ParamValue), String> {
    let quoted = crate::diag::excerpt(s);
    let Some((name, value)) = s.split_once('=') else {
        return Err(format!("`{quoted}`: expected NAME=VALUE"));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{quoted}`: the parameter name is empty"));
    }
    let value = value.trim();
    let buffer = |rest: &str, zero: bool| match parse_uint(rest) {
        Some(bytes) if bytes > 0 => match check_buffer_bytes(bytes) {
            Ok(()) => Ok(ParamValue::Buffer { bytes, zero }),
            Err(e) => Err(format!("`{quoted}`: {e}")),
        },
        _ => Err(format!(
            "`{quoted}`: `{}` is not a positive byte count",
            crate::diag::excerpt(rest)
        )),
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
                    "`{quoted}`: expected an integer, buf:BYTES or zeros:BYTES"
                ))
            }
        }
    };
    Ok((name.to_string(), v))
}

/// An integer argument: its 64 bits, so `0xffffffffffffffff` is -1 (the
/// kernel reads it at its parameter's width).
fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = parse_uint(body)? as i64;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// A size: decimal or `0x` hex, no sign, no wrapping.
fn parse_uint(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse::<u64>().ok(),
    }
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
            "--grid" => launch.grid = Some(parse_grid(&value()?)?),
            "--block" => launch.block = Some(parse_block(&value()?)?),
            "--param" => {
                let (k, v) = parse_param(&value()?)?;
                launch.params.retain(|(b, _)| *b != k);
                launch.params.push((k, v));
            }
            "--shared-bytes" => {
                let v = value()?;
                launch.shared_bytes = Some(
                    parse_shared_bytes(&v).map_err(|e| format!("`--shared-bytes`: {e}"))?,
                );
            }
            other => {
                return Err(format!(
                    "unknown option `{}` (expected --kernel, --grid, --block, --param or --shared-bytes)",
                    crate::diag::excerpt(other)
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
    fn sizes_past_cudas_limits_are_refused() {
        assert_eq!(
            parse_grid("2147483647,65535,65535"),
            Ok([(1 << 31) - 1, 65535, 65535])
        );
        assert_eq!(parse_block("1024"), Ok([1024, 1, 1]));
        assert_eq!(parse_block("16,16,4"), Ok([16, 16, 4]));
        for bad in ["2147483648", "1,65536", "1,1,65536"] {
            assert!(parse_grid(bad).is_err(), "{bad}");
        }
        for bad in ["1025", "1,1025", "1,1,65", "32,32,2", "65536,65536"] {
            assert!(parse_block(bad).is_err(), "{bad}");
        }
        assert!(parse_block("32,32,2").unwrap_err().contains("2048 threads"));
        assert_eq!(parse_shared_bytes("0x38c00"), Ok(MAX_SHARED_BYTES));
        assert!(parse_shared_bytes("232449").is_err());
        assert!(parse_shared_bytes("-1").is_err());
        assert!(parse_shared_bytes("18446744073709551616").is_err());
        assert!(parse_param("a=buf:0x10000000000").is_ok());
        assert!(parse_param("a=buf:0x10000000001").is_err());
        // No wrapping through the sign: this is not -1, and not a size.
        assert!(parse_param("a=zeros:0xffffffffffffffff")
            .unwrap_err()
            .contains("1 TiB"));
        // A launch built in code is checked whole.
        let l = Launch {
            grid: Some([65536, 65536, 1]),
            block: Some([65536, 65536, 1]),
            ..Launch::empty()
        };
        assert!(l.check_limits().is_err());
        let l = Launch {
            block: Some([4, 1, 1]),
            shared_bytes: Some(1 << 20),
            ..Launch::empty()
        };
        assert!(l.check_limits().unwrap_err().contains("shared memory"));
    }

    #[test]
    fn a_huge_word_is_quoted_short() {
        let word = "9".repeat(100_000);
        for e in [
            parse_dims(&word).unwrap_err(),
            parse_param(&format!("a=buf:{word}")).unwrap_err(),
            parse_param(&word).unwrap_err(),
            from_header(&format!("// gpumc-launch: {word}"))
                .unwrap_err()
                .message,
        ] {
            assert!(e.len() < 300, "{}", e.len());
        }
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
        let e = from_header("//\n// gpumc-launch: --block 1 --grid 65536,65536").unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 2, col: 17 }));
        assert!(e.message.contains("at most 65535"), "{}", e.message);
        let e = from_header("// gpumc-launch: --shared-bytes 1000000").unwrap_err();
        assert!(e.message.contains("227 KiB"), "{}", e.message);
    }
}
