//! A function body as a control-flow graph: basic blocks, their
//! terminators, the immediate post-dominators (where the two sides of a
//! branch meet again) and the natural loops (which a translation may
//! unroll).

use super::super::ast::{CallSpec, Guard, Instr, Operand, Stmt, VarDecl};
use crate::diag::{Error, Result};
use std::collections::HashMap;

pub type BlockId = usize;

/// How a block ends.
#[derive(Clone, Debug)]
pub enum Term<'a> {
    /// Unconditional jump (or falling through to the next block).
    Goto(BlockId),
    /// `@p bra L` (also `@p ret` / `@p exit`, whose taken side is a block
    /// that only returns or exits).
    Branch {
        guard: &'a Guard,
        taken: BlockId,
        not_taken: BlockId,
        instr: &'a Instr,
    },
    /// `call`: the callee runs, then `next`.
    Call { instr: &'a Instr, next: BlockId },
    /// `ret` (or the end of the body).
    Ret,
    /// `exit`: the thread ends, whatever function it is in.
    Exit,
}

#[derive(Clone, Debug)]
pub struct Block<'a> {
    pub instrs: Vec<&'a Instr>,
    pub term: Term<'a>,
}

pub struct Cfg<'a> {
    pub blocks: Vec<Block<'a>>,
    /// The virtual block every `ret`/`exit` leads to (`blocks.len()`).
    pub exit: BlockId,
    /// Immediate post-dominator of each block (`exit` for blocks no path
    /// leads from to the exit, such as the body of an endless loop).
    pub ipdom: Vec<BlockId>,
    /// Loops by header: the blocks of the natural loop (header included).
    pub loops: HashMap<BlockId, Vec<bool>>,
    /// Declarations inside the body (`.reg`, `.local`, `.shared`, `.param`).
    pub decls: Vec<&'a VarDecl>,
    /// `.callprototype` and `.calltargets` labels of the body, by name.
    pub specs: HashMap<&'a str, &'a CallSpec>,
}

impl Cfg<'_> {
    /// The loops (by header) that contain block `b`, innermost last is not
    /// guaranteed; callers test membership.
    pub fn loops_containing(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.loops
            .iter()
            .filter(move |(_, body)| body.get(b).copied().unwrap_or(false))
            .map(|(&h, _)| h)
    }

    /// Whether `b` lies in the loop headed by `h` (the exit is in none).
    pub fn in_loop(&self, h: BlockId, b: BlockId) -> bool {
        self.loops
            .get(&h)
            .is_some_and(|body| body.get(b).copied().unwrap_or(false))
    }
}

