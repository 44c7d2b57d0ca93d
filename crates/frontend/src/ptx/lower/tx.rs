//! One thread's translation: a walk over the control-flow graph with a
//! translation state (`value::State`), emitting IR as it goes.
//!
//! * A branch on a known predicate is resolved. A branch on a run-time
//!   predicate becomes an IR branch; both sides are walked to the branch
//!   block's immediate post-dominator, where their states are merged
//!   (values that differ are moved into the slot's IR register on each
//!   side) and the walk goes on once.
//! * A loop is unrolled while no run-time branch leaves it (its trip count
//!   follows from known values), up to `MAX_UNROLL` iterations. Otherwise
//!   it becomes an IR loop: the state at its header is widened until the
//!   back edges agree with it (dry walks, whose code is discarded), then
//!   the body is emitted once, and the engine unrolls it under `--bound`.
//!   Finding out mid-walk that a loop cannot be unrolled restarts the
//!   thread's translation with the loop marked (`Assume`).
//! * Calls are inlined; `ret` leads to the callee's exit, where the states
//!   of all returns merge.
//!
//! Code is laid out so that every backward jump is a loop back edge, as
//! the engines' loop analysis expects.

use super::arith::{Arg, V};
use super::cfg::{BlockId, Cfg, Term};
use super::value::{join, BufId, Slot, State, Val};
use super::{Code, Shared, ThreadCtx};
use crate::diag::{Error, ErrorKind};
use crate::ir::{self, BinOp, CmpOp, InstrKind, Operand as IrOp, Pos};
use crate::ptx::ast::{CallSpecKind, Function, Instr as PInstr, Operand, Param, Space};
use std::collections::HashMap;

/// Something the translation assumed and found wrong.
#[derive(Debug)]
pub(super) enum Assume {
    /// The loop (function, header) cannot be unrolled.
    DynamicLoop(String, BlockId),
    /// Argument `k` (its bytes at the offset: a struct's field) is an
    /// integer, not a pointer.
    IntParam(usize, i64),
    /// Argument `k` (at the offset) is called: a function pointer.
    FnParam(usize, i64),
    /// The global buffer (by name) is memory: some thread writes it or
    /// indexes it at run time.
    Memory(String),
    /// The private array (function, declaration) is indexed at run time:
    /// it is IR memory of its thread.
    LocalMemory(String, String),
}

#[derive(Debug)]
pub(super) enum TxErr {
    Error(Error),
    Restart(Assume),
}

impl From<Error> for TxErr {
    fn from(e: Error) -> Self {
        TxErr::Error(e)
    }
}

pub(super) type TxResult<T> = std::result::Result<T, TxErr>;

/// Most IR instructions one thread may become.
const MAX_CODE: usize = 400_000;
/// Most iterations of one loop entry that are unrolled.
const MAX_UNROLL: u32 = 2048;
/// The label that ends a thread.
const END: &str = "$end";

pub(super) enum Item {
    I(Box<ir::Instr>),
    /// Moves decided when a join's states are merged.
    Fix(usize),
}

enum StopKind {
    /// A join point: the states of the paths that reach it.
    Join(Vec<(State, usize)>),
    /// The header of an IR loop: a path that reaches it moves its values
    /// into the header's state and jumps back.
    Back(State),
    /// The header of a loop being widened: the states of its back edges.
    Collect(Vec<State>),
}

struct Stop {
    frame: u32,
    block: BlockId,
    label: String,
    kind: StopKind,
}

/// An inlined function activation.
pub(super) struct Frame<'a> {
    pub func: &'a Function,
    pub cfg: &'a Cfg<'a>,
    /// Unique per activation: registers are named by it.
    pub id: u32,
    /// Private buffers by name: the function's `.local` and `.param`
    /// variables, and its parameters (bound to the caller's).
    pub bufs: HashMap<String, BufId>,
    /// Buffers this activation made (dropped from the state on return).
    pub owned: Vec<BufId>,
}

pub(super) struct Tx<'a, 'm> {
    pub code: &'m Code<'m>,
    pub sh: &'a mut Shared,
    pub th: &'a ThreadCtx,
    pub frames: Vec<Frame<'m>>,
    items: Vec<Item>,
    fixes: Vec<Vec<ir::Instr>>,
    stops: Vec<Stop>,
    /// Iterations of the current entry of each unrolled loop.
    visits: HashMap<(u32, BlockId), u32>,
    next_label: u32,
    next_temp: u32,
    next_frame: u32,
    /// The instruction being translated (positions and texts of what it
    /// emits).
    pub pos: Pos,
    pub text: String,
}

