use gpumc_mapping::enumerate::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let mut s = Space::new(n);
    s.normalize_scopes = args.iter().any(|a| a == "norm");
    s.descoped = args.iter().any(|a| a == "de");
    let t = std::time::Instant::now();
    let mut c = 0u64;
    let mut by = std::collections::BTreeMap::new();
    programs(&s, &mut |p| {
        c += 1;
        *by.entry((p.events(), p.threads.len())).or_insert(0u64) += 1;
        true
    });
    println!("{c} programs in {:?}", t.elapsed());
    for (k, v) in by {
        println!("{k:?} {v}");
    }
}
