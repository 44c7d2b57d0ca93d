//! Bit-vectors over [`Sat`] literals: 64-bit two's complement words, bit 0
//! first, with the semantics of [`crate::ir::BinOp::eval`] (wrapping). Every
//! operation folds constants through the gates, so arithmetic on known
//! values costs nothing.

use super::sat::{Lit, Sat, FALSE, TRUE};
use crate::ir::{BinOp, CmpOp, RmwOp};

pub const WIDTH: usize = 64;

pub type Bv = Vec<Lit>;

pub fn constant(v: i64) -> Bv {
    (0..WIDTH)
        .map(|i| if (v >> i) & 1 == 1 { TRUE } else { FALSE })
        .collect()
}

/// The value, if every bit is a constant.
pub fn as_const(a: &[Lit]) -> Option<i64> {
    let mut v: u64 = 0;
    for (i, &l) in a.iter().enumerate() {
        match l {
            TRUE => v |= 1 << i,
            FALSE => {}
            _ => return None,
        }
    }
    Some(v as i64)
}

pub fn fresh(sat: &mut Sat) -> Bv {
    (0..WIDTH).map(|_| sat.var()).collect()
}

/// A free value of type `ty`: fresh bits for its width, the others copies
/// of its sign bit (a boolean: one fresh bit, the others 0), so that it
/// only takes the canonical values of its type.
pub fn free(sat: &mut Sat, ty: crate::ir::ValueType) -> Bv {
    match ty {
        crate::ir::ValueType::Bool => {
            let b = sat.var();
            (0..WIDTH).map(|i| if i == 0 { b } else { FALSE }).collect()
        }
        crate::ir::ValueType::Int(w) => {
            let w = (w as usize).clamp(1, WIDTH);
            let low: Vec<Lit> = (0..w).map(|_| sat.var()).collect();
            (0..WIDTH).map(|i| low[i.min(w - 1)]).collect()
        }
    }
}

/// The value under the solver's current model.
pub fn value(sat: &Sat, a: &[Lit]) -> i64 {
    let mut v: u64 = 0;
    for (i, &l) in a.iter().enumerate() {
        if sat.value(l) {
            v |= 1 << i;
        }
    }
    v as i64
}

pub fn xor2(sat: &mut Sat, a: Lit, b: Lit) -> Lit {
    match (a, b) {
        (FALSE, x) | (x, FALSE) => x,
        (TRUE, x) | (x, TRUE) => -x,
        _ if a == b => FALSE,
        _ if a == -b => TRUE,
        _ => {
            // (a ∧ ¬b) ∨ (¬a ∧ b)
            let p = sat.and2(a, -b);
            let q = sat.and2(-a, b);
            sat.or2(p, q)
        }
    }
}

/// `c ? a : b` on one bit.
pub fn mux(sat: &mut Sat, c: Lit, a: Lit, b: Lit) -> Lit {
    match c {
        TRUE => return a,
        FALSE => return b,
        _ => {}
    }
    if a == b {
        return a;
    }
    let p = sat.and2(c, a);
    let q = sat.and2(-c, b);
    sat.or2(p, q)
}

pub fn ite(sat: &mut Sat, c: Lit, a: &[Lit], b: &[Lit]) -> Bv {
    a.iter().zip(b).map(|(&x, &y)| mux(sat, c, x, y)).collect()
}

fn maj(sat: &mut Sat, a: Lit, b: Lit, c: Lit) -> Lit {
    let ab = sat.and2(a, b);
    let ac = sat.and2(a, c);
    let bc = sat.and2(b, c);
    sat.or(&[ab, ac, bc])
}

/// `a + b + carry`.
fn add_carry(sat: &mut Sat, a: &[Lit], b: &[Lit], mut carry: Lit) -> Bv {
    let mut out = Vec::with_capacity(a.len());
    for (&x, &y) in a.iter().zip(b) {
        let s = xor2(sat, x, y);
        out.push(xor2(sat, s, carry));
        carry = maj(sat, x, y, carry);
    }
    out
}

