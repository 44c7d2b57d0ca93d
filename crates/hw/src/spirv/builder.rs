//! The emitter's working state: the module, the one function being
//! written (`main`), the ids of the types every part uses, interned
//! constants, and helpers for straight-line code and structured control
//! flow (every loop and selection gets its merge instruction here, so the
//! rest of the generator cannot forget one).

use super::op;
use super::words::{inst, Module};
use std::collections::HashMap;

/// Ids of the types the kernel uses.
pub struct Types {
    pub void: u32,
    pub bool_: u32,
    pub u32_: u32,
    pub v3u32: u32,
    pub ptr_input_u32: u32,
    pub ptr_input_v3u32: u32,
    pub ptr_buffer_u32: u32,
    pub ptr_workgroup_u32: u32,
    pub ptr_function_u32: u32,
    pub fn_void: u32,
}

pub struct Builder {
    pub m: Module,
    pub t: Types,
    consts: HashMap<u32, u32>,
    true_: u32,
    false_: u32,
    /// The label of `main`'s first block, where code starts.
    entry_label: u32,
    /// `OpVariable Function` instructions: SPIR-V wants them at the start
    /// of the function's first block, whenever they are created.
    vars: Vec<u32>,
    /// The function's code after its first block's label and variables.
    code: Vec<u32>,
}

impl Builder {
    pub fn new() -> Self {
        let mut m = Module::new();
        let mut g = Vec::new();
        // A type declaration: `OpType… %id operands…`.
        let mut ty = |opcode: u16, rest: &[u32]| {
            let id = m.id();
            let mut ops = vec![id];
            ops.extend_from_slice(rest);
            inst(&mut g, opcode, &ops);
            id
        };
        let void = ty(op::TYPE_VOID, &[]);
        let bool_ = ty(op::TYPE_BOOL, &[]);
        let u32_ = ty(op::TYPE_INT, &[32, 0]);
        let v3u32 = ty(op::TYPE_VECTOR, &[u32_, 3]);
        let ptr_input_u32 = ty(op::TYPE_POINTER, &[op::SC_INPUT, u32_]);
        let ptr_input_v3u32 = ty(op::TYPE_POINTER, &[op::SC_INPUT, v3u32]);
        let ptr_buffer_u32 = ty(op::TYPE_POINTER, &[op::SC_STORAGE_BUFFER, u32_]);
        let ptr_workgroup_u32 = ty(op::TYPE_POINTER, &[op::SC_WORKGROUP, u32_]);
        let ptr_function_u32 = ty(op::TYPE_POINTER, &[op::SC_FUNCTION, u32_]);
        let fn_void = ty(op::TYPE_FUNCTION, &[void]);
        let (true_, false_, entry_label) = (m.id(), m.id(), m.id());
        inst(&mut g, op::CONSTANT_TRUE, &[bool_, true_]);
        inst(&mut g, op::CONSTANT_FALSE, &[bool_, false_]);
        m.globals = g;
        Builder {
            m,
            t: Types {
                void,
                bool_,
                u32_,
                v3u32,
                ptr_input_u32,
                ptr_input_v3u32,
                ptr_buffer_u32,
                ptr_workgroup_u32,
                ptr_function_u32,
                fn_void,
            },
            consts: HashMap::new(),
            true_,
            false_,
            entry_label,
            vars: Vec::new(),
            code: Vec::new(),
        }
    }

    /// A fresh id.
    pub fn id(&mut self) -> u32 {
        self.m.id()
    }

    /// The `u32` constant with this bit pattern (interned).
    pub fn c(&mut self, value: u32) -> u32 {
        if let Some(&id) = self.consts.get(&value) {
            return id;
        }
        let id = self.m.id();
        inst(&mut self.m.globals, op::CONSTANT, &[self.t.u32_, id, value]);
        self.consts.insert(value, id);
        id
    }

    /// The constant `value` as an `i32` bit pattern.
    pub fn ci(&mut self, value: i32) -> u32 {
        self.c(value as u32)
    }

