//! Integer arithmetic and bit instructions (`add`, `mul.wide`, `mad`,
//! `shl`, `bfe`, `prmt`, `lop3`, …), with PTX's width rules: every result
//! is kept sign-extended from its type's width; unsigned operations look
//! at the zero-extended bits.

use super::arith::{Arg, V};
use super::instr::{has, types};
use super::tx::{Tx, TxResult};
use super::value::{sext, zext, State};
use crate::diag::Error;
use crate::ir::BinOp;
use crate::ptx::ast::{Instr, Type, TypeKind};

impl<'m> Tx<'_, 'm> {
    pub(super) fn alu(&mut self, fr: usize, st: &mut State, i: &'m Instr) -> TxResult<()> {
        let op = i.opcode.as_str();
        let Some(&t) = types(i).last() else {
            return Err(self.unsupported_instr(i));
        };
        let w = t.bits;
        let signed = t.kind == TypeKind::Signed;
        match op {
            "add" | "sub" => {
                if has(i, "cc") || i.opcode == "addc" {
                    return Err(self.unsupported_instr(i));
                }
                let [d, a, b] = self.ops::<3>(i)?;
                let va = self.read(fr, st, a, t)?;
                let vb = self.read(fr, st, b, t)?;
                let v = self.add_sub(op == "add", va, vb, w)?;
                let v = match (v, has(i, "sat")) {
                    (V::Int(x), true) => V::Int(self.sat32(&x)),
                    (v, _) => v,
                };
                self.write(fr, st, d, v)
            }
            "mul" | "mad" | "mul24" | "mad24" => self.mul(fr, st, i, t),
            "div" | "rem" => {
                let [d, a, b] = self.ops::<3>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let y = self.read_int(fr, st, b, t)?;
                let r = if signed {
                    let op = if op == "div" { BinOp::Div } else { BinOp::Rem };
                    self.bin(op, &x, &y)
                } else {
                    let op = if op == "div" {
                        BinOp::Udiv
                    } else {
                        BinOp::Urem
                    };
                    let x = self.zext(&x, w);
                    let y = self.zext(&y, w);
                    self.bin(op, &x, &y)
                };
                let r = self.sext(&r, w);
                self.write(fr, st, d, V::Int(r))
            }
            "abs" | "neg" | "not" | "cnot" | "popc" | "clz" | "brev" | "bfind" => {
                let [d, a] = self.ops::<2>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let r = self.unary(op, &x, t, has(i, "shiftamt"));
                self.write(fr, st, d, V::Int(r))
            }
            "min" | "max" => {
                let [d, a, b] = self.ops::<3>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let y = self.read_int(fr, st, b, t)?;
                let lt = self.bin(if signed { BinOp::Lt } else { BinOp::Ult }, &x, &y);
                let mut r = if op == "min" {
                    self.select(&lt, &x, &y)
                } else {
                    self.select(&lt, &y, &x)
                };
                if has(i, "relu") {
                    let neg = self.bin(BinOp::Lt, &r, &Arg::K(0));
                    r = self.select(&neg, &Arg::K(0), &r);
                }
                self.write(fr, st, d, V::Int(r))
            }
            "and" | "or" | "xor" => {
                let [d, a, b] = self.ops::<3>(i)?;
                let va = self.read(fr, st, a, t)?;
                let vb = self.read(fr, st, b, t)?;
                let bop = match op {
                    "and" => BinOp::And,
                    "or" => BinOp::Or,
                    _ => BinOp::Xor,
                };
                // An address aligned to `a` or'ed with a constant below
                // `a` is that address plus the constant in its low bits
                // (clang's -O0 code for a field of an aligned local).
                if let ("or", (V::Ptr { buf, off }, V::Int(Arg::K(c))))
                | ("or", (V::Int(Arg::K(c)), V::Ptr { buf, off })) = (op, (&va, &vb))
                {
                    let below = |a: &u32| (0..i64::from(*a)).contains(c);
                    if self.sh.mem.align.get(buf).is_some_and(below) {
                        let off = self.bin(BinOp::Or, off, &Arg::K(*c));
                        return self.write(fr, st, d, V::Ptr { buf: *buf, off });
                    }
                }
                let x = self.int(va, op)?;
                let y = self.int(vb, op)?;
                let r = self.bin(bop, &x, &y);
                self.write(fr, st, d, V::Int(r))
            }
            "shl" | "shr" => {
                let [d, a, b] = self.ops::<3>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let u32t = Type {
                    kind: TypeKind::Unsigned,
                    bits: 32,
                };
                let k = self.read_int(fr, st, b, u32t)?;
                let k = self.zext(&k, 32);
                let r = self.shift(op == "shl", signed, &x, &k, w);
                self.write(fr, st, d, V::Int(r))
            }
            "bfe" => {
                let [d, a, b, c] = self.ops::<4>(i)?;
                let u32t = Type {
                    kind: TypeKind::Unsigned,
                    bits: 32,
                };
                let x = self.read_int(fr, st, a, t)?;
                let p = self.read_int(fr, st, b, u32t)?;
                let l = self.read_int(fr, st, c, u32t)?;
                let r = match (p.known(), l.known()) {
                    (Some(p), Some(l)) => self.bfe(&x, p & 0xff, l & 0xff, t),
                    _ => self.havoc(w),
                };
                self.write(fr, st, d, V::Int(r))
            }
            "bfi" => {
                let [d, f, b, p, l] = self.ops::<5>(i)?;
                let u32t = Type {
                    kind: TypeKind::Unsigned,
                    bits: 32,
                };
                let fv = self.read_int(fr, st, f, t)?;
                let bv = self.read_int(fr, st, b, t)?;
                let p = self.read_int(fr, st, p, u32t)?;
                let l = self.read_int(fr, st, l, u32t)?;
                let r = match (p.known(), l.known()) {
                    (Some(p), Some(l)) => {
                        let (p, l) = ((p & 0xff).min(i64::from(w)), (l & 0xff).min(i64::from(w)));
                        let mask = zext(zext(-1, l as u32) << p, w);
                        let keep = self.bin(BinOp::And, &bv, &Arg::K(!mask));
                        let ins = self.bin(BinOp::Shl, &fv, &Arg::K(p));
                        let ins = self.bin(BinOp::And, &ins, &Arg::K(mask));
                        let r = self.bin(BinOp::Or, &keep, &ins);
                        self.sext(&r, w)
                    }
                    _ => self.havoc(w),
                };
                self.write(fr, st, d, V::Int(r))
            }
            "prmt" => {
                if i.mods
                    .iter()
                    .any(|m| matches!(m.as_str(), "f4e" | "b4e" | "rc8" | "ecl" | "ecr" | "rc16"))
                {
                    return Err(Error::unsupported(i.pos, "`prmt` with a mode").into());
                }
                let [d, a, b, c] = self.ops::<4>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let y = self.read_int(fr, st, b, t)?;
                let s = self.read_int(fr, st, c, t)?;
                let r = match s.known() {
                    Some(s) => self.prmt(&x, &y, s),
                    None => self.havoc(32),
                };
                self.write(fr, st, d, V::Int(r))
            }
            "lop3" => {
                let [d, a, b, c, lut] = self.ops::<5>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let y = self.read_int(fr, st, b, t)?;
                let z = self.read_int(fr, st, c, t)?;
                let lut = self.read_int(fr, st, lut, t)?;
                let r = match lut.known() {
                    Some(l) => self.lop3(&x, &y, &z, l & 0xff),
                    None => self.havoc(w),
                };
                self.write(fr, st, d, V::Int(r))
            }
            "shf" => {
                let [d, a, b, c] = self.ops::<4>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let y = self.read_int(fr, st, b, t)?;
                let n = self.read_int(fr, st, c, t)?;
                let r = match n.known() {
                    Some(n) => {
                        let n = if has(i, "clamp") {
                            zext(n, 32).min(32)
                        } else {
                            n & 31
                        };
                        // {y:x} as 64 bits.
                        let lo = self.zext(&x, 32);
                        let hi = self.bin(BinOp::Shl, &y, &Arg::K(32));
                        let both = self.bin(BinOp::Or, &hi, &lo);
                        let r = if has(i, "l") {
                            let s = self.bin(BinOp::Shl, &both, &Arg::K(n));
                            self.bin(BinOp::Lshr, &s, &Arg::K(32))
                        } else {
                            self.bin(BinOp::Lshr, &both, &Arg::K(n))
                        };
                        self.sext(&r, 32)
                    }
                    None => self.havoc(32),
                };
                self.write(fr, st, d, V::Int(r))
            }
            "sad" => {
                let [d, a, b, c] = self.ops::<4>(i)?;
                let x = self.read_int(fr, st, a, t)?;
                let y = self.read_int(fr, st, b, t)?;
                let z = self.read_int(fr, st, c, t)?;
                let (x, y) = if signed {
                    (x, y)
                } else {
                    (self.zext(&x, w), self.zext(&y, w))
                };
                let lt = self.bin(BinOp::Lt, &x, &y);
                let d1 = self.bin(BinOp::Sub, &y, &x);
                let d2 = self.bin(BinOp::Sub, &x, &y);
                let ad = self.select(&lt, &d1, &d2);
                let r = self.bin(BinOp::Add, &ad, &z);
                let r = self.sext(&r, w);
                self.write(fr, st, d, V::Int(r))
            }
            _ => Err(self.unsupported_instr(i)),
        }
    }

    pub(super) fn unsupported_instr(&self, i: &Instr) -> super::tx::TxErr {
        Error::unsupported(
            i.pos,
            format!(
                "instruction `{}`",
                i.text.split_whitespace().next().unwrap_or(&i.opcode)
            ),
        )
        .into()
    }

    /// `a + b` / `a - b` of width `w`, with addresses.
    fn add_sub(&mut self, add: bool, a: V, b: V, w: u32) -> TxResult<V> {
        let op = if add { BinOp::Add } else { BinOp::Sub };
        Ok(match (a, b) {
            (V::Int(x), V::Int(y)) => {
                let r = self.bin(op, &x, &y);
                V::Int(self.sext(&r, w))
            }
            (V::Ptr { buf, off }, V::Int(y)) => V::Ptr {
                buf,
                off: self.bin(op, &off, &y),
            },
            (V::Int(x), V::Ptr { buf, off }) if add => V::Ptr {
                buf,
                off: self.bin(BinOp::Add, &x, &off),
            },
            (V::Ptr { buf: p, off: x }, V::Ptr { buf: q, off: y }) if !add && p == q => {
                V::Int(self.bin(BinOp::Sub, &x, &y))
            }
            (V::Ptr { buf, .. }, _) | (_, V::Ptr { buf, .. }) => {
                return Err(self.ptr_as_int(buf, if add { "an addition" } else { "a subtraction" }))
            }
        })
    }

    /// Saturates a 64-bit sum to the signed 32-bit range.
    fn sat32(&mut self, x: &Arg) -> Arg {
        let lo = Arg::K(i64::from(i32::MIN));
        let hi = Arg::K(i64::from(i32::MAX));
        let below = self.bin(BinOp::Lt, x, &lo);
        let y = self.select(&below, &lo, x);
        let above = self.bin(BinOp::Gt, &y, &hi);
        self.select(&above, &hi, &y)
    }

    /// `mul`, `mad` (`.lo`, `.hi`, `.wide`), `mul24`, `mad24`.
    fn mul(&mut self, fr: usize, st: &mut State, i: &'m Instr, t: Type) -> TxResult<()> {
        let w = t.bits;
        let signed = t.kind == TypeKind::Signed;
        let mad = i.opcode.starts_with("mad");
        let is24 = i.opcode.ends_with("24");
        if has(i, "cc") || has(i, "sat") {
            return Err(self.unsupported_instr(i));
        }
        let (d, a, b, c) = match (mad, i.operands.as_slice()) {
            (false, [d, a, b]) => (d, a, b, None),
            (true, [d, a, b, c]) => (d, a, b, Some(c)),
            _ => {
                return Err(Error::syntax(
                    i.pos,
                    format!("`{}` takes {} operands", i.opcode, if mad { 4 } else { 3 }),
                )
                .into())
            }
        };
        let x = self.read_int(fr, st, a, t)?;
        let y = self.read_int(fr, st, b, t)?;
        let ext = |tx: &mut Self, v: &Arg, bits: u32| {
            if signed {
                tx.sext(v, bits)
            } else {
                tx.zext(v, bits)
            }
        };
        let (rw, r) = if is24 {
            let x = ext(self, &x, 24);
            let y = ext(self, &y, 24);
            let p = self.bin(BinOp::Mul, &x, &y);
            if has(i, "hi") {
                (32, self.bin(BinOp::Shr, &p, &Arg::K(16)))
            } else {
                (32, p)
            }
        } else if has(i, "wide") {
            let x = ext(self, &x, w);
            let y = ext(self, &y, w);
            (2 * w, self.bin(BinOp::Mul, &x, &y))
        } else if has(i, "hi") {
            if w >= 64 {
                let r = match (x.known(), y.known()) {
                    (Some(p), Some(q)) => {
                        let prod = if signed {
                            (i128::from(p) * i128::from(q)) >> 64
                        } else {
                            ((u128::from(p as u64) * u128::from(q as u64)) >> 64) as i128
                        };
                        Arg::K(prod as i64)
                    }
                    _ => self.havoc(64),
                };
                (64, r)
            } else {
                let x = ext(self, &x, w);
                let y = ext(self, &y, w);
                let p = self.bin(BinOp::Mul, &x, &y);
                let sh = if signed { BinOp::Shr } else { BinOp::Lshr };
                (w, self.bin(sh, &p, &Arg::K(i64::from(w))))
            }
        } else {
            (w, self.bin(BinOp::Mul, &x, &y))
        };
        let r = match c {
            Some(c) => {
                let ct = Type {
                    kind: t.kind,
                    bits: rw,
                };
                let z = self.read_int(fr, st, c, ct)?;
                self.bin(BinOp::Add, &r, &z)
            }
            None => r,
        };
        let r = self.sext(&r, rw);
        self.write(fr, st, d, V::Int(r))
    }

    fn unary(&mut self, op: &str, x: &Arg, t: Type, shiftamt: bool) -> Arg {
        let w = t.bits;
        match op {
            "neg" => {
                let r = self.bin(BinOp::Sub, &Arg::K(0), x);
                self.sext(&r, w)
            }
            "abs" => {
                let neg = self.bin(BinOp::Lt, x, &Arg::K(0));
                let n = self.bin(BinOp::Sub, &Arg::K(0), x);
                let r = self.select(&neg, &n, x);
                self.sext(&r, w)
            }
            "not" if t.kind == TypeKind::Pred => self.bin(BinOp::Xor, x, &Arg::K(1)),
            "not" => self.bin(BinOp::Xor, x, &Arg::K(-1)),
            "cnot" => self.bin(BinOp::Eq, x, &Arg::K(0)),
            _ => match x.known() {
                Some(v) => {
                    let u = zext(v, w) as u64;
                    let r: i64 = match op {
                        "popc" => i64::from(u.count_ones()),
                        "clz" => i64::from(u.leading_zeros()) - (64 - i64::from(w)),
                        "brev" => sext((u.reverse_bits() >> (64 - w)) as i64, w),
                        _ => {
                            // bfind: the most significant non-sign bit.
                            let v = if t.kind == TypeKind::Signed {
                                sext(v, w)
                            } else {
                                u as i64
                            };
                            let bits = if t.kind == TypeKind::Signed && v < 0 {
                                !v
                            } else {
                                v
                            };
                            if bits == 0 {
                                -1
                            } else {
                                let msb = 63 - i64::from((bits as u64).leading_zeros());
                                if shiftamt {
                                    i64::from(w) - 1 - msb
                                } else {
                                    msb
                                }
                            }
                        }
                    };
                    Arg::K(sext(r, 32))
                }
                None => self.bit_count(op, x, t, shiftamt),
            },
        }
    }

    /// `popc`, `clz`, `brev` and `bfind` of a run-time value, by shifts
    /// and masks on its `w`-bit pattern (no multiplication, which would
    /// cost the solver a multiplier).
    fn bit_count(&mut self, op: &str, x: &Arg, t: Type, shiftamt: bool) -> Arg {
        let w = t.bits.clamp(1, 64);
        let mask = |m: u64| -> Arg { Arg::K((m & (u64::MAX >> (64 - w))) as i64) };
        // Steps of 1, 2, 4, … up to the width.
        let steps: Vec<u32> = (0..6).map(|k| 1u32 << k).filter(|&s| s < w).collect();
        const M: [u64; 6] = [
            0x5555_5555_5555_5555,
            0x3333_3333_3333_3333,
            0x0f0f_0f0f_0f0f_0f0f,
            0x00ff_00ff_00ff_00ff,
            0x0000_ffff_0000_ffff,
            0x0000_0000_ffff_ffff,
        ];
        let popc = |tx: &mut Self, v: &Arg| -> Arg {
            let mut v = v.clone();
            for (k, &s) in steps.iter().enumerate() {
                let lo = tx.bin(BinOp::And, &v, &mask(M[k]));
                let sh = tx.bin(BinOp::Lshr, &v, &Arg::K(i64::from(s)));
                let hi = tx.bin(BinOp::And, &sh, &mask(M[k]));
                v = tx.bin(BinOp::Add, &lo, &hi);
            }
            v
        };
        let u = self.zext(x, w);
        // Leading zeros: every bit below the highest set bit set, counted.
        let clz = |tx: &mut Self, v: &Arg| -> Arg {
            let mut v = v.clone();
            for &s in &steps {
                let sh = tx.bin(BinOp::Lshr, &v, &Arg::K(i64::from(s)));
                v = tx.bin(BinOp::Or, &v, &sh);
            }
            let ones = popc(tx, &v);
            tx.bin(BinOp::Sub, &Arg::K(i64::from(w)), &ones)
        };
        match op {
            "popc" => popc(self, &u),
            "clz" => clz(self, &u),
            "brev" => {
                let mut v = u;
                for (k, &s) in steps.iter().enumerate() {
                    let sh = self.bin(BinOp::Lshr, &v, &Arg::K(i64::from(s)));
                    let hi = self.bin(BinOp::And, &sh, &mask(M[k]));
                    let lo = self.bin(BinOp::And, &v, &mask(M[k]));
                    let lo = self.bin(BinOp::Shl, &lo, &Arg::K(i64::from(s)));
                    v = self.bin(BinOp::Or, &hi, &lo);
                }
                let v = self.bin(BinOp::And, &v, &mask(u64::MAX));
                self.sext(&v, w)
            }
            _ => {
                // bfind: the most significant non-sign bit, -1 for none.
                let bits = if t.kind == TypeKind::Signed {
                    let s = self.sext(x, w);
                    let neg = self.bin(BinOp::Lt, &s, &Arg::K(0));
                    let inv = self.bin(BinOp::Xor, &u, &mask(u64::MAX));
                    self.select(&neg, &inv, &u)
                } else {
                    u
                };
                let lz = clz(self, &bits);
                let r = if shiftamt {
                    lz
                } else {
                    self.bin(BinOp::Sub, &Arg::K(i64::from(w) - 1), &lz)
                };
                let none = self.bin(BinOp::Eq, &bits, &Arg::K(0));
                let r = self.select(&none, &Arg::K(-1), &r);
                self.sext(&r, 32)
            }
        }
    }

    /// PTX shifts: amounts past the width give 0 (or the sign).
    fn shift(&mut self, left: bool, signed: bool, x: &Arg, k: &Arg, w: u32) -> Arg {
        let w64 = i64::from(w);
        if let Some(k) = k.known() {
            let r = if left {
                if k >= w64 {
                    Arg::K(0)
                } else {
                    self.bin(BinOp::Shl, x, &Arg::K(k))
                }
            } else if signed {
                self.bin(BinOp::Shr, x, &Arg::K(k.min(63)))
            } else if k >= w64 {
                Arg::K(0)
            } else {
                let z = self.zext(x, w);
                self.bin(BinOp::Lshr, &z, &Arg::K(k))
            };
            return self.sext(&r, w);
        }
        let inside = self.bin(BinOp::Ult, k, &Arg::K(w64));
        let r = if signed && !left {
            let k2 = self.select(&inside, k, &Arg::K(w64 - 1));
            self.bin(BinOp::Shr, x, &k2)
        } else {
            let base = if left { x.clone() } else { self.zext(x, w) };
            let s = self.bin(if left { BinOp::Shl } else { BinOp::Lshr }, &base, k);
            let m = self.bin(BinOp::Sub, &Arg::K(0), &inside);
            self.bin(BinOp::And, &s, &m)
        };
        self.sext(&r, w)
    }

    /// `bfe` with a known position and length.
    fn bfe(&mut self, x: &Arg, p: i64, l: i64, t: Type) -> Arg {
        let w = i64::from(t.bits);
        if l == 0 {
            return Arg::K(0);
        }
        let p = p.min(w - 1);
        let l = l.min(w - p);
        if t.kind == TypeKind::Signed {
            let s = self.bin(BinOp::Shr, x, &Arg::K(p));
            self.sext(&s, l as u32)
        } else {
            let z = self.zext(x, t.bits);
            let s = self.bin(BinOp::Lshr, &z, &Arg::K(p));
            let m = self.zext(&s, l as u32);
            self.sext(&m, t.bits)
        }
    }

    /// `prmt.b32` (default mode) with a known selector.
    fn prmt(&mut self, x: &Arg, y: &Arg, s: i64) -> Arg {
        let mut acc = Arg::K(0);
        for k in 0..4 {
            let sel = (s >> (4 * k)) & 0xf;
            let src = if sel & 4 == 0 { x } else { y };
            let byte_at = (sel & 3) * 8;
            let b = if sel & 8 != 0 {
                // Replicate the byte's sign bit.
                let t = self.bin(BinOp::Shl, src, &Arg::K(56 - byte_at));
                let t = self.bin(BinOp::Shr, &t, &Arg::K(63));
                self.bin(BinOp::And, &t, &Arg::K(0xff))
            } else {
                let t = self.bin(BinOp::Lshr, src, &Arg::K(byte_at));
                self.bin(BinOp::And, &t, &Arg::K(0xff))
            };
            let b = self.bin(BinOp::Shl, &b, &Arg::K(8 * k));
            acc = self.bin(BinOp::Or, &acc, &b);
        }
        self.sext(&acc, 32)
    }

    /// `lop3` with a known look-up table, as a sum of products.
    fn lop3(&mut self, a: &Arg, b: &Arg, c: &Arg, lut: i64) -> Arg {
        let mut acc = Arg::K(0);
        for m in 0..8 {
            if lut & (1 << m) == 0 {
                continue;
            }
            let mut term = Arg::K(-1);
            for (bit, v) in [(4, a), (2, b), (1, c)] {
                let lit = if m & bit != 0 {
                    v.clone()
                } else {
                    self.bin(BinOp::Xor, v, &Arg::K(-1))
                };
                term = self.bin(BinOp::And, &term, &lit);
            }
            acc = self.bin(BinOp::Or, &acc, &term);
        }
        acc
    }
}
