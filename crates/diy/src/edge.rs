//! The edges of a relaxation cycle, in diy's vocabulary (Alglave,
//! Maranget, Sarkar, Sewell, CAV'10 and the herdtools documentation):
//! communication edges between threads or within one (`Rfe`, `Rfi`,
//! `Fre`, `Fri`, `Wse`/`Coe`, `Wsi`/`Coi`) and program-order edges
//! (`PodWW`, `PosRR`, `DpAddrdR`, `DpDatadW`, `FencedWR`, …), each with
//! the directions of its two events, plus the GPU fences of PTX named the
//! way diy names a fence edge: the fence, `d`/`s` (different or same
//! location), the two directions — `Membar.ctadWW`, `Fence.sc.gpudRR`.

use gpumc_core::diag::{Error, Result};
use gpumc_core::ir::Pos;

/// A memory access's direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    R,
    W,
}

impl Dir {
    pub fn letter(self) -> char {
        match self {
            Dir::R => 'R',
            Dir::W => 'W',
        }
    }
}

/// A communication edge's relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Com {
    /// Reads-from: a write to the read that reads it.
    Rf,
    /// From-read: a read to a write coherence-after the one it reads.
    Fr,
    /// Coherence (write serialisation): a write to a later one.
    Ws,
}

/// What orders a program-order edge's two events.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Via {
    /// Nothing (`Po`).
    Plain,
    /// A fence between them: its PTX instruction (`membar.cta`,
    /// `fence.sc.gpu`), or `None` for diy's generic `Fenced**`, which
    /// the `--fence` option names.
    Fence(Option<String>),
    /// An address dependency from the first (a read).
    Addr,
    /// A data dependency from the first (a read) to the second (a write).
    Data,
    /// A control dependency from the first (a read).
    Ctrl,
}

/// One edge of a cycle.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edge {
    Com {
        com: Com,
        /// Between two threads (`…e`) or within one (`…i`).
        external: bool,
    },
    Po {
        via: Via,
        /// The two events access one location (`s`) or two (`d`).
        same_loc: bool,
        from: Dir,
        to: Dir,
    },
}

impl Edge {
    /// The directions of the edge's source and target events.
    pub fn dirs(&self) -> (Dir, Dir) {
        match self {
            Edge::Com { com: Com::Rf, .. } => (Dir::W, Dir::R),
            Edge::Com { com: Com::Fr, .. } => (Dir::R, Dir::W),
            Edge::Com { com: Com::Ws, .. } => (Dir::W, Dir::W),
            Edge::Po { from, to, .. } => (*from, *to),
        }
    }

    /// Whether the edge goes from one thread to another.
    pub fn external(&self) -> bool {
        matches!(self, Edge::Com { external: true, .. })
    }

    /// Whether the edge changes location (a `d` program-order edge).
    pub fn changes_loc(&self) -> bool {
        matches!(
            self,
            Edge::Po {
                same_loc: false,
                ..
            }
        )
    }

    /// The edge's name in diy's vocabulary (`Rfe`, `PodWW`,
    /// `Membar.ctadWR`); the name it was parsed from, up to the aliases
    /// `Coe`/`Wse`.
    pub fn name(&self) -> String {
        match self {
            Edge::Com { com, external } => format!(
                "{}{}",
                match com {
                    Com::Rf => "Rf",
                    Com::Fr => "Fr",
                    Com::Ws => "Ws",
                },
                if *external { 'e' } else { 'i' }
            ),
            Edge::Po {
                via,
                same_loc,
                from,
                to,
            } => {
                let head = match via {
                    Via::Plain => "Po".to_string(),
                    Via::Fence(None) => "Fence".to_string(),
                    Via::Fence(Some(f)) => fence_edge_name(f),
                    Via::Addr => "DpAddr".to_string(),
                    Via::Data => "DpData".to_string(),
                    Via::Ctrl => "DpCtrl".to_string(),
                };
                // (a dependency's source is a read: not written)
                let from = match via {
                    Via::Addr | Via::Data | Via::Ctrl => String::new(),
                    _ => from.letter().to_string(),
                };
                format!(
                    "{head}{}{from}{}",
                    if *same_loc { 's' } else { 'd' },
                    to.letter()
                )
            }
        }
    }
}