    pub fn bool_const(&self, value: bool) -> u32 {
        if value {
            self.true_
        } else {
            self.false_
        }
    }

    /// A global declaration (type, array length, variable) with a fresh
    /// result id placed after the opcode's leading operands `before`.
    pub fn global(&mut self, opcode: u16, before: &[u32], after: &[u32]) -> u32 {
        let id = self.m.id();
        let mut ops = before.to_vec();
        ops.push(id);
        ops.extend_from_slice(after);
        inst(&mut self.m.globals, opcode, &ops);
        id
    }

    pub fn decorate(&mut self, target: u32, decoration: &[u32]) {
        let mut ops = vec![target];
        ops.extend_from_slice(decoration);
        inst(&mut self.m.annotations, op::DECORATE, &ops);
    }

    pub fn name(&mut self, target: u32, name: &str) {
        let mut ops = vec![target];
        ops.extend(super::words::string(name));
        inst(&mut self.m.names, op::NAME, &ops);
    }

    /// A function-local `u32` variable holding `init` at the start.
    pub fn var(&mut self, init: u32, name: &str) -> u32 {
        let id = self.m.id();
        let init = self.c(init);
        inst(
            &mut self.vars,
            op::VARIABLE,
            &[self.t.ptr_function_u32, id, op::SC_FUNCTION, init],
        );
        self.name(id, name);
        id
    }

    /// An instruction without a result.
    pub fn op(&mut self, opcode: u16, operands: &[u32]) {
        inst(&mut self.code, opcode, operands);
    }

    /// An instruction with result type `ty`; returns its result id.
    pub fn val(&mut self, opcode: u16, ty: u32, operands: &[u32]) -> u32 {
        let id = self.m.id();
        let mut ops = vec![ty, id];
        ops.extend_from_slice(operands);
        inst(&mut self.code, opcode, &ops);
        id
    }

    /// A `u32`-typed instruction.
    pub fn u(&mut self, opcode: u16, operands: &[u32]) -> u32 {
        self.val(opcode, self.t.u32_, operands)
    }

    /// A `bool`-typed instruction (comparisons, logic).
    pub fn b(&mut self, opcode: u16, operands: &[u32]) -> u32 {
        self.val(opcode, self.t.bool_, operands)
    }

    /// `cond ? a : b` on `u32`s.
    pub fn select(&mut self, cond: u32, a: u32, b: u32) -> u32 {
        self.u(op::SELECT, &[cond, a, b])
    }

    /// A plain (private) load of a `u32` through `ptr`.
    pub fn load(&mut self, ptr: u32) -> u32 {
        self.u(op::LOAD, &[ptr])
    }

    /// A plain (private) store.
    pub fn store(&mut self, ptr: u32, value: u32) {
        self.op(op::STORE, &[ptr, value]);
    }

    pub fn label(&mut self, id: u32) {
        self.op(op::LABEL, &[id]);
    }

    pub fn branch(&mut self, target: u32) {
        self.op(op::BRANCH, &[target]);
    }

    /// Opens `if cond { … }`: code follows in the then-branch until
    /// [`Builder::end_if`].
    pub fn begin_if(&mut self, cond: u32) -> If {
        let (then_l, else_l, merge) = (self.id(), self.id(), self.id());
        self.op(op::SELECTION_MERGE, &[merge, 0]);
        self.op(op::BRANCH_CONDITIONAL, &[cond, then_l, else_l]);
        self.label(then_l);
        If {
            else_l,
            merge,
            in_else: false,
        }
    }

    /// Switches an open `if` to its else-branch.
    pub fn begin_else(&mut self, i: &mut If) {
        self.branch(i.merge);
        self.label(i.else_l);
        i.in_else = true;
    }

    /// Closes an `if`; code follows after it.
    pub fn end_if(&mut self, i: If) {
        self.branch(i.merge);
        if !i.in_else {
            // The else-branch is empty: it only goes on to the merge.
            self.label(i.else_l);
            self.branch(i.merge);
        }
        self.label(i.merge);
    }

