//! A small interpreter of the PTX this generator writes, so the scenarios'
//! exact results can be checked without a GPU. It executes instructions
//! one at a time, all threads of all CTAs interleaved round-robin over
//! sequentially consistent memory; it is strict where PTX leaves things
//! undefined: reading a register never written, `div`/`rem` by zero or
//! `i32::MIN / -1`, an access outside its buffer or state space, a
//! barrier some thread never reaches, and too many steps are errors.
//! It implements `Backend`, so the scenarios run on it as on CUDA.

use gpumc_hw::abi::{KernelConfig, BUFFERS};
use gpumc_hw::backend::{Backend, DeviceInfo, KernelId, Launch, LaunchError, LaunchOutput};
use gpumc_hw::ptx::{self, PtxTarget};
use gpumc_hw::spec::KernelSpec;
use std::collections::HashMap;
use std::time::Duration;

#[derive(Clone, Debug)]
enum Arg {
    Reg(String),
    Imm(u64),
    /// `%tid.x` and friends.
    Special(String),
    /// `[base+offset]`: a register, a parameter or a variable.
    Mem(String, i64),
    /// A label or the shared array.
    Sym(String),
}

#[derive(Clone, Debug)]
struct Ins {
    line: usize,
    guard: Option<(String, bool)>,
    opcode: Vec<String>,
    args: Vec<Arg>,
}

#[derive(Clone, Debug)]
pub struct Program {
    params: Vec<String>,
    shared_name: Option<String>,
    shared_words: usize,
    code: Vec<Ins>,
    labels: HashMap<String, usize>,
}

fn parse_imm(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).ok();
    }
    s.parse::<i64>().ok().map(|v| v as u64)
}

fn parse_arg(s: &str) -> Arg {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let (base, off) = match inner.split_once('+') {
            Some((b, o)) => (b.trim(), o.trim().parse().unwrap_or(i64::MIN)),
            None => (inner.trim(), 0),
        };
        return Arg::Mem(base.to_string(), off);
    }
    if s.starts_with('%') {
        if s.contains('.') {
            return Arg::Special(s.to_string());
        }
        return Arg::Reg(s.to_string());
    }
    if let Some(v) = parse_imm(s) {
        return Arg::Imm(v);
    }
    Arg::Sym(s.to_string())
}

pub fn parse(text: &str) -> Result<Program, String> {
    let mut p = Program {
        params: vec![],
        shared_name: None,
        shared_words: 0,
        code: vec![],
        labels: HashMap::new(),
    };
    let mut in_body = false;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if !in_body {
            if let Some(name) = line.strip_prefix(".param .u64 ") {
                p.params.push(name.trim_end_matches(',').to_string());
            }
            if line == "{" {
                in_body = true;
            }
            continue;
        }
        if line == "}" {
            break;
        }
        if let Some(label) = line.strip_suffix(':') {
            p.labels.insert(label.to_string(), p.code.len());
            continue;
        }
        let stmt = line
            .strip_suffix(';')
            .ok_or(format!("line {}: no ';'", n + 1))?;
        if stmt.starts_with(".reg") {
            continue;
        }
        if let Some(decl) = stmt.strip_prefix(".shared .align 4 .b32 ") {
            let (name, size) = decl
                .split_once('[')
                .ok_or(format!("line {}: shared array", n + 1))?;
            p.shared_name = Some(name.to_string());
            p.shared_words = size
                .trim_end_matches(']')
                .parse()
                .map_err(|_| format!("line {}: shared size", n + 1))?;
            continue;
        }
        let mut rest = stmt;
        let mut guard = None;
        if let Some(g) = rest.strip_prefix('@') {
            let (g, tail) = g.split_once(' ').ok_or("guard without instruction")?;
            guard = Some(match g.strip_prefix('!') {
                Some(p) => (p.to_string(), false),
                None => (g.to_string(), true),
            });
            rest = tail.trim();
        }
        let (opcode, operands) = rest.split_once(' ').unwrap_or((rest, ""));
        let args = if operands.trim().is_empty() {
            vec![]
        } else {
            operands.split(',').map(parse_arg).collect()
        };
        p.code.push(Ins {
            line: n + 1,
            guard,
            opcode: opcode.split('.').map(String::from).collect(),
            args,
        });
    }
    Ok(p)
}