/// Translates one thread of the launch.
pub(super) fn translate<'m>(
    code: &'m Code<'m>,
    sh: &mut Shared,
    th: &ThreadCtx,
) -> TxResult<Vec<ir::Instr>> {
    let kernel = code.kernel;
    let mut tx = Tx {
        code,
        sh,
        th,
        frames: Vec::new(),
        items: Vec::new(),
        fixes: Vec::new(),
        stops: Vec::new(),
        visits: HashMap::new(),
        next_label: 0,
        next_temp: 0,
        next_frame: 0,
        pos: kernel.pos,
        text: String::new(),
    };
    tx.push_frame(kernel, HashMap::new())?;
    tx.walk(0, 0, State::default(), None)?;
    let mut out = Vec::with_capacity(tx.items.len() + 1);
    let fixes = std::mem::take(&mut tx.fixes);
    for it in std::mem::take(&mut tx.items) {
        match it {
            Item::I(i) => out.push(*i),
            Item::Fix(k) => out.extend(fixes[k].iter().cloned()),
        }
    }
    out.push(ir::Instr::new(
        InstrKind::Label(END.into()),
        vec![],
        kernel.pos,
        format!("{END}:"),
    ));
    Ok(out)
}

impl<'a, 'm> Tx<'a, 'm> {
    // ----- frames and names -------------------------------------------

    fn push_frame(&mut self, func: &'m Function, bound: HashMap<String, BufId>) -> TxResult<()> {
        let cfg: &'m Cfg<'m> = &self.code.cfgs[func.name.as_str()];
        let id = self.next_frame;
        self.next_frame += 1;
        let mut bufs = bound;
        let mut owned = Vec::new();
        for d in &cfg.decls {
            match d.space {
                Space::Local | Space::Param => {
                    let key = (func.name.clone(), d.name.clone());
                    let b = self.sh.private_buffer(d)?;
                    if self.sh.learned.local_memory.contains(&key) {
                        let buf = &mut self.sh.mem.buffers[b];
                        buf.kind = super::memory::BufKind::LocalMemory;
                        buf.name = format!("{}@{}", d.name, super::thread_name(self.th));
                    }
                    self.sh.private_owner.insert(b, key);
                    bufs.insert(d.name.clone(), b);
                    owned.push(b);
                }
                Space::Global | Space::Shared | Space::Const | Space::SharedCluster => {
                    super::declare_var(&mut self.sh.mem, d)?;
                }
                Space::Reg | Space::Sreg | Space::Tex => {}
            }
        }
        self.frames.push(Frame {
            func,
            cfg,
            id,
            bufs,
            owned,
        });
        Ok(())
    }

    /// The IR register that holds a slot's run-time value.
    pub fn slot_reg(&self, s: &Slot) -> String {
        match s {
            Slot::Reg(0, r) => r.clone(),
            Slot::Reg(f, r) => format!("f{f}.{r}"),
            Slot::Priv(b, o, z) => format!("${}+{o}:{z}", self.sh.mem.buffers[*b].name),
            Slot::Bar(k) => format!("$bar{k}"),
        }
    }

    pub fn temp(&mut self) -> String {
        self.next_temp += 1;
        format!("$t{}", self.next_temp)
    }

    pub fn label(&mut self) -> String {
        self.next_label += 1;
        format!("$L{}", self.next_label)
    }

    // ----- emission -----------------------------------------------------

    /// Emits an IR instruction at the current PTX position.
    pub fn emit(&mut self, kind: InstrKind, tags: Vec<String>) {
        if matches!(kind, InstrKind::Unreachable { .. }) {
            // The thread stops at undefined behaviour: the others' warp
            // collectives must not wait for it (`collective.rs`).
            self.exchange_gone();
        }
        let mut i = ir::Instr::new(kind, tags, self.pos, self.text.clone());
        crate::tagging::finish(ir::Arch::Ptx, &mut i);
        self.items.push(Item::I(Box::new(i)));
    }

    pub fn emit_label(&mut self, l: String) {
        let t = format!("{l}:");
        self.items.push(Item::I(Box::new(ir::Instr::new(
            InstrKind::Label(l),
            vec![],
            self.pos,
            t,
        ))));
    }

    pub fn emit_goto(&mut self, l: &str) {
        self.items.push(Item::I(Box::new(ir::Instr::new(
            InstrKind::Goto(l.to_string()),
            vec![],
            self.pos,
            format!("goto {l}"),
        ))));
    }

    pub fn emit_move(&mut self, dst: String, src: IrOp) {
        self.emit(
            InstrKind::Local {
                dst,
                op: BinOp::Add,
                a: src,
                b: IrOp::Const(0),
            },
            vec![],
        );
    }