    /// Opens `switch selector` with one case per literal (no default
    /// code); [`Builder::case`] starts each case, in order.
    pub fn begin_switch(&mut self, selector: u32, literals: &[u32]) -> Switch {
        let merge = self.id();
        let labels: Vec<u32> = literals.iter().map(|_| self.m.id()).collect();
        let mut ops = vec![selector, merge];
        for (&literal, &l) in literals.iter().zip(&labels) {
            ops.extend([literal, l]);
        }
        self.op(op::SELECTION_MERGE, &[merge, 0]);
        self.op(op::SWITCH, &ops);
        Switch {
            labels,
            merge,
            next: 0,
        }
    }

    /// Starts the next case (every case breaks to the merge; no
    /// fall-through).
    pub fn case(&mut self, s: &mut Switch) {
        if s.next > 0 {
            self.branch(s.merge);
        }
        self.label(s.labels[s.next]);
        s.next += 1;
    }

    pub fn end_switch(&mut self, s: Switch) {
        if s.next > 0 {
            self.branch(s.merge);
        }
        self.label(s.merge);
    }

    /// Opens a loop: code follows in its header, which must be straight
    /// line and end with [`Builder::loop_test`] (a `while` loop) or be
    /// empty (then call [`Builder::loop_body`]: a `do … while`).
    pub fn begin_loop(&mut self) -> Loop {
        let l = Loop {
            header: self.id(),
            body: self.id(),
            cont: self.id(),
            merge: self.id(),
        };
        self.branch(l.header);
        self.label(l.header);
        l
    }

    /// Ends the header of a `while` loop: the body runs while `cond`.
    pub fn loop_test(&mut self, l: &Loop, cond: u32) {
        self.op(op::LOOP_MERGE, &[l.merge, l.cont, 0]);
        self.op(op::BRANCH_CONDITIONAL, &[cond, l.body, l.merge]);
        self.label(l.body);
    }

    /// Ends the (empty) header of a `do … while` loop.
    pub fn loop_body(&mut self, l: &Loop) {
        self.op(op::LOOP_MERGE, &[l.merge, l.cont, 0]);
        self.branch(l.body);
        self.label(l.body);
    }

    /// Ends the body; the continue block's straight-line code follows.
    pub fn loop_continue(&mut self, l: &Loop) {
        self.branch(l.cont);
        self.label(l.cont);
    }

    /// Closes a `while` loop after its continue code.
    pub fn end_while(&mut self, l: Loop) {
        self.branch(l.header);
        self.label(l.merge);
    }

    /// Closes a `do … while` loop: back to the top while `again`.
    pub fn end_do_while(&mut self, l: Loop, again: u32) {
        self.op(op::BRANCH_CONDITIONAL, &[again, l.header, l.merge]);
        self.label(l.merge);
    }

    /// Closes `main` (its code so far is its body) and returns the
    /// finished module's words.
    pub fn finish(mut self, main: u32) -> Vec<u32> {
        let f = &mut self.m.functions;
        inst(f, op::FUNCTION, &[self.t.void, main, 0, self.t.fn_void]);
        inst(f, op::LABEL, &[self.entry_label]);
        f.extend(self.vars);
        f.extend(self.code);
        inst(f, op::RETURN, &[]);
        inst(f, op::FUNCTION_END, &[]);
        self.m.finish()
    }
}

/// An open `if` ([`Builder::begin_if`]).
pub struct If {
    else_l: u32,
    merge: u32,
    in_else: bool,
}

/// An open `switch` ([`Builder::begin_switch`]).
pub struct Switch {
    labels: Vec<u32>,
    merge: u32,
    next: usize,
}

/// An open loop ([`Builder::begin_loop`]).
pub struct Loop {
    header: u32,
    body: u32,
    cont: u32,
    merge: u32,
}