/// The PTX fences a cycle may name, as instructions.
pub const PTX_FENCES: &[&str] = &[
    "membar.cta",
    "membar.gl",
    "membar.sys",
    "fence.sc.cta",
    "fence.sc.gpu",
    "fence.sc.sys",
    "fence.acq_rel.cta",
    "fence.acq_rel.gpu",
    "fence.acq_rel.sys",
];

/// `membar.cta` → `Membar.cta` (diy capitalises a fence edge's name).
fn fence_edge_name(fence: &str) -> String {
    let mut c = fence.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// Parses one edge name; `col` is its column in the cycle, for errors.
pub fn parse_edge(word: &str, col: u32) -> Result<Edge> {
    let bad = |what: String| Err(Error::syntax(Pos { line: 1, col }, what));
    let com = |com, external| Ok(Edge::Com { com, external });
    match word {
        "Rfe" => return com(Com::Rf, true),
        "Rfi" => return com(Com::Rf, false),
        "Fre" => return com(Com::Fr, true),
        "Fri" => return com(Com::Fr, false),
        "Wse" | "Coe" => return com(Com::Ws, true),
        "Wsi" | "Coi" => return com(Com::Ws, false),
        _ => {}
    }
    // A program-order edge: HEAD, then `d`/`s`, then two directions —
    // one for a dependency, whose source is always a read (`DpAddrdW`).
    let dep = word.starts_with("Dp");
    let Some(split) = word.len().checked_sub(if dep { 2 } else { 3 }) else {
        return bad(unknown(word));
    };
    if !word.is_char_boundary(split) {
        return bad(unknown(word));
    }
    let (head, tail) = word.split_at(split);
    let mut t: Vec<char> = tail.chars().collect();
    if dep {
        t.insert(1, 'R');
    }
    let same_loc = match t[0] {
        'd' => false,
        's' => true,
        _ => return bad(unknown(word)),
    };
    let dir = |c: char| match c {
        'R' => Some(Dir::R),
        'W' => Some(Dir::W),
        _ => None,
    };
    let (Some(from), Some(to)) = (dir(t[1]), dir(t[2])) else {
        return bad(unknown(word));
    };
    let via = match head {
        "Po" => Via::Plain,
        "Fence" => Via::Fence(None),
        "DpAddr" => Via::Addr,
        "DpData" => Via::Data,
        "DpCtrl" => Via::Ctrl,
        h => match PTX_FENCES.iter().find(|f| fence_edge_name(f) == h) {
            Some(f) => Via::Fence(Some(f.to_string())),
            None => return bad(unknown(word)),
        },
    };
    match (&via, from, to) {
        (Via::Addr | Via::Data | Via::Ctrl, _, _) if !dep => return bad(unknown(word)),
        (Via::Data, _, Dir::R) => {
            return bad(format!(
                "`{word}`: a data dependency ends at a write (`DpData{}W`)",
                t[0]
            ))
        }
        _ => {}
    }
    Ok(Edge::Po {
        via,
        same_loc,
        from,
        to,
    })
}

fn unknown(word: &str) -> String {
    format!(
        "unknown edge `{word}` (expected Rfe, Rfi, Fre, Fri, Wse, Wsi, Coe, Coi, or Po/Fence/DpAddr/DpData/DpCtrl or a PTX fence such as Membar.cta, then d or s, then two of R and W — one for a dependency, which starts at a read: PodWR, DpAddrdR, Membar.gldWW)"
    )
}

/// Parses a cycle: edge names separated by spaces (or commas), each with
/// its column.
pub fn parse_cycle(text: &str) -> Result<Vec<(Edge, u32)>> {
    let mut edges = Vec::new();
    let mut word = String::new();
    let mut start = 1u32;
    for (col, c) in (1u32..).zip(text.chars().chain(std::iter::once(' '))) {
        if c.is_whitespace() || c == ',' {
            if !word.is_empty() {
                edges.push((parse_edge(&word, start)?, start));
                word.clear();
            }
        } else {
            if word.is_empty() {
                start = col;
            }
            word.push(c);
        }
    }
    if edges.is_empty() {
        return Err(Error::syntax(Pos { line: 1, col: 1 }, "an empty cycle"));
    }
    Ok(edges)
}