/// Where global buffer `b` starts: `(b + 1) << 36`, so addresses of
/// different buffers never meet.
fn global_base(binding: usize) -> u64 {
    (binding as u64 + 1) << 36
}

/// The shared window's base address (32-bit).
const SHARED_BASE: u64 = 0x100;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Running,
    Barrier(u64),
    Done,
}

struct Thread {
    cta: usize,
    tid: u32,
    pc: usize,
    regs: HashMap<String, u64>,
    state: State,
}

struct Machine<'a> {
    p: &'a Program,
    global: Vec<Vec<u32>>,
    shared: Vec<Vec<u32>>,
    ntid: u32,
}

impl Machine<'_> {
    fn read(&self, t: &Thread, a: &Arg) -> Result<u64, String> {
        match a {
            Arg::Reg(r) => t
                .regs
                .get(r)
                .copied()
                .ok_or(format!("read of unset register {r}")),
            Arg::Imm(v) => Ok(*v),
            Arg::Special(s) => match s.as_str() {
                "%tid.x" => Ok(u64::from(t.tid)),
                "%ntid.x" => Ok(u64::from(self.ntid)),
                "%ctaid.x" => Ok(t.cta as u64),
                _ => Err(format!("unknown special register {s}")),
            },
            Arg::Sym(s) if Some(s) == self.p.shared_name.as_ref() => Ok(SHARED_BASE),
            other => Err(format!("cannot read {other:?}")),
        }
    }

    fn address(&self, t: &Thread, a: &Arg) -> Result<u64, String> {
        match a {
            Arg::Mem(base, off) => {
                let b = t
                    .regs
                    .get(base)
                    .copied()
                    .ok_or(format!("address register {base} unset"))?;
                Ok(b.wrapping_add(*off as u64))
            }
            other => Err(format!("not an address: {other:?}")),
        }
    }

    fn cell(&mut self, t: &Thread, space: &str, addr: u64) -> Result<&mut u32, String> {
        if !addr.is_multiple_of(4) {
            return Err(format!("misaligned {space} address {addr:#x}"));
        }
        match space {
            "global" => {
                let binding = ((addr >> 36) as usize).wrapping_sub(1);
                let off = (addr & ((1 << 36) - 1)) / 4;
                self.global
                    .get_mut(binding)
                    .and_then(|b| b.get_mut(off as usize))
                    .ok_or(format!("illegal global address {addr:#x}"))
            }
            "shared" => {
                let word = addr.wrapping_sub(SHARED_BASE) / 4;
                if addr > u64::from(u32::MAX) || addr < SHARED_BASE {
                    return Err(format!("illegal shared address {addr:#x}"));
                }
                self.shared[t.cta]
                    .get_mut(word as usize)
                    .ok_or(format!("shared address {addr:#x} past the array"))
            }
            _ => Err(format!("unsupported state space {space}")),
        }
    }

    fn step(&mut self, t: &mut Thread) -> Result<(), String> {
        let ins = self
            .p
            .code
            .get(t.pc)
            .ok_or("ran off the end of the code")?
            .clone();
        t.pc += 1;
        if let Some((p, want)) = &ins.guard {
            let v = t.regs.get(p).copied().ok_or(format!("guard {p} unset"))?;
            if (v != 0) != *want {
                return Ok(());
            }
        }
        self.exec(t, &ins)
            .map_err(|e| format!("line {} ({}): {e}", ins.line, ins.opcode.join(".")))
    }

    fn set(t: &mut Thread, a: &Arg, v: u64) -> Result<(), String> {
        match a {
            Arg::Reg(r) => {
                t.regs.insert(r.clone(), v);
                Ok(())
            }
            other => Err(format!("cannot write {other:?}")),
        }
    }

    fn exec(&mut self, t: &mut Thread, ins: &Ins) -> Result<(), String> {
        let q: Vec<&str> = ins.opcode.iter().map(String::as_str).collect();
        let a = &ins.args;
        let arg = |k: usize| a.get(k).ok_or(format!("operand {k} missing"));
        let has = |x: &str| q.contains(&x);
        let space = if has("global") {
            "global"
        } else if has("shared") {
            "shared"
        } else {
            ""
        };
        let r32 = |m: &Machine, t: &Thread, k: usize| -> Result<u32, String> {
            Ok(m.read(t, arg(k)?)? as u32)
        };
        match q[0] {
            "ld" if has("param") => {
                let Arg::Mem(name, 0) = arg(1)? else {
                    return Err("ld.param operand".into());
                };
                let k = self
                    .p
                    .params
                    .iter()
                    .position(|p| p == name)
                    .ok_or(format!("no parameter {name}"))?;
                Self::set(t, arg(0)?, global_base(k))
            }
            "ld" => {
                let addr = self.address(t, arg(1)?)?;
                let v = *self.cell(t, space, addr)?;
                Self::set(t, arg(0)?, u64::from(v))
            }
            "st" => {
                let addr = self.address(t, arg(0)?)?;
                let v = r32(self, t, 1)?;
                *self.cell(t, space, addr)? = v;
                Ok(())
            }
            "atom" | "red" => {
                let is_atom = q[0] == "atom";
                let (addr_k, val_k) = if is_atom { (1, 2) } else { (0, 1) };
                let addr = self.address(t, arg(addr_k)?)?;
                let v = r32(self, t, val_k)?;
                let op = q[q.len() - 2];
                let cas_new = if op == "cas" {
                    Some(r32(self, t, 3)?)
                } else {
                    None
                };
                let cell = self.cell(t, space, addr)?;
                let old = *cell;
                *cell = match op {
                    "exch" => v,
                    "add" => old.wrapping_add(v),
                    "and" => old & v,
                    "or" => old | v,
                    "xor" => old ^ v,
                    "min" => (old as i32).min(v as i32) as u32,
                    "max" => (old as i32).max(v as i32) as u32,
                    "cas" => {
                        if old == v {
                            cas_new.unwrap_or(old)
                        } else {
                            old
                        }
                    }
                    _ => return Err(format!("atomic operation {op}")),
                };
                if is_atom {
                    Self::set(t, arg(0)?, u64::from(old))?;
                }
                Ok(())
            }
            "mov" => {
                let v = self.read(t, arg(1)?)?;
                let v = if q[1].ends_with("64") {
                    v
                } else {
                    v & 0xFFFF_FFFF
                };
                Self::set(t, arg(0)?, v)
            }
            "cvta" => {
                let v = self.read(t, arg(1)?)?;
                Self::set(t, arg(0)?, v)
            }
            "mad" => {
                let v = r32(self, t, 1)?
                    .wrapping_mul(r32(self, t, 2)?)
                    .wrapping_add(r32(self, t, 3)?);
                Self::set(t, arg(0)?, u64::from(v))
            }
            "mul" if has("wide") => {
                let v = u64::from(r32(self, t, 1)?) * u64::from(r32(self, t, 2)?);
                Self::set(t, arg(0)?, v)
            }
            "mul" => {
                let v = r32(self, t, 1)?.wrapping_mul(r32(self, t, 2)?);
                Self::set(t, arg(0)?, u64::from(v))
            }
            "add" | "sub" if has("u64") => {
                let (x, y) = (self.read(t, arg(1)?)?, self.read(t, arg(2)?)?);
                let v = if q[0] == "add" {
                    x.wrapping_add(y)
                } else {
                    x.wrapping_sub(y)
                };
                Self::set(t, arg(0)?, v)
            }
            "add" | "sub" | "and" | "or" | "xor" if !has("pred") => {
                let (x, y) = (r32(self, t, 1)?, r32(self, t, 2)?);
                let v = match q[0] {
                    "add" => x.wrapping_add(y),
                    "sub" => x.wrapping_sub(y),
                    "and" => x & y,
                    "or" => x | y,
                    _ => x ^ y,
                };
                Self::set(t, arg(0)?, u64::from(v))
            }
            "and" | "or" => {
                let (x, y) = (self.read(t, arg(1)?)? != 0, self.read(t, arg(2)?)? != 0);
                let v = if q[0] == "and" { x && y } else { x || y };
                Self::set(t, arg(0)?, u64::from(v))
            }
            "neg" => {
                let v = (r32(self, t, 1)? as i32).wrapping_neg() as u32;
                Self::set(t, arg(0)?, u64::from(v))
            }
            "shl" | "shr" => {
                // PTX clamps shift amounts to the register width.
                let (x, n) = (r32(self, t, 1)?, r32(self, t, 2)?.min(32));
                let v = match (q[0], q[1]) {
                    ("shl", _) => {
                        if n == 32 {
                            0
                        } else {
                            x << n
                        }
                    }
                    (_, "s32") => ((x as i32) >> n.min(31)) as u32,
                    _ => {
                        if n == 32 {
                            0
                        } else {
                            x >> n
                        }
                    }
                };
                Self::set(t, arg(0)?, u64::from(v))
            }
            "div" | "rem" => {
                let (x, y) = (r32(self, t, 1)?, r32(self, t, 2)?);
                if y == 0 {
                    return Err(
                        "division by zero reached the instruction (PTX leaves it unspecified)"
                            .into(),
                    );
                }
                let v = if q[1] == "s32" {
                    let (x, y) = (x as i32, y as i32);
                    if x == i32::MIN && y == -1 {
                        return Err("i32::MIN / -1 reached the instruction".into());
                    }
                    (if q[0] == "div" { x / y } else { x % y }) as u32
                } else if q[0] == "div" {
                    x / y
                } else {
                    x % y
                };
                Self::set(t, arg(0)?, u64::from(v))
            }
            "setp" => {
                let (x, y) = (r32(self, t, 1)?, r32(self, t, 2)?);
                let (sx, sy) = (x as i32, y as i32);
                let signed = q[2] == "s32";
                let v = match q[1] {
                    "eq" => x == y,
                    "ne" => x != y,
                    "lt" if signed => sx < sy,
                    "le" if signed => sx <= sy,
                    "gt" if signed => sx > sy,
                    "ge" if signed => sx >= sy,
                    "lt" | "lo" => x < y,
                    "le" | "ls" => x <= y,
                    "gt" | "hi" => x > y,
                    "ge" | "hs" => x >= y,
                    c => return Err(format!("comparison {c}")),
                };
                Self::set(t, arg(0)?, u64::from(v))
            }
            "selp" => {
                let p = self.read(t, arg(3)?)? != 0;
                let v = if p {
                    r32(self, t, 1)?
                } else {
                    r32(self, t, 2)?
                };
                Self::set(t, arg(0)?, u64::from(v))
            }
            "bra" => {
                let Arg::Sym(label) = arg(0)? else {
                    return Err("branch target".into());
                };
                t.pc = *self
                    .p
                    .labels
                    .get(label)
                    .ok_or(format!("no label {label}"))?;
                Ok(())
            }
            "barrier" => {
                let id = self.read(t, arg(0)?)?;
                t.state = State::Barrier(id);
                Ok(())
            }
            "fence" | "membar" => Ok(()),
            "ret" => {
                t.state = State::Done;
                Ok(())
            }
            other => Err(format!("the interpreter does not know {other}")),
        }
    }
}

