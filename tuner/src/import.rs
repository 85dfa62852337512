//! Converts other tuners' output into dataset records: CLBlast's `clblast_tuner_xgemm` JSON (Debian's
//! clblast-utils), so that selection and evaluation run on CLBlast's kernel space too.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::dataset::{Config, DeviceRecord, Record, Times};
use super::error::{Error, Result};

/// The fields of a CLBlast tuner file that the import reads.
#[derive(Debug, Deserialize)]
struct ClblastTuning {
    kernel_family: String,
    precision: String,
    arg_m: String,
    arg_n: String,
    arg_k: String,
    device: String,
    device_vendor: String,
    device_type: String,
    platform_version: String,
    /// Absent in files of older tuners.
    #[serde(default)]
    device_compute_units: Option<String>,
    results: Vec<ClblastResult>,
}

#[derive(Debug, Deserialize)]
struct ClblastResult {
    kernel: String,
    time: f64,
    parameters: BTreeMap<String, i64>,
}

/// CLBlast's tuner writes this time (FLT_MAX) for a configuration that failed.
const CLBLAST_FAILED_MS: f64 = 1e30;

/// Converts one CLBlast tuner JSON file into records. Each result becomes a record of kernel
/// `clblast-<kernel family>-<kernel>` (e.g. `clblast-xgemm_1-xgemm`) with CLBlast's parameters
/// (PRECISION dropped, it is the record's precision). CLBlast reports the best of its runs in ms,
/// so `min_ms` = `median_ms` = that time and `repeats` = 1. The arguments m, n, k are CLBlast's.
pub fn clblast_tuner(path: &Path) -> Result<Vec<Record>> {
    let parse = |reason: String| Error::Parse { path: path.into(), reason };
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })?;
    let tuning: ClblastTuning = serde_json::from_str(&text).map_err(|e| parse(e.to_string()))?;
    let dim = |name: &str, v: &str| {
        v.trim()
            .parse::<u64>()
            .ok()
            .filter(|&d| d > 0)
            .ok_or_else(|| parse(format!("{name}: `{v}` is not a positive integer")))
    };
    let (m, n, k) = (dim("arg_m", &tuning.arg_m)?, dim("arg_n", &tuning.arg_n)?, dim("arg_k", &tuning.arg_k)?);
    let precision = match tuning.precision.as_str() {
        "32" => "f32",
        "64" => "f64",
        other => {
            return Err(parse(format!("precision: `{other}` is not 32 or 64 (half and complex are not imported)")))
        }
    };
    let is_gpu = tuning.device_type.eq_ignore_ascii_case("gpu");
    let vendor = tuning.device_vendor.to_ascii_lowercase();
    let class = if tuning.device_type.eq_ignore_ascii_case("cpu") {
        "cpu"
    } else if is_gpu && vendor.contains("nvidia") {
        "nvidia-gpu"
    } else if is_gpu {
        "gpu"
    } else {
        "default"
    };
    let device = DeviceRecord {
        name: tuning.device.trim().to_string(),
        vendor: tuning.device_vendor.clone(),
        driver: tuning.platform_version.clone(),
        class: class.to_string(),
        machine: None,
        layout: None,
        compute_units: match tuning.device_compute_units.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(units) => {
                Some(units.parse().map_err(|_| parse(format!("device_compute_units: `{units}` is not a count")))?)
            }
        },
    };
    let mut records = Vec::new();
    for (i, r) in tuning.results.into_iter().enumerate() {
        let mut params = r.parameters;
        params.remove("PRECISION");
        let valid = r.time.is_finite() && r.time > 0.0 && r.time < CLBLAST_FAILED_MS;
        let record = Record {
            device: device.clone(),
            m,
            n,
            k,
            precision: precision.to_string(),
            variant: Config {
                kernel: format!("clblast-{}-{}", tuning.kernel_family, r.kernel).to_ascii_lowercase(),
                params,
            },
            times: valid.then_some(Times { min_ms: r.time, median_ms: r.time, repeats: 1 }),
            valid,
            error: (!valid).then(|| format!("CLBlast's tuner reported result {i} as failed")),
        };
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_the_h200_tuner_output() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .join("variants/data/clblast-tuner/h200_clblast_xgemm_1_32.json");
        let records = clblast_tuner(&path).unwrap();
        assert_eq!(records.len(), 578);
        let r = &records[0];
        assert_eq!((r.m, r.n, r.k), (1024, 1024, 1024));
        assert_eq!(r.device.class, "nvidia-gpu");
        assert_eq!(r.device.compute_units, Some(132));
        assert_eq!(r.variant.kernel, "clblast-xgemm_1-xgemm");
        assert!(!r.variant.params.contains_key("PRECISION"));
        assert_eq!(r.times.unwrap().median_ms, 0.248);
        let best = records.iter().filter_map(Record::median_ms).fold(f64::INFINITY, f64::min);
        assert!((best - 0.09).abs() < 0.005, "{best}");
    }

    #[test]
    fn bad_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, r#"{"kernel_family":"xgemm_1"}"#).unwrap();
        assert!(matches!(clblast_tuner(&path), Err(Error::Parse { .. })));
    }
}