pub fn add(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> Bv {
    add_carry(sat, a, b, FALSE)
}

pub fn sub(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> Bv {
    let nb: Bv = b.iter().map(|&l| -l).collect();
    add_carry(sat, a, &nb, TRUE)
}

pub fn eq(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> Lit {
    let mut same = Vec::with_capacity(a.len());
    for (&x, &y) in a.iter().zip(b) {
        same.push(-xor2(sat, x, y));
    }
    sat.and(&same)
}

/// Unsigned `a < b`.
pub fn ult(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> Lit {
    // From the least significant bit up: lt = (¬a ∧ b) ∨ (a ≡ b) ∧ lt.
    let mut lt = FALSE;
    for (&x, &y) in a.iter().zip(b) {
        let here = sat.and2(-x, y);
        let same = -xor2(sat, x, y);
        let keep = sat.and2(same, lt);
        lt = sat.or2(here, keep);
    }
    lt
}

/// Signed `a < b`: unsigned comparison with the sign bits swapped.
pub fn slt(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> Lit {
    let flip = |v: &[Lit]| -> Bv {
        let mut w = v.to_vec();
        let last = w.len() - 1;
        w[last] = -w[last];
        w
    };
    ult(sat, &flip(a), &flip(b))
}

pub fn cmp(sat: &mut Sat, op: CmpOp, a: &[Lit], b: &[Lit]) -> Lit {
    match op {
        CmpOp::Eq => eq(sat, a, b),
        CmpOp::Ne => -eq(sat, a, b),
        CmpOp::Lt => slt(sat, a, b),
        CmpOp::Ge => -slt(sat, a, b),
        CmpOp::Gt => slt(sat, b, a),
        CmpOp::Le => -slt(sat, b, a),
    }
}

fn bool_bv(l: Lit) -> Bv {
    let mut v = vec![FALSE; WIDTH];
    v[0] = l;
    v
}

/// Shift left by a constant.
fn shl_const(a: &[Lit], k: usize) -> Bv {
    (0..WIDTH)
        .map(|i| if i >= k { a[i - k] } else { FALSE })
        .collect()
}

/// Right shift by a constant, filling with `fill`.
fn shr_const(a: &[Lit], k: usize, fill: Lit) -> Bv {
    (0..WIDTH)
        .map(|i| if i + k < WIDTH { a[i + k] } else { fill })
        .collect()
}

/// A barrel shifter: the shift amount is `b mod 64` (`wrapping_shl` and
/// friends use the low six bits).
fn shift(sat: &mut Sat, a: &[Lit], b: &[Lit], f: impl Fn(&[Lit], usize) -> Bv) -> Bv {
    let mut cur = a.to_vec();
    for (stage, &bit) in b.iter().take(6).enumerate() {
        let shifted = f(&cur, 1 << stage);
        cur = ite(sat, bit, &shifted, &cur);
    }
    cur
}

pub fn mul(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> Bv {
    let mut acc = constant(0);
    for (i, &bit) in b.iter().enumerate() {
        if bit == FALSE {
            continue;
        }
        let part: Bv = shl_const(a, i)
            .into_iter()
            .map(|x| sat.and2(x, bit))
            .collect();
        acc = add(sat, &acc, &part);
    }
    acc
}

fn neg(sat: &mut Sat, a: &[Lit]) -> Bv {
    sub(sat, &constant(0), a)
}

/// Unsigned division and remainder by restoring division (the divisor is
/// known to be non-zero where this matters: see [`binop`]). Only the bits
/// up to the highest one of `a` or `b` that is not constantly 0 take part:
/// a quotient and a remainder are no wider than their operands, and a
/// 64 × 64-bit divider costs the solver far more than the 32-bit (or
/// narrower) values programs divide.
fn udivrem(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> (Bv, Bv) {
    let w = (0..WIDTH)
        .rev()
        .find(|&i| a[i] != FALSE || b[i] != FALSE)
        .map_or(1, |i| i + 1);
    let (a, b) = (&a[..w], &b[..w]);
    let mut rem: Bv = vec![FALSE; w];
    let mut quo: Bv = vec![FALSE; w];
    for i in (0..w).rev() {
        // rem = (rem << 1) | a[i]
        let mut r2: Bv = Vec::with_capacity(w);
        r2.push(a[i]);
        r2.extend_from_slice(&rem[..w - 1]);
        // Overflow out of the top bit means r2 ≥ 2^w > b.
        let top = rem[w - 1];
        let lt = ult(sat, &r2, b);
        let ge = sat.or2(top, -lt);
        let diff = sub(sat, &r2, b);
        rem = ite(sat, ge, &diff, &r2);
        quo[i] = ge;
    }
    quo.resize(WIDTH, FALSE);
    rem.resize(WIDTH, FALSE);
    (quo, rem)
}

/// `a op b`, and the literal "this is defined" (false for a division by
/// zero or `MIN / -1`, which [`BinOp::eval`] leaves undefined).
pub fn binop(sat: &mut Sat, op: BinOp, a: &[Lit], b: &[Lit]) -> (Bv, Lit) {
    if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
        return match op.eval(x, y) {
            Some(v) => (constant(v), TRUE),
            None => (constant(0), FALSE),
        };
    }
    let bitwise = |sat: &mut Sat, f: &dyn Fn(&mut Sat, Lit, Lit) -> Lit| -> Bv {
        a.iter().zip(b).map(|(&x, &y)| f(sat, x, y)).collect()
    };
    let v = match op {
        BinOp::Add => add(sat, a, b),
        BinOp::Sub => sub(sat, a, b),
        BinOp::Mul => mul(sat, a, b),
        BinOp::And => bitwise(sat, &|s, x, y| s.and2(x, y)),
        BinOp::Or => bitwise(sat, &|s, x, y| s.or2(x, y)),
        BinOp::Xor => bitwise(sat, &|s, x, y| xor2(s, x, y)),
        BinOp::Shl => shift(sat, a, b, shl_const),
        BinOp::Shr => {
            let sign = a[WIDTH - 1];
            shift(sat, a, b, move |v, k| shr_const(v, k, sign))
        }
        BinOp::Lshr => shift(sat, a, b, |v, k| shr_const(v, k, FALSE)),
        BinOp::Eq => bool_bv(eq(sat, a, b)),
        BinOp::Ne => bool_bv(-eq(sat, a, b)),
        BinOp::Lt => bool_bv(slt(sat, a, b)),
        BinOp::Le => bool_bv(-slt(sat, b, a)),
        BinOp::Gt => bool_bv(slt(sat, b, a)),
        BinOp::Ge => bool_bv(-slt(sat, a, b)),
        BinOp::Ult => bool_bv(ult(sat, a, b)),
        BinOp::Ule => bool_bv(-ult(sat, b, a)),
        BinOp::Ugt => bool_bv(ult(sat, b, a)),
        BinOp::Uge => bool_bv(-ult(sat, a, b)),
        BinOp::Udiv | BinOp::Urem | BinOp::Div | BinOp::Rem => {
            let zero = eq(sat, b, &constant(0));
            let (q, r) = match op {
                BinOp::Udiv | BinOp::Urem => udivrem(sat, a, b),
                _ => {
                    // Signed: divide magnitudes; the quotient is negative
                    // iff the signs differ, the remainder takes a's sign
                    // (Rust's `/` and `%` truncate toward zero, wrapping
                    // on MIN / -1).
                    let (sa, sb) = (a[WIDTH - 1], b[WIDTH - 1]);
                    let na = neg(sat, a);
                    let nb = neg(sat, b);
                    let ma = ite(sat, sa, &na, a);
                    let mb = ite(sat, sb, &nb, b);
                    let (q, r) = udivrem(sat, &ma, &mb);
                    let qs = xor2(sat, sa, sb);
                    let nq = neg(sat, &q);
                    let nr = neg(sat, &r);
                    (ite(sat, qs, &nq, &q), ite(sat, sa, &nr, &r))
                }
            };
            let v = if matches!(op, BinOp::Udiv | BinOp::Div) {
                q
            } else {
                r
            };
            // `checked_div`/`checked_rem` also leave MIN / -1 undefined.
            let defined = if matches!(op, BinOp::Div | BinOp::Rem) {
                let a_min = eq(sat, a, &constant(i64::MIN));
                let b_m1 = eq(sat, b, &constant(-1));
                let overflow = sat.and2(a_min, b_m1);
                sat.and2(-zero, -overflow)
            } else {
                -zero
            };
            return (v, defined);
        }
    };
    (v, TRUE)
}

/// The value an RMW stores, from the old value and the operand (not CAS).
pub fn rmw(sat: &mut Sat, op: &RmwOp, old: &[Lit], v: &[Lit]) -> Bv {
    match op {
        RmwOp::Exch | RmwOp::Cas { .. } => v.to_vec(),
        RmwOp::Add => add(sat, old, v),
        RmwOp::Sub => sub(sat, old, v),
        RmwOp::And => binop(sat, BinOp::And, old, v).0,
        RmwOp::Or => binop(sat, BinOp::Or, old, v).0,
        RmwOp::Xor => binop(sat, BinOp::Xor, old, v).0,
        RmwOp::Min => {
            let lt = slt(sat, old, v);
            ite(sat, lt, old, v)
        }
        RmwOp::Max => {
            let lt = slt(sat, old, v);
            ite(sat, lt, v, old)
        }
        RmwOp::UMin => {
            let lt = ult(sat, old, v);
            ite(sat, lt, old, v)
        }
        RmwOp::UMax => {
            let lt = ult(sat, old, v);
            ite(sat, lt, v, old)
        }
        RmwOp::Inc => {
            // old >= v (unsigned) ? 0 : old + 1
            let below = ult(sat, old, v);
            let next = add(sat, old, &constant(1));
            ite(sat, below, &next, &constant(0))
        }
        RmwOp::Dec => {
            // old == 0 || old > v (unsigned) ? v : old - 1
            let zero = eq(sat, old, &constant(0));
            let above = ult(sat, v, old);
            let reset = sat.or2(zero, above);
            let prev = sub(sat, old, &constant(1));
            ite(sat, reset, v, &prev)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes each of `ops` on `a` and `b` (whose values are `x` and
    /// `y`) and checks it against `BinOp::eval`: the value, and whether it
    /// is defined.
    fn agree_with_eval(sat: &mut Sat, ops: &[BinOp], (a, x): (&Bv, i64), (b, y): (&Bv, i64)) {
        let outs: Vec<(BinOp, Bv, Lit)> = ops
            .iter()
            .map(|&op| {
                let (v, ok) = binop(sat, op, a, b);
                (op, v, ok)
            })
            .collect();
        assert_eq!(sat.solve(&[]), Some(true));
        for (op, v, ok) in outs {
            match op.eval(x, y) {
                Some(want) => {
                    assert!(sat.value(ok), "{op:?} {x} {y} defined");
                    assert_eq!(value(sat, &v), want, "{op:?} {x} {y}");
                }
                None => assert!(!sat.value(ok), "{op:?} {x} {y} undefined"),
            }
        }
    }

    /// Every operation agrees with `BinOp::eval` on values fixed by unit
    /// clauses (so the gates cannot fold them away).
    #[test]
    fn operations_match_the_ir_semantics() {
        let samples: [i64; 9] = [0, 1, -1, 7, -8, 63, 64, i64::MIN, i64::MAX];
        let ops = BinOp::ALL;
        for &x in &samples {
            for &y in &samples {
                let mut sat = Sat::new();
                let a = fresh(&mut sat);
                let b = fresh(&mut sat);
                let fix = |sat: &mut Sat, v: &Bv, k: i64| {
                    for (i, &l) in v.iter().enumerate() {
                        sat.clause(&[if (k >> i) & 1 == 1 { l } else { -l }]);
                    }
                };
                fix(&mut sat, &a, x);
                fix(&mut sat, &b, y);
                agree_with_eval(&mut sat, &ops, (&a, x), (&b, y));
            }
        }
    }

    /// Division over operands whose high bits are the constant 0 (the
    /// narrowed divider): every width from 1 to 64 bits and values at the
    /// edges of each, against `BinOp::eval`.
    #[test]
    fn narrow_division_matches_the_ir_semantics() {
        let ops = [BinOp::Div, BinOp::Rem, BinOp::Udiv, BinOp::Urem];
        for (wa, wb) in [
            (1, 1),
            (3, 2),
            (2, 5),
            (8, 8),
            (31, 7),
            (32, 32),
            (63, 1),
            (64, 3),
        ] {
            let edge = |w: u32| -> Vec<i64> {
                let max = if w >= 64 { -1 } else { (1i64 << w) - 1 };
                vec![0, 1, max, max >> 1, max / 3]
            };
            for x in edge(wa) {
                for y in edge(wb) {
                    let mut sat = Sat::new();
                    let narrow = |sat: &mut Sat, w: u32, k: i64| -> Bv {
                        (0..WIDTH)
                            .map(|i| {
                                if i >= w as usize {
                                    return FALSE;
                                }
                                let l = sat.var();
                                sat.clause(&[if (k >> i) & 1 == 1 { l } else { -l }]);
                                l
                            })
                            .collect()
                    };
                    let a = narrow(&mut sat, wa, x);
                    let b = narrow(&mut sat, wb, y);
                    agree_with_eval(&mut sat, &ops, (&a, x), (&b, y));
                }
            }
        }
    }
}
