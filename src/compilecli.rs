//! `gpumc compile`: a scoped C/C++ litmus test compiled to PTX or Vulkan
//! with a mapping (docs/MAPPING.md), written as a litmus test of that
//! dialect; `--check-mapping` reports a mapping's coverage.

use gpumc::compile::{compile, print, Mapping, Target};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct CompileArgs {
    /// Target dialect: ptx | vulkan.
    #[arg(long, value_name = "TARGET")]
    to: Option<String>,
    /// Mapping: a built-in name (ptx: Lustig et al., ASPLOS'19 Fig. 11;
    /// vulkan: ours) or a .map file. Default: the built-in of --to.
    #[arg(long, value_name = "NAME|FILE")]
    mapping: Option<String>,
    /// Write the compiled test to FILE (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Check a mapping instead: load it (errors with file:line:col) and
    /// list the operations (kind, order, scope) no rule covers; exit
    /// status 1 when some are uncovered.
    #[arg(long, value_name = "NAME|FILE", conflicts_with_all = ["to", "mapping", "out", "test"])]
    check_mapping: Option<String>,
    /// The C litmus test, or `-` for standard input.
    test: Option<PathBuf>,
}

fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("gpumc: {msg}");
    2
}

pub fn run(a: &CompileArgs) -> u8 {
    if let Some(m) = &a.check_mapping {
        return check_mapping(m);
    }
    let Some(to) = &a.to else {
        return fail("compile needs --to ptx or --to vulkan (or --check-mapping FILE)");
    };
    let Some(target) = Target::parse(to) else {
        return fail(format!("unknown target `{to}` (expected ptx or vulkan)"));
    };
    let Some(test) = &a.test else {
        return fail("compile needs a test file (or `-` for standard input)");
    };
    let mapping = match &a.mapping {
        None => Mapping::default_for(target),
        Some(m) => match Mapping::load(m) {
            Ok(m) => m,
            Err(e) => return fail(e),
        },
    };
    let (text, name) = if test.as_os_str() == "-" {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin().lock().read_to_end(&mut bytes) {
            return fail(format!("<stdin>: {e}"));
        }
        let name = PathBuf::from("<stdin>");
        match gpumc::diag::text(bytes) {
            Ok(s) => (s, name),
            Err(e) => return fail(e.in_file(&name)),
        }
    } else {
        match gpumc::diag::read_text(test) {
            Ok(s) => (s, test.clone()),
            Err(e) => return fail(e),
        }
    };
    let program = match gpumc::driver::parse_program(&text, &name) {
        Ok(p) => p,
        Err(e) => return fail(e.in_file(&name)),
    };
    let compiled = match compile(&program, &mapping, target) {
        Ok(c) => c,
        Err(e) => return fail(e.in_file(&name)),
    };
    let comment = format!(
        "Compiled by gpumc compile from {} (test {}) to {} with mapping {}",
        file_name(&name),
        program.name,
        target.name(),
        mapping.describe()
    );
    let mut comments = vec![comment];
    // Name the registers the condition reads under their C names.
    let mut watched: Vec<gpumc::ir::Term> = Vec::new();
    for c in [
        program.filter.as_ref(),
        program.assertion.as_ref().map(|a| &a.cond),
    ]
    .into_iter()
    .flatten()
    {
        watched.extend(c.terms());
    }
    watched.extend(program.observed.iter().cloned());
    let mut names = Vec::new();
    for (t, list) in compiled.renamed.iter().enumerate() {
        for (from, to) in list {
            if watched.contains(&gpumc::ir::Term::Reg(t, from.clone())) {
                names.push(format!("P{t}:{from} is P{t}:{to}"));
            }
        }
    }
    if !names.is_empty() {
        comments.push(format!("Registers: {}", names.join(", ")));
    }
    let out = match print::litmus(&compiled.program, &comments) {
        Ok(t) => t,
        Err(e) => return fail(e.in_file(&name)),
    };
    match &a.out {
        Some(p) => {
            if let Err(e) = std::fs::write(p, &out) {
                return fail(format!("{}: {e}", p.display()));
            }
        }
        None => {
            let mut o = std::io::stdout().lock();
            if o.write_all(out.as_bytes())
                .and_then(|()| o.flush())
                .is_err()
            {
                return 2;
            }
        }
    }
    0
}

fn file_name(p: &Path) -> String {
    p.display().to_string()
}

fn check_mapping(m: &str) -> u8 {
    let mapping = match Mapping::load(m) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let all = gpumc::compile::Key::all().len();
    let missing = mapping.uncovered();
    println!(
        "mapping {} (target {}): {} of {all} operations covered",
        mapping.describe(),
        mapping.target,
        all - missing.len()
    );
    if missing.is_empty() {
        return 0;
    }
    println!("not covered:");
    for k in &missing {
        println!("  {k}");
    }
    1
}