enum Flat<'a> {
    Instr(&'a Instr),
    Label(&'a str, crate::ir::Pos),
}

fn flatten<'a>(
    body: &'a [Stmt],
    out: &mut Vec<Flat<'a>>,
    decls: &mut Vec<&'a VarDecl>,
    specs: &mut HashMap<&'a str, &'a CallSpec>,
) -> Result<()> {
    for s in body {
        match s {
            Stmt::Label { name, pos } => out.push(Flat::Label(name, *pos)),
            Stmt::Instr(i) => out.push(Flat::Instr(i)),
            Stmt::Var(v) => decls.push(v),
            Stmt::Block { body, .. } => flatten(body, out, decls, specs)?,
            Stmt::Pragma { .. } => {}
            Stmt::CallSpec(c) => {
                if let Some(old) = specs.insert(&c.name, c) {
                    return Err(Error::semantic(
                        c.pos,
                        format!("`{}` defined twice (first at {})", c.name, old.pos),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn label_of(i: &Instr) -> Result<&str> {
    match i.operands.as_slice() {
        [Operand::Sym { name, .. }] => Ok(name),
        _ => Err(Error::syntax(
            i.pos,
            format!("`{}` needs a label operand", i.opcode),
        )),
    }
}

/// Builds the graph of one function body.
pub fn build(body: &[Stmt]) -> Result<Cfg<'_>> {
    let mut flat = Vec::new();
    let mut decls = Vec::new();
    let mut specs = HashMap::new();
    flatten(body, &mut flat, &mut decls, &mut specs)?;

    // Leaders: the first statement, every label, every statement after a
    // terminator.
    let mut starts = vec![0usize];
    let mut labels: HashMap<&str, usize> = HashMap::new();
    for (k, f) in flat.iter().enumerate() {
        match f {
            Flat::Label(name, pos) => {
                if labels.insert(name, k).is_some() {
                    return Err(Error::semantic(
                        *pos,
                        format!("label `{name}` defined twice"),
                    ));
                }
                starts.push(k);
            }
            Flat::Instr(i) if ends_block(i) => starts.push(k + 1),
            Flat::Instr(_) => {}
        }
    }
    starts.push(flat.len());
    starts.sort_unstable();
    starts.dedup();
    // Ranges [starts[n], starts[n+1]) are blocks; the last start is the end.
    let nblocks = starts.len() - 1;
    let block_at: HashMap<usize, BlockId> =
        starts.iter().enumerate().map(|(b, &s)| (s, b)).collect();
    let target = |name: &str, i: &Instr| -> Result<BlockId> {
        labels
            .get(name)
            .and_then(|k| block_at.get(k).copied())
            .ok_or_else(|| Error::semantic(i.pos, format!("unknown label `{name}`")))
    };
    // Blocks `0..nblocks` are the ranges; block `nblocks` is the end of
    // the body (falling off it returns); the taken sides of `@p ret` and
    // `@p exit` follow it.
    let end = nblocks;
    let mut blocks: Vec<Block> = Vec::with_capacity(nblocks + 4);
    let mut extra: Vec<Block> = Vec::new();
    for b in 0..nblocks {
        let (lo, hi) = (starts[b], starts[b + 1]);
        let mut instrs = Vec::new();
        let mut term = Term::Goto(b + 1);
        for f in &flat[lo..hi] {
            let Flat::Instr(i) = f else { continue };
            if !ends_block(i) {
                instrs.push(*i);
                continue;
            }
            term = match (i.opcode.as_str(), &i.guard) {
                ("bra", None) => Term::Goto(target(label_of(i)?, i)?),
                ("bra", Some(g)) => Term::Branch {
                    guard: g,
                    taken: target(label_of(i)?, i)?,
                    not_taken: b + 1,
                    instr: i,
                },
                ("ret" | "exit" | "trap", g) => {
                    let t = if i.opcode == "ret" {
                        Term::Ret
                    } else {
                        Term::Exit
                    };
                    match g {
                        None => t,
                        Some(g) => {
                            extra.push(Block {
                                instrs: vec![],
                                term: t,
                            });
                            Term::Branch {
                                guard: g,
                                taken: end + extra.len(),
                                not_taken: b + 1,
                                instr: i,
                            }
                        }
                    }
                }
                ("call", _) => Term::Call {
                    instr: i,
                    next: b + 1,
                },
                _ => unreachable!("ends_block covers these opcodes"),
            };
        }
        blocks.push(Block { instrs, term });
    }
    blocks.push(Block {
        instrs: vec![],
        term: Term::Ret,
    });
    blocks.extend(extra);
    let exit = blocks.len();
    let succs: Vec<Vec<BlockId>> = blocks.iter().map(|b| successors(&b.term, exit)).collect();
    let ipdom = post_dominators(&succs, exit);
    let loops = natural_loops(&blocks, &succs, exit)?;
    Ok(Cfg {
        blocks,
        exit,
        ipdom,
        loops,
        decls,
        specs,
    })
}

fn ends_block(i: &Instr) -> bool {
    matches!(i.opcode.as_str(), "bra" | "ret" | "exit" | "trap" | "call")
}

pub fn successors(t: &Term, exit: BlockId) -> Vec<BlockId> {
    match t {
        Term::Goto(n) => vec![*n],
        Term::Branch {
            taken, not_taken, ..
        } => vec![*taken, *not_taken],
        Term::Call { next, .. } => vec![*next],
        Term::Ret | Term::Exit => vec![exit],
    }
}

/// Immediate dominators of a graph given by `preds` over nodes `0..n`
/// from `root` (Cooper, Harvey and Kennedy's iterative algorithm); nodes
/// the root does not reach get `None`.
fn dominators(
    n: usize,
    root: usize,
    succ: &[Vec<usize>],
    pred: &[Vec<usize>],
) -> Vec<Option<usize>> {
    // Reverse post-order from the root.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
    seen[root] = true;
    while let Some((v, k)) = stack.pop() {
        if k < succ[v].len() {
            stack.push((v, k + 1));
            let w = succ[v][k];
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            order.push(v);
        }
    }
    order.reverse();
    let mut rank = vec![usize::MAX; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r;
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[root] = Some(root);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
        while a != b {
            while rank[a] > rank[b] {
                a = idom[a].expect("processed");
            }
            while rank[b] > rank[a] {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &pred[v] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(x) => intersect(&idom, p, x),
                });
            }
            if new.is_some() && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    idom
}

fn post_dominators(succs: &[Vec<BlockId>], exit: BlockId) -> Vec<BlockId> {
    let n = succs.len() + 1;
    // The reverse graph: edges from each block's successors to it.
    let mut rsucc = vec![Vec::new(); n];
    let mut rpred = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            rsucc[s].push(b);
            rpred[b].push(s);
        }
    }
    let idom = dominators(n, exit, &rsucc, &rpred);
    (0..succs.len()).map(|b| idom[b].unwrap_or(exit)).collect()
}

fn natural_loops(
    blocks: &[Block],
    succs: &[Vec<BlockId>],
    exit: BlockId,
) -> Result<HashMap<BlockId, Vec<bool>>> {
    let n = blocks.len();
    let mut pred = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            if s != exit {
                pred[s].push(b);
            }
        }
    }
    let fwd: Vec<Vec<usize>> = succs
        .iter()
        .map(|ss| ss.iter().copied().filter(|&s| s != exit).collect())
        .collect();
    let idom = dominators(n, 0, &fwd, &pred);
    let dominates = |a: usize, mut b: usize| -> bool {
        loop {
            if a == b {
                return true;
            }
            match idom[b] {
                Some(p) if p != b => b = p,
                _ => return false,
            }
        }
    };
    let (pre, post) = dfs_numbers(&fwd);
    // `s -> h` retreats iff `h` is an ancestor of `s` in the depth-first
    // tree from the entry.
    let retreats = |s: usize, h: usize| pre[h] <= pre[s] && post[s] <= post[h];
    let mut loops: HashMap<BlockId, Vec<bool>> = HashMap::new();
    for (s, ss) in fwd.iter().enumerate() {
        if idom[s].is_none() {
            continue; // unreachable code
        }
        for &h in ss {
            if !retreats(s, h) {
                continue;
            }
            if !dominates(h, s) {
                let pos = blocks[s].instrs.last().map(|i| i.pos).unwrap_or_default();
                return Err(Error::unsupported(
                    pos,
                    "irreducible control flow (a loop entered other than through its header)",
                ));
            }
            let body = loops.entry(h).or_insert_with(|| vec![false; n]);
            body[h] = true;
            let mut stack = vec![s];
            while let Some(v) = stack.pop() {
                if body[v] {
                    continue;
                }
                body[v] = true;
                stack.extend(pred[v].iter().copied());
            }
        }
    }
    Ok(loops)
}

/// Pre- and post-order numbers of a depth-first search from block 0
/// (`usize::MAX` for blocks it does not reach).
fn dfs_numbers(fwd: &[Vec<usize>]) -> (Vec<usize>, Vec<usize>) {
    let n = fwd.len();
    let mut pre = vec![usize::MAX; n];
    let mut post = vec![usize::MAX; n];
    let (mut clock_pre, mut clock_post) = (0, 0);
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    pre[0] = 0;
    clock_pre += 1;
    while let Some((v, k)) = stack.pop() {
        if k < fwd[v].len() {
            stack.push((v, k + 1));
            let w = fwd[v][k];
            if pre[w] == usize::MAX {
                pre[w] = clock_pre;
                clock_pre += 1;
                stack.push((w, 0));
            }
        } else {
            post[v] = clock_post;
            clock_post += 1;
        }
    }
    (pre, post)
}
