//! The `.cat` front-end must turn any input into a model or an error, never
//! a panic; a model must then evaluate without panicking.
#![no_main]

use gpumc::cat::{BaseKind, Model, Value};
use gpumc::rel::{EventSet, Relation};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};

fn base(name: &str) -> Option<BaseKind> {
    match name {
        "po" | "rf" | "co" | "fr" | "loc" | "ext" | "int" | "rmw" | "sr" => {
            Some(BaseKind::Relation)
        }
        "R" | "W" | "M" | "F" | "IW" | "A" | "SC" => Some(BaseKind::Set),
        _ => None,
    }
}

fn resolve(name: &str, _: &Path) -> Option<(PathBuf, String)> {
    (name == "lib.cat").then(|| (PathBuf::from("lib.cat"), "let hb = po | rf\n".to_string()))
}

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let Ok(model) = Model::parse(&src, Path::new("fuzz.cat"), &resolve, &base) else {
        return;
    };
    let n = 5;
    let mut ev = model.evaluator(n);
    for (i, (_, kind)) in model.inputs().iter().enumerate() {
        let v = match kind {
            BaseKind::Set => Value::Set(EventSet::from_iter(n, [0, 2, 4])),
            BaseKind::Relation => Value::Rel(Relation::from_pairs(n, [(0, 1), (1, 2), (3, 3)])),
        };
        ev.set_input(i, v);
    }
    let _ = ev.first_violation();
    for k in 0..model.axioms().len() {
        let _ = ev.flag(k);
    }
});
