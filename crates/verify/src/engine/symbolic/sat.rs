//! A thin layer over CaDiCaL: literals with constant folding, gates with
//! structural hashing (Tseitin: both directions, or one where the caller
//! sets a [`Polarity`]), cardinality helpers.
//!
//! Literals are DIMACS integers. Variable 1 is fixed to true, so [`TRUE`]
//! is `1` and [`FALSE`] is `-1`; every gate folds constants, so a formula
//! over constants never reaches the solver.

use crate::diag::{Error, ErrorKind, Result};
use gpumc_core::fasthash::FastMap;

pub type Lit = i32;
pub const TRUE: Lit = 1;
pub const FALSE: Lit = -1;

/// Which directions of a gate's definition are encoded. A gate `g` of
/// formula `f` gets `f ⇒ g` (`up`: `g` is at least `f`) and/or `g ⇒ f`
/// (`down`: `g` is at most `f`). A gate only ever used where a larger
/// value makes a constraint harder (a literal that must be false, an edge
/// that must not close a cycle) needs only `up` (Plaisted–Greenbaum): the
/// exact value is still a solution, and every solution bounds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Polarity {
    pub up: bool,
    pub down: bool,
}

impl Polarity {
    pub const BOTH: Polarity = Polarity {
        up: true,
        down: true,
    };
    pub const UP: Polarity = Polarity {
        up: true,
        down: false,
    };
    pub const DOWN: Polarity = Polarity {
        up: false,
        down: true,
    };
    pub const NONE: Polarity = Polarity {
        up: false,
        down: false,
    };

    /// The polarity a negated operand needs.
    pub fn flip(self) -> Polarity {
        Polarity {
            up: self.down,
            down: self.up,
        }
    }

    pub fn union(self, o: Polarity) -> Polarity {
        Polarity {
            up: self.up || o.up,
            down: self.down || o.down,
        }
    }

    fn bits(self) -> u8 {
        u8::from(self.up) | u8::from(self.down) << 1
    }
}

/// Asks CaDiCaL to stop once the current resource guard trips
/// (`crate::guard`): the deadline, or the resident size in a worker.
struct Stop;

impl cadical::Callbacks for Stop {
    fn terminate(&mut self) -> bool {
        crate::guard::check().is_err()
    }
}

/// Clauses between two looks at the resource guard while encoding.
const GUARD_PERIOD: usize = 1 << 14;

pub struct Sat {
    solver: cadical::Solver<Stop>,
    next: i32,
    /// Gate of each conjunction, and the directions (bits of
    /// [`Polarity`]) encoded so far.
    and_cache: FastMap<Vec<Lit>, (Lit, u8)>,
    /// The directions new gates get ([`Polarity::BOTH`] but while a
    /// model's derived relations are encoded).
    pub polarity: Polarity,
    clauses: usize,
    /// The formula is already known to be unsatisfiable.
    trivially_unsat: bool,
    /// Literals over all clauses (for the memory estimate).
    lits: usize,
    /// The resource guard tripped while encoding: no more clauses are
    /// added; [`Sat::check`] reports it.
    stopped: Option<Error>,
}

impl Default for Sat {
    fn default() -> Self {
        Self::new()
    }
}

impl Sat {
    pub fn new() -> Self {
        // A debugging aid: one of CaDiCaL's configurations (default,
        // plain, sat, unsat); an unknown name keeps the default.
        let mut solver: cadical::Solver<Stop> = std::env::var("GPUMC_CADICAL_CONFIG")
            .ok()
            .and_then(|c| cadical::Solver::with_config(&c).ok())
            .unwrap_or_default();
        if crate::guard::active() {
            solver.set_callbacks(Some(Stop));
        }
        solver.add_clause([TRUE]);
        Sat {
            solver,
            next: 2,
            and_cache: FastMap::default(),
            polarity: Polarity::BOTH,
            clauses: 1,
            trivially_unsat: false,
            lits: 1,
            stopped: None,
        }
    }

