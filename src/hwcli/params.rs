//! The parameters of a run: a preset (or the tuned set saved for the
//! device, or a JSON file), then `--set key=value` overrides.

use super::HwOpts;
use gpumc_hw::backend::DeviceInfo;
use gpumc_hw::params::{Params, Preset};
use std::path::PathBuf;

/// Where `gpumc tune --save` keeps the best parameters per device:
/// `$GPUMC_TUNED_DIR`, else `$XDG_CONFIG_HOME/gpumc/tuned`, else
/// `~/.config/gpumc/tuned`.
pub fn tuned_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("GPUMC_TUNED_DIR") {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("gpumc").join("tuned")
}

/// The file of a device's tuned parameters.
pub fn tuned_file(device: &DeviceInfo) -> PathBuf {
    let slug: String = format!("{}-{}", device.backend, device.name)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    tuned_dir().join(format!("{slug}.json"))
}

fn read(path: &std::path::Path) -> Result<Params, String> {
    let text = gpumc::diag::read_text(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not a parameter set: {e}", path.display()))
}

/// The parameters and a name for where they came from.
pub fn resolve(hw: &HwOpts, device: &DeviceInfo) -> Result<(Params, String), String> {
    let (mut params, name) = if let Some(f) = &hw.params {
        (read(f)?, f.display().to_string())
    } else if hw.preset == "tuned" {
        let f = tuned_file(device);
        if !f.exists() {
            return Err(format!(
                "no tuned parameters for {} ({} does not exist; run `gpumc tune` first)",
                device.name,
                f.display()
            ));
        }
        (read(&f)?, format!("tuned ({})", f.display()))
    } else {
        let p = Preset::parse(&hw.preset).ok_or_else(|| {
            format!(
                "unknown preset `{}` (expected parallel, sorensen, plain or tuned)",
                hw.preset
            )
        })?;
        (p.for_device(device), p.name().to_string())
    };
    if !hw.set.is_empty() {
        let mut v = serde_json::to_value(&params).map_err(|e| e.to_string())?;
        for kv in &hw.set {
            let (k, val) = kv
                .split_once('=')
                .ok_or_else(|| format!("bad --set `{kv}` (expected KEY=VALUE)"))?;
            let k = k.trim().replace('-', "_");
            if v.get(&k).is_none() {
                return Err(format!(
                    "unknown parameter `{k}` in --set (see docs/HARDWARE.md)"
                ));
            }
            let parsed: serde_json::Value = serde_json::from_str(val.trim())
                .map_err(|_| format!("bad value `{val}` for `{k}` in --set"))?;
            v[&k] = parsed;
        }
        params = serde_json::from_value(v).map_err(|e| format!("bad --set: {e}"))?;
    }
    params.fit(device);
    Ok((params, name))
}