    /// Emits the moves of [`Tx::moves`].
    pub fn emit_moves(&mut self, from: &State, to: &State) {
        let mv = self.moves(from, to);
        self.items
            .extend(mv.into_iter().map(|i| Item::I(Box::new(i))));
    }

    /// The moves that bring the values of `from` into the slots where
    /// `to` expects them at run time.
    fn moves(&self, from: &State, to: &State) -> Vec<ir::Instr> {
        let mut out = Vec::new();
        for (s, v) in &to.slots {
            let k = match (v, from.get(s)) {
                (Val::Dyn, Val::Known(c)) => c,
                (Val::Ptr { off: None, .. }, Val::Ptr { off: Some(o), .. }) => o,
                _ => continue,
            };
            let dst = self.slot_reg(s);
            out.push(ir::Instr::new(
                InstrKind::Local {
                    dst: dst.clone(),
                    op: BinOp::Add,
                    a: IrOp::Const(k),
                    b: IrOp::Const(0),
                },
                vec![],
                self.pos,
                format!("{dst} := {k} (join)"),
            ));
        }
        out
    }

    pub fn join_states(&self, a: &State, b: &State, pos: Pos) -> TxResult<State> {
        let mut out = a.clone();
        for (s, vb) in &b.slots {
            let va = a.get(s);
            match join(&va, vb) {
                Some(v) => out.set(s.clone(), v),
                None => {
                    return Err(Error::unsupported(
                        pos,
                        format!(
                            "`{}` holds the address of different buffers (or an address and an integer) on paths that meet here",
                            self.slot_reg(s)
                        ),
                    )
                    .into())
                }
            }
        }
        Ok(out)
    }

    /// Merges the states that reached a join and fills in their moves.
    fn merge(&mut self, arrivals: Vec<(State, usize)>) -> TxResult<State> {
        let mut merged = arrivals[0].0.clone();
        for (s, _) in &arrivals[1..] {
            merged = self.join_states(&merged, s, self.pos)?;
        }
        for (s, fix) in &arrivals {
            self.fixes[*fix] = self.moves(s, &merged);
        }
        Ok(merged)
    }

    fn emit_goto_end(&mut self) {
        self.emit_goto(END);
    }

    // ----- the walk -----------------------------------------------------

    fn stop_at(&self, frame: u32, b: BlockId) -> Option<usize> {
        self.stops
            .iter()
            .rposition(|s| s.frame == frame && s.block == b)
    }

    fn arrive(&mut self, k: usize, st: State) {
        let label = self.stops[k].label.clone();
        match &self.stops[k].kind {
            StopKind::Join(_) => {
                self.fixes.push(Vec::new());
                let fix = self.fixes.len() - 1;
                self.items.push(Item::Fix(fix));
                if let StopKind::Join(a) = &mut self.stops[k].kind {
                    a.push((st, fix));
                }
                self.emit_goto(&label);
            }
            StopKind::Back(target) => {
                let mv = self.moves(&st, target);
                self.items
                    .extend(mv.into_iter().map(|i| Item::I(Box::new(i))));
                self.emit_goto(&label);
            }
            StopKind::Collect(_) => {
                if let StopKind::Collect(v) = &mut self.stops[k].kind {
                    v.push(st);
                }
            }
        }
    }

    fn is_dynamic(&self, fr: usize, h: BlockId) -> bool {
        let f = &self.frames[fr].func.name;
        self.sh.learned.dynamic_loops.contains(&(f.clone(), h))
    }

    fn restart_loop(&self, fr: usize, h: BlockId) -> TxErr {
        TxErr::Restart(Assume::DynamicLoop(self.frames[fr].func.name.clone(), h))
    }