/// Runs `p` on the buffers of `launch`.
pub fn run(
    p: &Program,
    cfg: &KernelConfig,
    launch: &Launch<'_>,
    max_steps: u64,
) -> Result<LaunchOutput, String> {
    let mut global: Vec<Vec<u32>> = vec![vec![]; BUFFERS as usize];
    global[0] = launch.mem.to_vec();
    global[1] = launch.table.to_vec();
    global[2] = vec![0; launch.results_words];
    global[3] = vec![0; launch.sync_words];
    global[4] = vec![0; launch.stress_words];
    global[5] = launch.params.to_vec();
    global[6] = launch.shared_io.to_vec();
    let ctas = launch.workgroups as usize;
    let mut m = Machine {
        p,
        global,
        shared: vec![vec![0; p.shared_words]; ctas],
        ntid: cfg.workgroup_size,
    };
    let mut threads: Vec<Thread> = (0..ctas)
        .flat_map(|cta| {
            (0..cfg.workgroup_size).map(move |tid| Thread {
                cta,
                tid,
                pc: 0,
                regs: HashMap::new(),
                state: State::Running,
            })
        })
        .collect();
    let per_cta = cfg.workgroup_size as usize;
    let mut steps = 0u64;
    // A quantum of a few instructions: interleaves threads finely enough
    // for spin loops to see each other.
    const QUANTUM: usize = 5;
    loop {
        let mut progressed = false;
        for t in threads.iter_mut() {
            for _ in 0..QUANTUM {
                if t.state != State::Running {
                    break;
                }
                m.step(t)
                    .map_err(|e| format!("CTA {} thread {}: {e}", t.cta, t.tid))?;
                steps += 1;
                progressed = true;
            }
        }
        // Release each CTA whose threads all wait at a barrier.
        for cta in 0..ctas {
            let group = &mut threads[cta * per_cta..(cta + 1) * per_cta];
            let waiting: Vec<u64> = group
                .iter()
                .filter_map(|t| match t.state {
                    State::Barrier(id) => Some(id),
                    _ => None,
                })
                .collect();
            if waiting.is_empty() || group.iter().any(|t| t.state == State::Running) {
                continue;
            }
            if waiting.len() != group.len() {
                return Err(format!(
                    "CTA {cta}: a barrier some threads never reach (they returned)"
                ));
            }
            if waiting.iter().any(|id| *id != waiting[0]) {
                return Err(format!(
                    "CTA {cta}: threads wait at different barriers {waiting:?}"
                ));
            }
            for t in group.iter_mut() {
                t.state = State::Running;
            }
            progressed = true;
        }
        if threads.iter().all(|t| t.state == State::Done) {
            break;
        }
        if !progressed {
            return Err("deadlock".into());
        }
        if steps > max_steps {
            return Err(format!("more than {max_steps} steps"));
        }
    }
    Ok(LaunchOutput {
        mem: std::mem::take(&mut m.global[0]),
        results: std::mem::take(&mut m.global[2]),
        shared_io: if p.shared_words > 0 {
            std::mem::take(&mut m.global[6])
        } else {
            vec![]
        },
        device_time: None,
    })
}