    /// Estimated bytes for a formula of this size, in CaDiCaL (clause
    /// headers and literals, two watches per clause, per-variable tables)
    /// and in our gate cache; calibrated on our encodings (docs/SYMBOLIC.md).
    pub fn estimate(vars: usize, clauses: usize, lits: usize) -> u64 {
        let (v, c, l) = (vars as u64, clauses as u64, lits as u64);
        c.saturating_mul(64)
            .saturating_add(l.saturating_mul(8))
            .saturating_add(v.saturating_mul(160))
    }

    /// [`Sat::estimate`] of the formula so far.
    pub fn estimated_bytes(&self) -> u64 {
        Self::estimate(self.num_vars(), self.clauses, self.lits) + 96 * self.and_cache.len() as u64
    }

    /// Fails when the resource guard tripped while encoding, or trips now.
    pub fn check(&mut self) -> Result<()> {
        if self.stopped.is_none() {
            self.poll();
        }
        match &self.stopped {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn poll(&mut self) {
        if let Err(e) = crate::guard::check_estimate(self.estimated_bytes(), "the SAT formula") {
            self.stopped = Some(e);
        }
    }

    /// Why the last [`Sat::solve`] returned `None`: a tripped guard, or
    /// the solver giving up.
    pub fn gave_up(&mut self) -> Error {
        match self.check() {
            Err(e) => e,
            Ok(()) => Error::new(
                ErrorKind::Unsupported,
                "unsupported: the SAT solver gave up",
            ),
        }
    }

    /// A fresh variable.
    pub fn var(&mut self) -> Lit {
        let v = self.next;
        self.next += 1;
        v
    }

    pub fn num_vars(&self) -> usize {
        (self.next - 1) as usize
    }

    pub fn num_clauses(&self) -> usize {
        self.clauses
    }

    /// Adds a clause (constants folded away).
    pub fn clause(&mut self, lits: &[Lit]) {
        if lits.contains(&TRUE) || self.stopped.is_some() {
            return;
        }
        let mut c: Vec<Lit> = lits.iter().copied().filter(|&l| l != FALSE).collect();
        c.sort_unstable();
        c.dedup();
        if c.windows(2).any(|w| w[0] == -w[1]) {
            return;
        }
        if c.is_empty() {
            self.trivially_unsat = true;
            c.push(FALSE);
        }
        self.clauses += 1;
        self.lits += c.len();
        self.solver.add_clause(c);
        if self.clauses.is_multiple_of(GUARD_PERIOD) {
            self.poll();
        }
    }

    /// `a ⇒ b`.
    pub fn implies(&mut self, a: Lit, b: Lit) {
        self.clause(&[-a, b]);
    }

    /// Conjunction of `lits` (a gate: the result is equivalent to it).
    pub fn and(&mut self, lits: &[Lit]) -> Lit {
        let mut c: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            if l == FALSE {
                return FALSE;
            }
            if l != TRUE {
                c.push(l);
            }
        }
        c.sort_unstable();
        c.dedup();
        if c.windows(2).any(|w| w[0] == -w[1]) {
            return FALSE;
        }
        match c.len() {
            0 => return TRUE,
            1 => return c[0],
            _ => {}
        }
        if self.stopped.is_some() {
            // The formula is abandoned: stop growing the cache.
            return self.var();
        }
        let need = self.polarity.bits();
        let (g, have) = match self.and_cache.get(&c) {
            Some(&(g, have)) if have & need == need => return g,
            Some(&(g, have)) => (g, have),
            None => (self.var(), 0),
        };
        let missing = need & !have;
        if missing & 2 != 0 {
            for &l in &c {
                self.clause(&[-g, l]);
            }
        }
        if missing & 1 != 0 {
            let mut big: Vec<Lit> = c.iter().map(|&l| -l).collect();
            big.push(g);
            self.clause(&big);
        }
        self.and_cache.insert(c, (g, have | need));
        g
    }

    pub fn and2(&mut self, a: Lit, b: Lit) -> Lit {
        self.and(&[a, b])
    }

    pub fn or(&mut self, lits: &[Lit]) -> Lit {
        let neg: Vec<Lit> = lits.iter().map(|&l| -l).collect();
        // `g = ¬and(¬lits)`: g's up direction is the and-gate's down one.
        let saved = self.polarity;
        self.polarity = saved.flip();
        let g = -self.and(&neg);
        self.polarity = saved;
        g
    }

    /// A literal `g` with `⋁ ⋀ term ⇒ g` (the up direction only), one
    /// clause per term; the terms are constant-free.
    pub fn sum_of_products_up<'t>(&mut self, terms: impl Iterator<Item = &'t [Lit]>) -> Lit {
        let g = self.var();
        for t in terms {
            let mut c: Vec<Lit> = t.iter().map(|&l| -l).collect();
            c.push(g);
            self.clause(&c);
        }
        g
    }

