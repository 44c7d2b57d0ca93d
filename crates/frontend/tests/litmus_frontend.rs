//! The litmus front-end against the Dat3M corpus (`../shared/corpus`), a few
//! golden renderings, and robustness under random damage.

use gpumc_core::ir::{Cond, Instr, InstrKind, Operand, Program, RmwOp, Term};
use gpumc_frontend::litmus::parse;
use proptest::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn corpus_root() -> Option<PathBuf> {
    let root = gpumc_testutil::shared_corpus().join("dat3m/litmus");
    if root.is_dir() {
        Some(root)
    } else {
        println!("skipped: ../shared/corpus not found");
        None
    }
}

#[test]
fn every_corpus_file_parses() {
    let Some(root) = corpus_root() else { return };
    let files = gpumc_testutil::litmus_files(&root);
    assert!(
        files.len() > 1400,
        "only {} corpus files found",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable corpus file");
        match parse(&text, f) {
            Ok(p) => {
                assert!(!p.threads.is_empty(), "{}: no threads", f.display());
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Deterministic damage to every corpus file: truncations and byte edits
/// never panic and always yield a positioned error or a program.
#[test]
fn corpus_mutations_never_panic() {
    let Some(root) = corpus_root() else { return };
    let files = gpumc_testutil::litmus_files(&root);
    const ALPHABET: &[u8] = b"{}|;:@,.()~=!<>\"\n -/\\Pr01x";
    for f in files.iter() {
        let bytes = std::fs::read(f).expect("readable file");
        for b in gpumc_testutil::damaged_copies(&bytes, ALPHABET, 12, 3, 0x9e37_79b9_7f4a_7c15) {
            let text = String::from_utf8_lossy(&b);
            if let Err(e) = parse(&text, f) {
                assert!(
                    e.pos.is_some(),
                    "{}: error without position: {e}",
                    f.display()
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Canonical rendering for golden tests.

fn operand(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => r.clone(),
        Operand::Const(c) => c.to_string(),
    }
}

fn term(p: &Program, t: &Term) -> String {
    match t {
        Term::Reg(t, r) => format!("P{t}:{r}"),
        Term::Loc(l) => p.locations[*l].name.clone(),
        Term::Const(c) => c.to_string(),
    }
}

fn cond(p: &Program, c: &Cond) -> String {
    match c {
        Cond::True => "true".into(),
        Cond::False => "false".into(),
        Cond::Cmp(op, a, b) => format!("{} {} {}", term(p, a), op.symbol(), term(p, b)),
        Cond::Not(c) => format!("~({})", cond(p, c)),
        Cond::And(a, b) => format!("({} /\\ {})", cond(p, a), cond(p, b)),
        Cond::Or(a, b) => format!("({} \\/ {})", cond(p, a), cond(p, b)),
    }
}

fn instr(p: &Program, i: &Instr) -> String {
    // Litmus addresses are fixed.
    let loc = |a: &gpumc_core::ir::Addr| p.locations[a.cells()[0]].name.clone();
    let kind = match &i.kind {
        InstrKind::Load { dst, addr } => format!("Load {dst} <- {}", loc(addr)),
        InstrKind::Store { addr, value } => format!("Store {} <- {}", loc(addr), operand(value)),
        InstrKind::Rmw {
            dst,
            addr,
            op,
            operand: v,
        } => {
            let op = match op {
                RmwOp::Cas { expected } => format!("Cas(expected {})", operand(expected)),
                other => format!("{other:?}"),
            };
            format!(
                "Rmw {} <- {} {op} {}",
                dst.as_deref().unwrap_or("_"),
                loc(addr),
                operand(v)
            )
        }
        InstrKind::Fence => "Fence".into(),
        InstrKind::Barrier { id, count, arrive } => format!(
            "Barrier id={} count={} arrive={arrive}",
            operand(id),
            count.as_ref().map_or("all".into(), operand)
        ),
        InstrKind::Local { dst, op, a, b } => {
            format!("Local {dst} = {} {op:?} {}", operand(a), operand(b))
        }
        InstrKind::Label(l) => format!("Label {l}"),
        InstrKind::Havoc { dst, ty } => format!("Havoc {dst} {ty:?}"),
        InstrKind::Input { dst, input } => format!("Input {dst} = input {input}"),
        InstrKind::Unreachable { .. } => "Unreachable".into(),
        InstrKind::Infeasible => "Infeasible".into(),
        InstrKind::Branch { op, a, b, target } => format!(
            "Branch {} {} {} -> {target}",
            operand(a),
            op.symbol(),
            operand(b)
        ),
        InstrKind::Goto(l) => format!("Goto {l}"),
    };
    let mut tags = i.tags.join(",");
    if i.halves != Default::default() {
        // An RMW's read-only and write-only tags (frontend::tagging).
        tags = format!(
            "{tags} r:{} w:{}",
            i.halves.read.join(","),
            i.halves.write.join(",")
        );
    }
    format!("{} {kind} [{tags}] `{}`", i.pos, i.text)
}

fn render(p: &Program) -> String {
    let mut s = String::new();
    writeln!(s, "{:?} {}", p.arch, p.name).unwrap();
    for (i, l) in p.locations.iter().enumerate() {
        writeln!(
            s,
            "loc {i} {} phys={} init={} space={}",
            l.name,
            l.phys,
            l.init,
            l.space.as_deref().unwrap_or("-")
        )
        .unwrap();
    }
    for (a, b) in &p.ssw {
        writeln!(s, "ssw {a} {b}").unwrap();
    }
    for t in &p.threads {
        let regs: Vec<String> = t
            .init_regs
            .iter()
            .map(|(r, v)| format!("{r}={v}"))
            .collect();
        writeln!(
            s,
            "{} @{:?} init[{}]",
            t.name,
            t.placement.ids,
            regs.join(" ")
        )
        .unwrap();
        for i in &t.instrs {
            writeln!(s, "  {}", instr(p, i)).unwrap();
        }
    }
    if let Some(f) = &p.filter {
        writeln!(s, "filter {}", cond(p, f)).unwrap();
    }
    if let Some(a) = &p.assertion {
        writeln!(s, "{:?} {}", a.quantifier, cond(p, &a.cond)).unwrap();
    }
    if !p.observed.is_empty() {
        let o: Vec<String> = p.observed.iter().map(|t| term(p, t)).collect();
        writeln!(s, "observed {}", o.join(" ")).unwrap();
    }
    s
}

fn golden(rel: &str, expected: &str) {
    let Some(root) = corpus_root() else { return };
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).expect("readable corpus file");
    let p = parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    let got = render(&p);
    assert_eq!(
        got.trim(),
        expected.trim(),
        "rendering of {rel} changed:\n{got}"
    );
}

// ---------------------------------------------------------------------------
// Golden renderings of representative corpus files.

#[test]
fn golden_ptx_dynamic_barrier_id() {
    golden(
        "PTX/Manual/SB+named-bar-dyn-reg-const.litmus",
        r#"
Ptx SB+named-bar-dyn-reg-const
loc 0 x phys=0 init=0 space=-
loc 1 y phys=1 init=0 space=-
loc 2 z phys=2 init=0 space=-
P0 @[0, 0] init[r0=0 r2=0]
  11:2 Store x <- 1 [WEAK,GEN] `st.weak x, 1`
  12:2 Load r2 <- z [WEAK,GEN] `ld.weak r2, z`
  13:2 Barrier id=r2 count=all arrive=false [B,CBAR,CTA,GEN] `bar.cta.sync 1, r2`
  14:2 Load r0 <- y [WEAK,GEN] `ld.weak r0, y`
P1 @[0, 0] init[r1=0 r3=0]
  11:23 Store y <- 1 [WEAK,GEN] `st.weak y, 1`
  12:23 Barrier id=1 count=all arrive=false [B,CBAR,CTA,GEN] `bar.cta.sync 1, 1`
  13:23 Load r1 <- x [WEAK,GEN] `ld.weak r1, x`
P2 @[0, 0] init[]
  11:43 Store z <- 1 [WEAK,GEN] `st.weak z, 1`
Forall (P0:r0 == 1 \/ P1:r1 == 1)
"#,
    );
}

#[test]
fn golden_ptx_undeclared_location_and_register_assignment() {
    golden(
        "PTX/Memalloy/IRIW1.litmus",
        r#"
Ptx IRIW_gl_cta
loc 0 x phys=0 init=0 space=-
loc 1 y phys=1 init=0 space=-
P0 @[0, 0] init[r0=0]
  14:2 Local r0 = 1 Add 0 [] `ld r0, 1`
  15:2 Store x <- r0 [WEAK,GEN] `st.weak x, r0`
P1 @[1, 0] init[r0=0 r2=0]
  14:29 Load r0 <- x [WEAK,GEN] `ld.weak r0, x`
  15:29 Fence [F,SC,ACQ_REL,ACQ,REL,CTA,GEN] `fence.sc.cta`
  16:29 Load r2 <- y [WEAK,GEN] `ld.weak r2, y`
P2 @[1, 0] init[r0=0]
  14:56 Local r0 = 1 Add 0 [] `ld r0, 1`
  15:56 Store x <- r0 [WEAK,GEN] `st.weak x, r0`
P3 @[1, 0] init[r0=0 r2=0]
  14:83 Load r0 <- x [WEAK,GEN] `ld.weak r0, x`
  15:83 Fence [F,SC,ACQ_REL,ACQ,REL,GPU,GEN] `fence.sc.gpu`
  16:83 Load r2 <- y [WEAK,GEN] `ld.weak r2, y`
Exists ((P1:r0 == 1 /\ P1:r2 == 0) /\ (P3:r0 == 1 /\ P3:r2 == 0))
"#,
    );
}

#[test]
fn golden_ptx_proxies_and_aliases() {
    golden(
        "PTX/Manual/proxy/Proxy-SingleThread-rf-surW-surF-conF-conR.litmus",
        r#"
Ptx Proxy-SingleThread-rf-surW-surF-conF-conR
loc 0 rd1 phys=0 init=0 space=-
loc 1 rd2 phys=0 init=0 space=constant
loc 2 rd3 phys=0 init=0 space=surface
P0 @[0, 0] init[r0=0]
  12:2 Store rd3 <- 42 [WEAK,SUR] `sust.weak rd3, 42`
  13:2 Fence [F,PROXY,SUR] `fence.proxy.surface`
  14:2 Fence [F,PROXY,CON] `fence.proxy.constant`
  15:2 Load r3 <- rd2 [WEAK,CON] `cold.weak r3, rd2`
Forall P0:r3 == 42
"#,
    );
}

#[test]
fn golden_ptx_cas_loop_multiline_comment() {
    golden(
        "PTX/Manual/MICRO24-Fig4b-correct.litmus",
        r#"
Ptx MICRO24-Fig4b-correct
loc 0 sum phys=0 init=0 space=-
loc 1 flag phys=1 init=0 space=-
P0 @[0, 0] init[]
  15:2 Rmw r1 <- sum Add 1 [GPU,GEN r:RLX w:RLX] `atom.relaxed.gpu.add r1, sum, 1`
  16:2 Fence [F,SC,ACQ_REL,ACQ,REL,GPU,GEN] `fence.sc.gpu`
  17:2 Rmw r2 <- flag Exch 1 [GPU,GEN r:RLX w:RLX] `atom.relaxed.gpu.exch r2, flag, 1`
P1 @[1, 0] init[r1=0 r2=0]
  15:38 Label LC00 [] `LC00:`
  16:38 Rmw r1 <- flag Cas(expected 1) 0 [GPU,GEN r:RLX w:RLX] `atom.relaxed.gpu.cas r1, flag, 1, 0`
  17:38 Branch r1 != 1 -> LC00 [] `bne r1, 1, LC00`
  18:38 Fence [F,SC,ACQ_REL,ACQ,REL,GPU,GEN] `fence.sc.gpu`
  19:38 Rmw r2 <- sum Add 0 [GPU,GEN r:RLX w:RLX] `atom.relaxed.gpu.add r2, sum, 0`
Exists (P1:r1 == 1 /\ P1:r2 != 1)
"#,
    );
}

#[test]
fn golden_ptx_red_without_destination() {
    golden(
        "PTX/Manual/Atom-plus-register.litmus",
        r#"
Ptx Atom-plus-register
loc 0 x phys=0 init=0 space=-
P0 @[0, 0] init[r0=0]
  9:2 Rmw _ <- x Add 1 [CTA,GEN r:ACQ w:REL] `red.acq_rel.cta.add x, 1`
P1 @[1, 0] init[r0=0]
  9:37 Rmw _ <- x Add 1 [CTA,GEN r:ACQ w:REL] `red.acq_rel.cta.add x, 1`
  10:37 Load r0 <- x [ACQ,CTA,GEN] `ld.acquire.cta r0, x`
Exists P1:r0 == 1
"#,
    );
}

#[test]
fn golden_vulkan_ssw_alias_avdevice() {
    golden(
        "VULKAN/Kronos-Group/ssw1.litmus",
        r#"
Vulkan ssw1
loc 0 x phys=0 init=0 space=-
loc 1 y phys=0 init=0 space=-
ssw 0 1
ssw 1 2
P0 @[0, 0, 0] init[]
  13:2 Store x <- 1 [SC0] `st.sc0 x, 1`
P1 @[1, 0, 0] init[]
  13:37 Fence [AVDEVICE] `avdevice`
  14:37 Fence [VISDEVICE] `visdevice`
P2 @[2, 0, 0] init[r0=0]
  13:72 Load r0 <- y [SC1] `ld.sc1 r0, y`
Exists P2:r0 == 1
"#,
    );
}

#[test]
fn golden_vulkan_barrier_quorum() {
    golden(
        "VULKAN/Barrier/quorum3-pass.litmus",
        r#"
Vulkan test3-pass
loc 0 x phys=0 init=0 space=-
loc 1 y phys=1 init=0 space=-
P0 @[0, 0, 0] init[]
  6:2 Barrier id=1 count=2 arrive=false [B,CBAR,F,ACQ,REL,ACQ_REL,DV,SEMSC0] `cbar.acq_rel.dv.semsc0 1, 1, 2`
  7:2 Load r0 <- x [VIS,NONPRIV,DV,SC0] `ld.vis.dv.sc0 r0, x`
P1 @[1, 0, 0] init[]
  6:35 Store x <- 1 [AV,NONPRIV,DV,SC0] `st.av.dv.sc0 x, 1`
  7:35 Store y <- 1 [AV,NONPRIV,DV,SC0] `st.av.dv.sc0 y, 1`
  8:35 Barrier id=1 count=2 arrive=false [B,CBAR,F,ACQ,REL,ACQ_REL,DV,SEMSC0] `cbar.acq_rel.dv.semsc0 1, 1, 2`
P2 @[2, 0, 0] init[]
  6:68 Barrier id=1 count=2 arrive=false [B,CBAR,F,ACQ,REL,ACQ_REL,DV,SEMSC0] `cbar.acq_rel.dv.semsc0 1, 1, 2`
  7:68 Load r0 <- y [VIS,NONPRIV,DV,SC0] `ld.vis.dv.sc0 r0, y`
Exists (P0:r0 == 0 /\ P2:r0 == 0)
"#,
    );
}

#[test]
fn golden_vulkan_filter() {
    golden(
        "VULKAN/Data-Race/test11-filter.litmus",
        r#"
Vulkan test11
loc 0 a phys=0 init=0 space=-
loc 1 b phys=0 init=0 space=-
P0 @[0, 0, 0] init[r0=0]
  10:2 Load r0 <- a [VIS,NONPRIV,DV,SC0] `ld.vis.dv.sc0 r0, a`
  11:2 Barrier id=0 count=all arrive=false [B,CBAR,F,ACQ,REL,ACQ_REL,WG,SEMSC0,SEMSC1] `cbar.acq_rel.wg.semsc0.semsc1 0`
P1 @[1, 0, 0] init[]
  10:39 Barrier id=0 count=all arrive=false [B,CBAR,F,ACQ,REL,ACQ_REL,WG,SEMSC0,SEMSC1] `cbar.acq_rel.wg.semsc0.semsc1 0`
  11:39 Store b <- 1 [AV,NONPRIV,DV,SC1] `st.av.dv.sc1 b, 1`
filter P0:r0 == 0
"#,
    );
}

// ---------------------------------------------------------------------------
// Damaged inputs never panic, and every error has a position.

const SEEDS: [&str; 3] = [
    r#"PTX MP+labels
"comment with "quotes" inside"
{
x=0; y @ generic aliases x; s @ surface aliases x;
P0:r0=0; 1:r1=0
}
 P0@cta 0,gpu 0            | P1@cta 1,gpu 0       ;
 st.release.gpu x, 1       | LC10:                ;
 atom.acq_rel.gpu.cas r0, y, 0, 1 | ld.acquire.gpu r1, x ;
 bar.cta.sync 1, r0, 2     | bne r1, 1, LC10      ;
 fence.proxy.surface       | sust.weak s, 2       ;
 red.relaxed.sys.add x, r0 | goto LC11            ;
 ld r2, 1                  | LC11:                ;
exists (P1:r1 == 1 /\ ~(x = 2) \/ 0:r0 != 1)
locations [x; P0:r0;]
"#,
    r#"Vulkan test
"multi-line
 comment"
{
P0: r0=0;
x=0;
b aliases x;
}
{
ssw 0 1;
}
 P0@sg 0, wg 0, qf 0                 | P1@sg 1,wg 0, qf 0               ;
 st.atom.rel.dv.sc0.semsc0.semav x, 1 | LC10:                           ;
 cbar.acq_rel.wg.semsc0 1, 1, 2      | rmw.atom.acq.wg.sc0.semsc0.add r0, b, 1 ;
 avdevice                            | bne r0, 0, LC10                  ;
 membar.rel.dv.semsc0                | cbar.wg 00                       ;
filter (P1:r0 == 0)
~exists (P0:r0 == 1 /\ not (x == 0))
"#,
    "PTX t\n{ }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nforall (true /\\ P0:r0 = 0)\n",
];

fn check_no_panic(text: &str) -> Result<(), TestCaseError> {
    let path = Path::new("fuzz.litmus");
    if let Err(e) = parse(text, path) {
        prop_assert_eq!(e.file.as_deref(), Some(path));
        let pos = e.pos;
        prop_assert!(pos.is_some(), "error without position: {}", e);
        let pos = pos.unwrap();
        let lines = text.split('\n').count() as u32;
        prop_assert!(pos.line >= 1 && pos.line <= lines, "bad line in {}", e);
        prop_assert!(pos.col >= 1, "bad column in {}", e);
    }
    Ok(())
}

/// Bytes that matter to the grammar, plus arbitrary ones.
fn mutation_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => prop::sample::select(b"{}|;:@,.()~=!<>\"\n\t -/\\Pr0123456789xL".to_vec()),
        1 => any::<u8>(),
    ]
}

proptest! {
    #[test]
    fn seeds_parse(seed in 0..SEEDS.len()) {
        let text = SEEDS[seed];
        prop_assert!(parse(text, Path::new("seed.litmus")).is_ok(), "{:?}", parse(text, Path::new("seed.litmus")).err());
    }

    #[test]
    fn truncations_never_panic(seed in 0..SEEDS.len(), cut in any::<prop::sample::Index>()) {
        let bytes = SEEDS[seed].as_bytes();
        let text = String::from_utf8_lossy(&bytes[..cut.index(bytes.len() + 1)]);
        check_no_panic(&text)?;
    }

    #[test]
    fn mutations_never_panic(
        seed in 0..SEEDS.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, mutation_byte()), 1..8),
    ) {
        let mut bytes = SEEDS[seed].as_bytes().to_vec();
        for (at, how, b) in edits {
            let i = at.index(bytes.len() + 1);
            match how {
                0 if i < bytes.len() => bytes[i] = b,
                1 => bytes.insert(i, b),
                _ if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ => bytes.push(b),
            }
        }
        check_no_panic(&String::from_utf8_lossy(&bytes))?;
    }
}

/// Prints the rendering of the corpus files listed in `LITMUS_DUMP`
/// (comma-separated, relative to `dat3m/litmus`); a development aid.
#[test]
#[ignore]
fn dump() {
    let Some(root) = corpus_root() else { return };
    for rel in std::env::var("LITMUS_DUMP").unwrap_or_default().split(',') {
        let path = root.join(rel);
        let text = std::fs::read_to_string(&path).expect("readable corpus file");
        match parse(&text, &path) {
            Ok(p) => println!("=== {rel}\n{}", render(&p)),
            Err(e) => println!("=== {rel}\nERROR {e}"),
        }
    }
}
