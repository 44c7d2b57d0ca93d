#[path = "progress_util.rs"]
mod util;

use gpumc::progress::cli::decide_paths;
use gpumc::progress::table::{classify, format_table};
use gpumc::progress::Verdicts;

#[test]
fn scratch() {
    let Some(root) = util::progress_corpus("scratch") else { return };
    let t = std::time::Instant::now();
    let d = decide_paths(&[root]).unwrap();
    eprintln!("{} tests in {:?}", d.len(), t.elapsed());
    let v: Vec<Verdicts> = d.iter().map(|x| x.1).collect();
    eprintln!("{}", format_table(&classify(&v)));
}