    pub fn or2(&mut self, a: Lit, b: Lit) -> Lit {
        self.or(&[a, b])
    }

    /// At most one of `lits` (sequential counter for long lists).
    pub fn at_most_one(&mut self, lits: &[Lit]) {
        let l: Vec<Lit> = lits.iter().copied().filter(|&x| x != FALSE).collect();
        if l.len() <= 1 {
            return;
        }
        if l.len() <= 6 {
            for i in 0..l.len() {
                for j in i + 1..l.len() {
                    self.clause(&[-l[i], -l[j]]);
                }
            }
            return;
        }
        // s_i: some of l[0..=i] is true.
        let mut prev = l[0];
        for &x in &l[1..] {
            self.clause(&[-prev, -x]);
            let s = self.var();
            self.clause(&[-prev, s]);
            self.clause(&[-x, s]);
            prev = s;
        }
    }

    pub fn exactly_one(&mut self, lits: &[Lit]) {
        self.clause(lits);
        self.at_most_one(lits);
    }

    /// Unary counter: `out[k]` ⇔ at least `k + 1` of `lits` hold, for
    /// `k < max` (a totalizer-style sequential counter, both directions).
    pub fn at_least(&mut self, lits: &[Lit], max: usize) -> Vec<Lit> {
        // row[k] = at least k+1 of the prefix.
        let mut row: Vec<Lit> = vec![FALSE; max];
        for &x in lits {
            let mut next = vec![FALSE; max];
            for k in 0..max {
                let carry = if k == 0 { x } else { self.and2(row[k - 1], x) };
                next[k] = self.or2(row[k], carry);
            }
            row = next;
        }
        row
    }

    /// Solves under assumptions. `None` if the solver gave up.
    pub fn solve(&mut self, assumptions: &[Lit]) -> Option<bool> {
        if self.check().is_err() {
            return None;
        }
        if self.trivially_unsat || assumptions.contains(&FALSE) {
            return Some(false);
        }
        let a: Vec<Lit> = assumptions.iter().copied().filter(|&l| l != TRUE).collect();
        if let Some(path) = std::env::var_os("GPUMC_SYMBOLIC_DIMACS") {
            // A debugging aid: the formula, and the assumptions on stderr.
            let _ = self.solver.write_dimacs(std::path::Path::new(&path));
            eprintln!("symbolic: formula written to {path:?}; assumptions {a:?}");
        }
        self.solver.solve_with(a)
    }

    /// The value of a literal in the last model.
    pub fn value(&self, l: Lit) -> bool {
        if l == TRUE {
            return true;
        }
        if l == FALSE {
            return false;
        }
        // Ask for the variable (its sign convention is unambiguous).
        let t = self.solver.value(l.abs()).unwrap_or(false);
        if l > 0 {
            t
        } else {
            !t
        }
    }
}
