//! Finding `ptxas` and assembling a kernel with it. Tests that need it
//! skip with a message when it is absent (no CUDA toolkit here).

use std::path::{Path, PathBuf};
use std::process::Command;

/// `$GPUMC_PTXAS`, `ptxas` on `PATH`, or `/usr/local/cuda/bin/ptxas`.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GPUMC_PTXAS") {
        return Some(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("ptxas");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let p = PathBuf::from("/usr/local/cuda/bin/ptxas");
    p.is_file().then_some(p)
}

/// Assembles `ptx` for `-arch=sm_<sm>`; `Err` holds ptxas's output. A
/// toolkit that no longer knows `sm` (CUDA 13 dropped sm_70) assembles
/// for the lowest architecture it has that is at least `sm`, which
/// accepts the same text.
pub fn assemble(ptxas: &Path, ptx: &str, sm: u32, name: &str) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("gpumc-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let input = dir.join(format!("{name}.ptx"));
    let output = dir.join(format!("{name}.cubin"));
    std::fs::write(&input, ptx).map_err(|e| e.to_string())?;
    let mut last = String::new();
    for arch in [sm, 75, 80, 90].into_iter().filter(|a| *a >= sm) {
        let out = Command::new(ptxas)
            .arg(format!("-arch=sm_{arch}"))
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if out.status.success() {
            // A warning is a defect of the generator too.
            if text.contains("warning") {
                return Err(text);
            }
            return Ok(format!("sm_{arch}"));
        }
        if !text.contains("is not defined for option") {
            return Err(text);
        }
        last = text;
    }
    Err(last)
}

/// Assembles `ptx` for exactly `-arch=sm_<sm>`; `Err` holds ptxas's output.
pub fn assemble_exact(ptxas: &Path, ptx: &str, sm: u32, name: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("gpumc-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let input = dir.join(format!("{name}-sm{sm}.ptx"));
    std::fs::write(&input, ptx).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .arg(format!("-arch=sm_{sm}"))
        .arg(&input)
        .arg("-o")
        .arg(input.with_extension("cubin"))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() && !text.contains("warning") {
        Ok(())
    } else {
        Err(text)
    }
}