/// The interpreter as a backend.
pub struct Interpreter {
    info: DeviceInfo,
    kernels: HashMap<u64, (Program, KernelConfig)>,
    /// The PTX of the last compiled kernel (for failure messages).
    pub last_ptx: String,
}

impl Default for Interpreter {
    fn default() -> Self {
        Interpreter {
            info: DeviceInfo {
                backend: "ptx-interpreter".into(),
                name: "gpumc test interpreter".into(),
                driver: "none".into(),
                subgroup_size: 32,
                max_workgroup_size: 1024,
                max_workgroups: 1 << 16,
                compute_units: None,
                max_shared_words: 12 * 1024,
                loop_limit: None,
            },
            kernels: HashMap::new(),
            last_ptx: String::new(),
        }
    }
}

impl Backend for Interpreter {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn compile(
        &mut self,
        spec: &KernelSpec,
        cfg: &KernelConfig,
    ) -> gpumc_core::diag::Result<KernelId> {
        let text = ptx::emit(spec, cfg, &PtxTarget::lowest_for(spec))?;
        let program = parse(&text)
            .map_err(|e| gpumc_core::diag::Error::new(gpumc_core::diag::ErrorKind::Syntax, e))?;
        self.last_ptx = text;
        let id = self.kernels.len() as u64 + 1;
        self.kernels.insert(id, (program, *cfg));
        Ok(KernelId(id))
    }

    fn launch(
        &mut self,
        kernel: KernelId,
        launch: &Launch<'_>,
        _watchdog: Duration,
    ) -> Result<LaunchOutput, LaunchError> {
        let (p, cfg) = self
            .kernels
            .get(&kernel.0)
            .ok_or(LaunchError::Failed("unknown kernel".into()))?;
        run(p, cfg, launch, 50_000_000).map_err(LaunchError::Failed)
    }

    fn release(&mut self, _kernel: KernelId) {}

    fn reset(&mut self) -> Result<(), String> {
        self.kernels.clear();
        Ok(())
    }
}