    /// Walks from block `b` of frame `fr` with state `st` until every path
    /// ends at a stop, the thread's end, or a dead end. `from`: the block
    /// the walk comes from (`None` at the start, or when `b` is a loop
    /// header entered by `dynamic_loop`, which owns its stops).
    fn walk(
        &mut self,
        fr: usize,
        mut b: BlockId,
        mut st: State,
        from: Option<BlockId>,
    ) -> TxResult<()> {
        let cfg: &'m Cfg<'m> = self.frames[fr].cfg;
        let fid = self.frames[fr].id;
        let mut prev = from;
        let mut at_header = from.is_none() && !self.stops.is_empty() && self.owns_header(fid, b);
        loop {
            if self.items.len() > MAX_CODE {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "unsupported: kernel `{}` unrolls to more than {MAX_CODE} instructions in one thread",
                        self.code.kernel.name
                    ),
                )
                .into());
            }
            if !at_header {
                if let Some(k) = self.stop_at(fid, b) {
                    self.arrive(k, st);
                    return Ok(());
                }
            }
            if b == cfg.exit {
                // A callee's exit always has its join; this is the kernel's.
                self.exchange_exits(&st)?;
                self.emit_goto_end();
                return Ok(());
            }
            if !at_header && cfg.loops.contains_key(&b) {
                if self.is_dynamic(fr, b) {
                    match self.dynamic_loop(fr, b, st)? {
                        Some((s, x)) => {
                            st = s;
                            prev = Some(b);
                            b = x;
                            continue;
                        }
                        None => return Ok(()),
                    }
                }
                let entering = prev.is_none_or(|p| !cfg.in_loop(b, p));
                let n = self.visits.entry((fid, b)).or_insert(0);
                *n = if entering { 1 } else { *n + 1 };
                if *n > MAX_UNROLL {
                    return Err(self.restart_loop(fr, b));
                }
            }
            at_header = false;
            for &i in &cfg.blocks[b].instrs {
                self.instr(fr, &mut st, i)?;
            }
            prev = Some(b);
            match &cfg.blocks[b].term {
                Term::Goto(n) => b = *n,
                Term::Ret => b = cfg.exit,
                Term::Exit => {
                    self.exchange_exits(&st)?;
                    self.emit_goto_end();
                    return Ok(());
                }
                Term::Call { instr, next } => {
                    self.at(Some(instr));
                    match self.call(fr, instr, st)? {
                        Some(s) => {
                            st = s;
                            b = *next;
                        }
                        None => return Ok(()),
                    }
                }
                Term::Branch {
                    guard,
                    taken,
                    not_taken,
                    instr,
                } => {
                    self.at(Some(instr));
                    match self.guard_value(fr, &mut st, guard)? {
                        Cond::Known(c) => b = if c { *taken } else { *not_taken },
                        Cond::Run(c) => {
                            if taken == not_taken {
                                b = *taken;
                                continue;
                            }
                            match self.diamond(fr, b, c, *taken, *not_taken, st)? {
                                Some(s) => {
                                    st = s;
                                    b = cfg.ipdom[b];
                                }
                                None => return Ok(()),
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether the innermost stop is the back edge of loop `b` (the walk
    /// starts at the header of the loop `dynamic_loop` is emitting).
    fn owns_header(&self, fid: u32, b: BlockId) -> bool {
        self.stops.last().is_some_and(|s| {
            s.frame == fid
                && s.block == b
                && matches!(s.kind, StopKind::Back(_) | StopKind::Collect(_))
        })
    }

    /// Sets the position and text of what is emitted next.
    pub fn at(&mut self, i: Option<&PInstr>) {
        if let Some(i) = i {
            self.pos = i.pos;
            self.text = i.text.clone();
            self.sh.note_source(i);
        }
    }

    /// Both sides of a run-time branch, to their join (`None`: no path
    /// reaches it).
    fn diamond(
        &mut self,
        fr: usize,
        b: BlockId,
        c: IfCond,
        taken: BlockId,
        not_taken: BlockId,
        st: State,
    ) -> TxResult<Option<State>> {
        let cfg: &'m Cfg<'m> = self.frames[fr].cfg;
        let fid = self.frames[fr].id;
        let j = cfg.ipdom[b];
        // A run-time exit from a loop being unrolled: it cannot be.
        for h in cfg.loops_containing(b) {
            if !self.is_dynamic(fr, h) && (j == cfg.exit || !cfg.in_loop(h, j)) {
                return Err(self.restart_loop(fr, h));
            }
        }
        let lt = self.label();
        let lj = self.label();
        let no_join = j == cfg.exit && fr == 0;
        if !no_join {
            self.stops.push(Stop {
                frame: fid,
                block: j,
                label: lj.clone(),
                kind: StopKind::Join(Vec::new()),
            });
        }
        self.emit(
            InstrKind::Branch {
                op: if c.negated { CmpOp::Eq } else { CmpOp::Ne },
                a: IrOp::Reg(c.reg),
                b: IrOp::Const(0),
                target: lt.clone(),
            },
            vec![],
        );
        self.walk(fr, not_taken, st.clone(), Some(b))?;
        self.emit_label(lt);
        self.walk(fr, taken, st, Some(b))?;
        if no_join {
            return Ok(None);
        }
        self.close_join(lj)
    }

    /// Pops the innermost stop, a join, and merges the states that reached
    /// it there, at label `l` (`None`: no path reached it).
    fn close_join(&mut self, l: String) -> TxResult<Option<State>> {
        let Some(Stop {
            kind: StopKind::Join(arrivals),
            ..
        }) = self.stops.pop()
        else {
            unreachable!("the innermost stop is the caller's join")
        };
        if arrivals.is_empty() {
            return Ok(None);
        }
        let merged = self.merge(arrivals)?;
        self.emit_label(l);
        Ok(Some(merged))
    }

    /// An IR loop at header `h`; returns the state at the loop's exit
    /// point and that block (`None`: the loop is never left).
    fn dynamic_loop(
        &mut self,
        fr: usize,
        h: BlockId,
        st: State,
    ) -> TxResult<Option<(State, BlockId)>> {
        let cfg: &'m Cfg<'m> = self.frames[fr].cfg;
        let fid = self.frames[fr].id;
        // Where the loop's exits meet: the first post-dominator of the
        // header outside the loop.
        let mut x = cfg.ipdom[h];
        while x != cfg.exit && cfg.in_loop(h, x) {
            x = cfg.ipdom[x];
        }
        let pos = self.pos;
        // Widen the header's state until the back edges bring nothing new.
        let mut head = st.clone();
        for _ in 0..10_000 {
            let snap = self.snapshot();
            self.stops.push(Stop {
                frame: fid,
                block: x,
                label: END.into(),
                kind: StopKind::Join(Vec::new()),
            });
            self.stops.push(Stop {
                frame: fid,
                block: h,
                label: String::new(),
                kind: StopKind::Collect(Vec::new()),
            });
            let r = self.walk(fr, h, head.clone(), None);
            let back = self.stops.pop();
            self.stops.pop();
            self.restore(snap);
            r?;
            let Some(Stop {
                kind: StopKind::Collect(states),
                ..
            }) = back
            else {
                unreachable!("the collector pushed above")
            };
            let mut next = head.clone();
            for s in &states {
                next = self.join_states(&next, s, pos)?;
            }
            if next == head {
                break;
            }
            head = next;
        }
        let mv = self.moves(&st, &head);
        self.items
            .extend(mv.into_iter().map(|i| Item::I(Box::new(i))));
        let lh = self.label();
        let lx = self.label();
        self.emit_label(lh.clone());
        self.stops.push(Stop {
            frame: fid,
            block: x,
            label: lx.clone(),
            kind: StopKind::Join(Vec::new()),
        });
        self.stops.push(Stop {
            frame: fid,
            block: h,
            label: lh,
            kind: StopKind::Back(head.clone()),
        });
        self.walk(fr, h, head, None)?;
        self.stops.pop();
        Ok(self.close_join(lx)?.map(|merged| (merged, x)))
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            items: self.items.len(),
            fixes: self.fixes.len(),
            arrivals: self
                .stops
                .iter()
                .map(|s| match &s.kind {
                    StopKind::Join(a) => a.len(),
                    StopKind::Collect(a) => a.len(),
                    StopKind::Back(_) => 0,
                })
                .collect(),
            visits: self.visits.clone(),
        }
    }

    fn restore(&mut self, s: Snapshot) {
        self.items.truncate(s.items);
        self.fixes.truncate(s.fixes);
        for (stop, n) in self.stops.iter_mut().zip(s.arrivals) {
            match &mut stop.kind {
                StopKind::Join(a) => a.truncate(n),
                StopKind::Collect(a) => a.truncate(n),
                StopKind::Back(_) => {}
            }
        }
        self.visits = s.visits;
    }

    /// A call: inlined (a direct call, or an indirect one whose target is
    /// known), branched over its possible targets (an indirect call whose
    /// target is known only at run time), or a function without a body
    /// (`external_call`). Returns the state after it (`None`: it never
    /// returns).
    fn call(&mut self, fr: usize, i: &'m PInstr, st: State) -> TxResult<Option<State>> {
        let ops = i.operands.as_slice();
        let malformed = || -> TxErr {
            Error::syntax(
                i.pos,
                "malformed `call`: expected `call [(RETS),] FUNCTION[, (ARGS)]` or `call [(RETS),] %REG[, (ARGS)], PROTOTYPE`",
            )
            .into()
        };
        let mut k = 0;
        let rets: &[Operand] = match ops.first() {
            Some(Operand::List { elems, .. }) => {
                k = 1;
                elems
            }
            _ => &[],
        };
        let callee = ops.get(k).ok_or_else(malformed)?;
        k += 1;
        let args: &[Operand] = match ops.get(k) {
            Some(Operand::List { elems, .. }) => {
                k += 1;
                elems
            }
            _ => &[],
        };
        let spec = match ops.get(k) {
            Some(Operand::Sym { name, pos }) => {
                k += 1;
                Some((name.as_str(), *pos))
            }
            _ => None,
        };
        if k != ops.len() {
            return Err(malformed());
        }
        match callee {
            Operand::Sym { name, pos } => {
                if let Some((p, ppos)) = spec {
                    return Err(Error::syntax(
                        ppos,
                        format!("`{p}`: only a call through a register names a prototype or target list (this call names `{name}`)"),
                    )
                    .into());
                }
                if !self.code.declared.contains(name.as_str()) {
                    return Err(Error::semantic(
                        *pos,
                        format!("call to `{name}`, which this file does not declare"),
                    )
                    .into());
                }
                self.call_fn(fr, i, name, rets, args, st)
            }
            Operand::Reg { .. } => self.indirect_call(fr, i, rets, callee, args, spec, st),
            _ => Err(malformed()),
        }
    }

    /// A call through a register: the targets are the functions the
    /// `.calltargets` list names, or those whose address the module takes
    /// and whose parameters match the `.callprototype`. A known target is
    /// inlined; a target known only at run time is chosen by a branch per
    /// candidate; an address that is no candidate's is undefined
    /// behaviour.
    #[allow(clippy::too_many_arguments)]
    fn indirect_call(
        &mut self,
        fr: usize,
        i: &'m PInstr,
        rets: &[Operand],
        callee: &Operand,
        args: &[Operand],
        spec: Option<(&str, Pos)>,
        mut st: State,
    ) -> TxResult<Option<State>> {
        let Some((sname, spos)) = spec else {
            return Err(Error::syntax(
                i.pos,
                "a call through a register needs a `.callprototype` or `.calltargets` label as its last operand",
            )
            .into());
        };
        let cfg: &'m Cfg<'m> = self.frames[fr].cfg;
        let Some(&cs) = cfg.specs.get(sname) else {
            return Err(Error::semantic(
                spos,
                format!(
                    "`{sname}` is not a `.callprototype` or `.calltargets` label of this function"
                ),
            )
            .into());
        };
        let code = self.code;
        // Whether function `f` may be called here (`Err`: a prototype it
        // does not match, in words).
        let fits = |f: &Function| -> std::result::Result<(), String> {
            match &cs.kind {
                CallSpecKind::Prototype {
                    rets: pr,
                    params: pp,
                    ..
                } => {
                    if same_params(&f.rets, pr) && same_params(&f.params, pp) {
                        Ok(())
                    } else {
                        Err(format!(
                            "prototype `{sname}` is {}, `{}` is {}",
                            signature(pr, pp),
                            f.name,
                            signature(&f.rets, &f.params)
                        ))
                    }
                }
                CallSpecKind::Targets(ts) => {
                    if ts.iter().any(|(t, _)| *t == f.name) {
                        Ok(())
                    } else {
                        Err(format!(
                            "`.calltargets` `{sname}` does not list `{}`",
                            f.name
                        ))
                    }
                }
            }
        };
        let cands: Vec<&'m str> = match &cs.kind {
            CallSpecKind::Prototype {
                rets: pr,
                params: pp,
                ..
            } => {
                if pr.len() != rets.len() || pp.len() != args.len() {
                    return Err(Error::semantic(
                        i.pos,
                        format!(
                            "the call gives {} return value{} and {} argument{}; prototype `{sname}` declares {} and {}",
                            rets.len(),
                            if rets.len() == 1 { "" } else { "s" },
                            args.len(),
                            if args.len() == 1 { "" } else { "s" },
                            pr.len(),
                            pp.len()
                        ),
                    )
                    .into());
                }
                code.taken
                    .iter()
                    .copied()
                    .filter(|f| fits(code.decl_of[f]).is_ok())
                    .collect()
            }
            CallSpecKind::Targets(ts) => {
                let mut v = Vec::new();
                for (t, p) in ts {
                    let Some((&name, _)) = code.decl_of.get_key_value(t.as_str()) else {
                        return Err(Error::semantic(
                            *p,
                            format!(
                                "`{t}` in `.calltargets` `{sname}` is not a function of this file"
                            ),
                        )
                        .into());
                    };
                    if !v.contains(&name) {
                        v.push(name);
                    }
                }
                v
            }
        };
        let v = self.read(fr, &mut st, callee, self.addr_type())?;
        let at = format!("`{}` at {}", crate::diag::excerpt(&self.text), self.pos);
        let r = match v {
            V::Ptr { buf, .. } if self.sh.free_ptr_param.contains_key(&buf) => {
                // An argument nobody gave, called: a function pointer.
                let (k, o) = self.sh.free_ptr_param[&buf];
                return Err(TxErr::Restart(Assume::FnParam(k, o)));
            }
            V::Ptr { buf, .. } => {
                let cause = format!(
                    "{at} calls the address of `{}`, which is not a function",
                    self.sh.mem.buffers[buf].name
                );
                self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
                self.emit_goto_end();
                return Ok(None);
            }
            V::Int(Arg::K(a)) => {
                let Some(&f) = code.fn_at.get(&a) else {
                    let cause = format!("{at} calls address {a:#x}, which is no function's");
                    self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
                    self.emit_goto_end();
                    return Ok(None);
                };
                return match fits(code.decl_of[f]) {
                    Ok(()) => self.call_fn(fr, i, f, rets, args, st),
                    Err(why) => match cs.kind {
                        CallSpecKind::Prototype { .. } => Err(Error::semantic(
                            i.pos,
                            format!(
                                "the call reaches `{f}`, which does not match its prototype: {why}"
                            ),
                        )
                        .into()),
                        CallSpecKind::Targets(_) => {
                            let cause = format!("{at} calls `{f}`: {why}");
                            self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
                            self.emit_goto_end();
                            Ok(None)
                        }
                    },
                };
            }
            V::Int(Arg::R(r)) => r,
        };
        // Known only at run time: a branch per candidate.
        let lj = self.label();
        let mut arrivals = Vec::new();
        for &f in &cands {
            let other = self.label();
            self.emit(
                InstrKind::Branch {
                    op: CmpOp::Ne,
                    a: IrOp::Reg(r.clone()),
                    b: IrOp::Const(code.fn_addr[f]),
                    target: other.clone(),
                },
                vec![],
            );
            if let Some(s) = self.call_fn(fr, i, f, rets, args, st.clone())? {
                self.fixes.push(Vec::new());
                let fix = self.fixes.len() - 1;
                self.items.push(Item::Fix(fix));
                self.emit_goto(&lj);
                arrivals.push((s, fix));
            }
            self.at(Some(i));
            self.emit_label(other);
        }
        let names: Vec<String> = cands.iter().map(|f| format!("`{f}`")).collect();
        let cause = if cands.is_empty() {
            format!("{at} calls an address computed at run time, and no function whose address this file takes fits `{sname}`")
        } else {
            format!(
                "{at} calls an address computed at run time that is not the address of {}",
                names.join(" or ")
            )
        };
        self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
        self.emit_goto_end();
        if arrivals.is_empty() {
            return Ok(None);
        }
        let merged = self.merge(arrivals)?;
        self.emit_label(lj);
        Ok(Some(merged))
    }

    /// Calls function `name` (declared): inlines its body, or
    /// `external_call` when it has none.
    fn call_fn(
        &mut self,
        fr: usize,
        i: &'m PInstr,
        name: &str,
        rets: &[Operand],
        args: &[Operand],
        st: State,
    ) -> TxResult<Option<State>> {
        let Some(&callee) = self.code.funcs.get(name) else {
            return self.external_call(fr, name, rets, st);
        };
        if self.frames.iter().any(|f| std::ptr::eq(f.func, callee)) {
            return Err(Error::unsupported(i.pos, format!("recursive call to `{name}`")).into());
        }
        let mut bound = HashMap::new();
        for (formals, actuals, what) in [
            (&callee.rets, rets, "return value"),
            (&callee.params, args, "argument"),
        ] {
            if formals.len() != actuals.len() {
                return Err(Error::semantic(
                    i.pos,
                    format!(
                        "`{name}` takes {} {what}s, the call gives {}",
                        formals.len(),
                        actuals.len()
                    ),
                )
                .into());
            }
            for (f, a) in formals.iter().zip(actuals) {
                let Operand::Sym { name: an, .. } = a else {
                    return Err(Error::unsupported(
                        a.pos(),
                        format!("a {what} that is not a `.param` variable"),
                    )
                    .into());
                };
                let Some(&b) = self.frames[fr].bufs.get(an) else {
                    return Err(Error::semantic(
                        a.pos(),
                        format!("`{an}` is not a `.param` variable of the caller"),
                    )
                    .into());
                };
                bound.insert(f.name.clone(), b);
            }
        }
        self.push_frame(callee, bound)?;
        let cfr = self.frames.len() - 1;
        let cid = self.frames[cfr].id;
        let exit = self.frames[cfr].cfg.exit;
        let lr = self.label();
        self.stops.push(Stop {
            frame: cid,
            block: exit,
            label: lr.clone(),
            kind: StopKind::Join(Vec::new()),
        });
        // An error ends the whole translation: no stop or frame to restore.
        self.walk(cfr, 0, st, Some(usize::MAX))?;
        let frame = self.frames.pop().expect("pushed above");
        self.at(Some(i));
        let Some(mut merged) = self.close_join(lr)? else {
            return Ok(None);
        };
        // The callee's registers and private memory are gone.
        merged.slots.retain(|s, _| match s {
            Slot::Reg(f, _) => *f != frame.id,
            Slot::Priv(b, _, _) => !frame.owned.contains(b),
            Slot::Bar(_) => true,
        });
        Ok(Some(merged))
    }
}

/// Whether two parameter lists agree, parameter by parameter, in state
/// space and size (a prototype's `.b64` fits a function's `.u64`).
fn same_params(a: &[Param], b: &[Param]) -> bool {
    let bytes = |p: &Param| u64::from(p.ty.bytes()) * p.array.unwrap_or(1);
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.space == y.space && bytes(x) == bytes(y))
}

/// `(.b32) _ (.b64, .b8[16])`: a prototype's or function's parameters.
fn signature(rets: &[Param], params: &[Param]) -> String {
    let list = |ps: &[Param]| {
        let v: Vec<String> = ps
            .iter()
            .map(|p| match p.array {
                Some(n) => format!(".b{}[{n}]", p.ty.bits),
                None => format!(".b{}", p.ty.bits),
            })
            .collect();
        format!("({})", v.join(", "))
    };
    format!("{} _ {}", list(rets), list(params))
}

/// `__nv_*` (libdevice) functions that write through a pointer argument.
const NV_WRITERS: &[&str] = &[
    "__nv_sincos",
    "__nv_sincosf",
    "__nv_sincospi",
    "__nv_sincospif",
    "__nv_modf",
    "__nv_modff",
    "__nv_frexp",
    "__nv_frexpf",
    "__nv_remquo",
    "__nv_remquof",
];

impl Tx<'_, '_> {
    /// A call to a function without a body in the file:
    /// * the CUDA runtime's `vprintf` reads its arguments, writes nothing a
    ///   kernel shares and returns an arbitrary count;
    /// * the assertion failure handler stops the thread, as `trap` does;
    /// * libdevice's `__nv_*` math functions return arbitrary values
    ///   (floating point is not modelled), except those that write
    ///   through a pointer, which are refused;
    /// * the device heap (`malloc`, `free`) is refused;
    /// * any other function is assumed to return arbitrary values (fresh
    ///   ones at each call) and to touch no memory the kernel's threads
    ///   share — an assumption the report states.
    fn external_call(
        &mut self,
        fr: usize,
        name: &str,
        rets: &[Operand],
        mut st: State,
    ) -> TxResult<Option<State>> {
        match name {
            "__assertfail" | "__assert_fail" => {
                self.emit_goto_end();
                return Ok(None);
            }
            "malloc" | "free" | "calloc" | "realloc" | "__nv_aligned_device_malloc" => {
                return Err(Error::unsupported(
                    self.pos,
                    format!("call to `{name}`: device-side heap memory is not modelled"),
                )
                .into())
            }
            _ if NV_WRITERS.contains(&name) => {
                return Err(Error::unsupported(
                    self.pos,
                    format!("call to `{name}`, which writes through its pointer arguments"),
                )
                .into())
            }
            _ => {}
        }
        for r in rets {
            let Operand::Sym { name: rn, .. } = r else {
                continue;
            };
            let Some(&b) = self.frames[fr].bufs.get(rn) else {
                continue;
            };
            // Whatever the return parameter held before is gone.
            st.slots
                .retain(|s, _| !matches!(s, Slot::Priv(x, _, _) if *x == b));
            let size = self.sh.mem.buffers[b].size.unwrap_or(0);
            if matches!(size, 1 | 2 | 4 | 8) {
                let z = size as u32;
                let v = self.havoc(z * 8);
                self.store_slot(&mut st, Slot::Priv(b, 0, z), super::arith::V::Int(v));
            }
        }
        if name != "vprintf" && !name.starts_with("__nv_") {
            let a = format!(
                "calls to `{name}` (no body in this file) return arbitrary values and touch no memory the kernel's threads share"
            );
            if !self.sh.assumptions.contains(&a) {
                self.sh.assumptions.push(a);
            }
        }
        Ok(Some(st))
    }
}

struct Snapshot {
    items: usize,
    fixes: usize,
    arrivals: Vec<usize>,
    visits: HashMap<(u32, BlockId), u32>,
}

/// A predicate's value: known, or `reg != 0` (`reg == 0` when negated) at
/// run time.
pub(super) enum Cond {
    Known(bool),
    Run(IfCond),
}

pub(super) struct IfCond {
    pub reg: String,
    pub negated: bool,
}
