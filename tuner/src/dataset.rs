//! The sweep dataset: kernel-agnostic JSON Lines records of (device, shape, variant) timings, the
//! loader that skips bad lines with counts, merging, and the dense time matrix that selection,
//! training and evaluation work on. The format is documented in `variants/README.md`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{Error, Result};
use fewfit_codegen::{trains, Family, Variant};

/// The device a record was measured on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DeviceRecord {
    /// `CL_DEVICE_NAME`.
    pub name: String,
    /// `CL_DEVICE_VENDOR`.
    pub vendor: String,
    /// `CL_DRIVER_VERSION`.
    pub driver: String,
    /// The device class (`cpu`, `nvidia-gpu`, ...), as the runtime maps it.
    pub class: String,
    /// A label that tells apart machines whose devices report the same name, vendor and driver
    /// (two VMs of one CPU model, say): `sweep --machine`, `merge --machine`. Absent by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// The layout of the timed calls where it is not row-major NN: `"NT"` (B stored N x K, as
    /// PyTorch's `Linear` holds its weights; `sweep --transpose-b`), or `"TN"`, `"TT"`. Records of
    /// another layout measure other work, so they are kept apart like another device's, and
    /// trees see the layout as a feature ([`DeviceRecord::operands_along_k`]). Absent: NN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    /// `CL_DEVICE_MAX_COMPUTE_UNITS`, which trees see as the feature `compute_units`. Absent in
    /// records of tools that do not report it; the feature then reads 0 (unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_units: Option<u32>,
}

impl DeviceRecord {
    /// The name as reports show it: with the machine label and the layout, where there are
    /// ones, in brackets.
    pub fn label(&self) -> String {
        let mut label = self.name.clone();
        for tag in [&self.machine, &self.layout].into_iter().flatten() {
            label += &format!(" [{tag}]");
        }
        label
    }

    /// How many operands the timed calls stored contiguous along K (the tree feature
    /// `operands_along_k`): row-major NN 1, NT 2, TN 0, TT 1; `None` for an unknown layout.
    pub fn operands_along_k(&self) -> Option<u64> {
        match self.layout.as_deref() {
            None | Some("NN") | Some("TT") => Some(1),
            Some("NT") => Some(2),
            Some("TN") => Some(0),
            Some(_) => None,
        }
    }
}

/// A problem shape: the row-major, non-transposed GEMM C (m×n) = A (m×k) · B (k×n) that ML code calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shape {
    /// Rows of C.
    pub m: u64,
    /// Columns of C.
    pub n: u64,
    /// Depth.
    pub k: u64,
}

impl Shape {
    /// Floating-point operations of one GEMM of this shape (2·m·n·k).
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// The features a selector tree sees for this shape called in row-major NN (the kernel's
    /// column-major view: m and n swap).
    pub fn kernel_features(&self) -> fewfit_codegen::ShapeFeatures {
        fewfit_codegen::ShapeFeatures::new(self.n, self.m, self.k)
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

/// A kernel configuration: a kernel family name and its parameters. Kernel-agnostic, so records
/// imported from other tuners (CLBlast's) fit too.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Config {
    /// The kernel family: `xgemm`, `direct`, or an imported one such as `clblast-xgemm`.
    pub kernel: String,
    /// Parameter values by name.
    pub params: BTreeMap<String, i64>,
}

impl Config {
    /// The configuration of one of fewfit's variants.
    pub fn of(variant: &Variant) -> Config {
        Config {
            kernel: variant.family.name().to_string(),
            params: variant.params.iter().map(|(k, v)| (k.clone(), i64::from(*v))).collect(),
        }
    }

    /// Adds the parameters a record of one of fewfit's families omits, at their neutral value
    /// (records measured before those parameters existed describe exactly that kernel).
    pub fn fill_neutral_defaults(&mut self) {
        if let Some(family) = Family::ALL.into_iter().find(|f| f.name() == self.kernel) {
            for &(name, value) in family.neutral_defaults() {
                self.params.entry(name.to_string()).or_insert(i64::from(value));
            }
        }
    }

    /// The fewfit variant this configuration describes, if it is one (known family, valid parameters;
    /// parameters the record omits take their neutral value, so older datasets stay usable).
    pub fn variant(&self) -> Option<Variant> {
        let family = Family::ALL.into_iter().find(|f| f.name() == self.kernel)?;
        let mut params = BTreeMap::new();
        for (k, v) in &self.params {
            params.insert(k.clone(), u32::try_from(*v).ok()?);
        }
        let v = Variant { family, params }.with_neutral_defaults();
        v.validate().ok().map(|_| v)
    }

    /// A stable, readable id: fewfit's variant id for its own kernels, else `kernel_name1value1_...`.
    pub fn id(&self) -> String {
        if let Some(v) = self.variant() {
            return v.id();
        }
        let mut id = self.kernel.clone();
        for (k, v) in &self.params {
            id.push_str(&format!("_{}{v}", k.to_lowercase()));
        }
        id
    }
}

/// The measured times of one (device, shape, variant), in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Times {
    /// The fastest repeat.
    pub min_ms: f64,
    /// The median repeat.
    pub median_ms: f64,
    /// How many timed repeats (after warm-up).
    pub repeats: u32,
}

/// One line of a dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Where it was measured.
    pub device: DeviceRecord,
    /// Rows of C (row-major NN call).
    pub m: u64,
    /// Columns of C.
    pub n: u64,
    /// Depth.
    pub k: u64,
    /// `f32` or `f64`.
    pub precision: String,
    /// The kernel and its parameters.
    pub variant: Config,
    /// The times; absent when the variant is invalid there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Times>,
    /// False when the variant failed to build, failed the reference check, or failed to run.
    pub valid: bool,
    /// Why it is invalid, if it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Record {
    /// The shape.
    pub fn shape(&self) -> Shape {
        Shape { m: self.m, n: self.n, k: self.k }
    }

    /// What identifies a measurement: two records with the same key measure the same thing.
    pub fn key(&self) -> RecordKey {
        RecordKey {
            device: self.device.clone(),
            shape: self.shape(),
            precision: self.precision.clone(),
            variant: self.variant.clone(),
        }
    }

    /// The median time if the record is valid and timed.
    pub fn median_ms(&self) -> Option<f64> {
        self.times.filter(|_| self.valid).map(|t| t.median_ms).filter(|t| t.is_finite() && *t > 0.0)
    }

    fn check(&self) -> std::result::Result<(), String> {
        if self.m == 0 || self.n == 0 || self.k == 0 {
            return Err("m, n and k must be positive".into());
        }
        if self.device.operands_along_k().is_none() {
            return Err("the layout must be NN, NT, TN or TT".into());
        }
        if self.valid {
            match self.times {
                None => return Err("a valid record needs times".into()),
                Some(t) if !(t.median_ms.is_finite() && t.median_ms > 0.0 && t.min_ms > 0.0) => {
                    return Err("times must be positive and finite".into())
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// The identity of a measurement.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordKey {
    /// Device.
    pub device: DeviceRecord,
    /// Shape.
    pub shape: Shape,
    /// Precision.
    pub precision: String,
    /// Variant.
    pub variant: Config,
}

/// What loading skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Lines read (blank lines excluded).
    pub lines: usize,
    /// Lines that were not a valid record (bad JSON, missing or impossible fields), skipped.
    pub corrupt: usize,
    /// Exact repeats of a record already read, skipped.
    pub duplicates: usize,
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} lines, {} corrupt skipped, {} duplicates skipped", self.lines, self.corrupt, self.duplicates)
    }
}

/// A set of records with unique keys.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// The records, in the order read.
    pub records: Vec<Record>,
}

impl Dataset {
    /// Reads JSON Lines files, gzip-compressed where the name ends in `.gz` (every member of the
    /// file, as `cat a.gz b.gz` joins them). Corrupt lines (a half-written last line after a crash,
    /// say) and exact duplicates are skipped and counted; two records with the same key but different results
    /// are a conflict and an error naming both places.
    pub fn load(paths: &[PathBuf]) -> Result<(Dataset, LoadReport)> {
        let mut report = LoadReport::default();
        let mut set = Dataset::default();
        let mut seen: HashMap<RecordKey, (usize, String)> = HashMap::new();
        for path in paths {
            let file = File::open(path).map_err(|source| Error::Io { path: path.clone(), source })?;
            let reader: Box<dyn BufRead> = if path.extension().is_some_and(|e| e == "gz") {
                Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
            } else {
                Box::new(BufReader::new(file))
            };
            for (i, line) in reader.lines().enumerate() {
                let Ok(line) = line else {
                    report.corrupt += 1;
                    continue;
                };
                if line.trim().is_empty() {
                    continue;
                }
                report.lines += 1;
                let mut record: Record = match serde_json::from_str(&line) {
                    Ok(r) => r,
                    Err(_) => {
                        report.corrupt += 1;
                        continue;
                    }
                };
                if record.check().is_err() {
                    report.corrupt += 1;
                    continue;
                }
                record.variant.fill_neutral_defaults();
                let place = format!("{}:{}", path.display(), i + 1);
                match seen.get(&record.key()) {
                    Some((index, first)) => {
                        if set.records[*index] == record {
                            report.duplicates += 1;
                        } else {
                            return Err(Error::Conflict {
                                first: first.clone(),
                                second: place,
                                key: describe(&record),
                            });
                        }
                    }
                    None => {
                        seen.insert(record.key(), (set.records.len(), place));
                        set.records.push(record);
                    }
                }
            }
        }
        Ok((set, report))
    }

    /// Writes the records as JSON Lines (gzip-compressed when the path ends in `.gz`).
    pub fn save(&self, path: &Path) -> Result<()> {
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = File::create(path).map_err(io)?;
        let mut out: Box<dyn Write> = if path.extension().is_some_and(|e| e == "gz") {
            Box::new(flate2::write::GzEncoder::new(file, flate2::Compression::best()))
        } else {
            Box::new(std::io::BufWriter::new(file))
        };
        for r in &self.records {
            serde_json::to_writer(&mut out, r).map_err(|e| io(e.into()))?;
            out.write_all(b"\n").map_err(io)?;
        }
        out.flush().map_err(io)
    }

    /// The time matrix of one precision: every (device, shape) problem against every configuration.
    pub fn matrix(&self, precision: &str) -> Matrix {
        Matrix::from_records(self.records.iter().filter(|r| r.precision == precision))
    }

    /// Gives the records without a machine label this one ([`DeviceRecord::machine`]). Refused,
    /// changing nothing, where a relabelled record would then measure what a labelled one does.
    pub fn label_machine(&mut self, machine: &str) -> Result<()> {
        let mut labelled = self.records.clone();
        for r in &mut labelled {
            r.device.machine.get_or_insert_with(|| machine.to_string());
        }
        let mut seen = HashSet::new();
        if let Some(twice) = labelled.iter().find(|r| !seen.insert(r.key())) {
            return Err(Error::Invalid(format!(
                "labelling with machine {machine:?} makes two records of {} (one had that label already)",
                describe(twice)
            )));
        }
        self.records = labelled;
        Ok(())
    }
}

fn describe(r: &Record) -> String {
    format!("{} {} {} {}", r.device.label(), r.shape(), r.precision, r.variant.id())
}

/// One (device, shape) pair: a row of the matrix.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Problem {
    /// Index into [`Matrix::devices`].
    pub device: usize,
    /// The shape.
    pub shape: Shape,
}

/// Median times as a dense matrix: `time[p][v]` for problem p and configuration v, in ms;
/// `f64::INFINITY` where the configuration is invalid or was not measured there (`recorded` tells
/// the two apart).
#[derive(Clone, Debug, Default)]
pub struct Matrix {
    /// Devices, sorted.
    pub devices: Vec<DeviceRecord>,
    /// Problems, sorted by device then shape.
    pub problems: Vec<Problem>,
    /// Configurations, sorted.
    pub configs: Vec<Config>,
    /// Times, problems × configurations.
    pub time: Vec<Vec<f64>>,
    /// Whether a record (valid or not) exists, problems × configurations: where none does, the
    /// configuration was not measured there, its time unknown rather than a failure.
    pub recorded: Vec<Vec<bool>>,
}

impl Matrix {
    /// Builds the matrix from records (one precision).
    pub fn from_records<'a>(records: impl Iterator<Item = &'a Record> + Clone) -> Matrix {
        let mut devices: Vec<DeviceRecord> = records.clone().map(|r| r.device.clone()).collect();
        devices.sort();
        devices.dedup();
        let mut configs: Vec<Config> = records.clone().map(|r| r.variant.clone()).collect();
        configs.sort();
        configs.dedup();
        let device_index = |d: &DeviceRecord| devices.binary_search(d).expect("device listed");
        let mut problems: Vec<Problem> =
            records.clone().map(|r| Problem { device: device_index(&r.device), shape: r.shape() }).collect();
        problems.sort();
        problems.dedup();
        let mut time = vec![vec![f64::INFINITY; configs.len()]; problems.len()];
        let mut recorded = vec![vec![false; configs.len()]; problems.len()];
        for r in records {
            let p = problems
                .binary_search(&Problem { device: device_index(&r.device), shape: r.shape() })
                .expect("problem listed");
            let v = configs.binary_search(&r.variant).expect("config listed");
            recorded[p][v] = true;
            if let Some(t) = r.median_ms() {
                time[p][v] = t;
            }
        }
        Matrix { devices, problems, configs, time, recorded }
    }

    /// The matrix restricted to some configurations (column indices), same problems.
    pub fn columns(&self, keep: &[usize]) -> Matrix {
        Matrix {
            devices: self.devices.clone(),
            problems: self.problems.clone(),
            configs: keep.iter().map(|&c| self.configs[c].clone()).collect(),
            time: self.time.iter().map(|row| keep.iter().map(|&c| row[c]).collect()).collect(),
            recorded: self.recorded.iter().map(|row| keep.iter().map(|&c| row[c]).collect()).collect(),
        }
    }

    /// The fastest time of each problem over all configurations (the oracle); infinite where none ran.
    pub fn oracle(&self) -> Vec<f64> {
        (0..self.problems.len()).map(|row| self.row_oracle(row)).collect()
    }

    /// The oracle of one problem row; infinite where none ran or the row does not exist.
    pub fn row_oracle(&self, row: usize) -> f64 {
        self.time.get(row).map_or(f64::INFINITY, |r| r.iter().copied().fold(f64::INFINITY, f64::min))
    }

    /// The features a selector tree sees for a problem row: its shape in its device's layout, on
    /// its device's compute units.
    pub fn kernel_features(&self, row: usize) -> fewfit_codegen::ShapeFeatures {
        let problem = &self.problems[row];
        let device = &self.devices[problem.device];
        let along_k = device.operands_along_k().unwrap_or(1); // checked on load
        let compute_units = device.compute_units.map_or(0, u64::from);
        problem.shape.kernel_features().with_operands_along_k(along_k).with_compute_units(compute_units)
    }

    /// The rows of problems on devices whose data trains the tree of `tree_class`
    /// ([`fewfit_codegen::trains`]).
    pub fn problems_training(&self, tree_class: &str) -> Vec<usize> {
        (0..self.problems.len()).filter(|&p| trains(tree_class, &self.devices[self.problems[p].device].class)).collect()
    }

    /// Drops problems where no configuration ran, and configurations that ran nowhere.
    pub fn prune(mut self) -> Matrix {
        let keep_p: Vec<usize> =
            (0..self.problems.len()).filter(|&p| self.time[p].iter().any(|t| t.is_finite())).collect();
        let keep_v: Vec<usize> =
            (0..self.configs.len()).filter(|&v| keep_p.iter().any(|&p| self.time[p][v].is_finite())).collect();
        self.problems = keep_p.iter().map(|&p| self.problems[p].clone()).collect();
        self.time = keep_p.iter().map(|&p| keep_v.iter().map(|&v| self.time[p][v]).collect()).collect();
        self.recorded = keep_p.iter().map(|&p| keep_v.iter().map(|&v| self.recorded[p][v]).collect()).collect();
        self.configs = keep_v.iter().map(|&v| self.configs[v].clone()).collect();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(m: u64, variant: i64, median: f64) -> Record {
        Record {
            device: DeviceRecord {
                name: "d".into(),
                vendor: "v".into(),
                driver: "1".into(),
                class: "cpu".into(),
                machine: None,
                layout: None,
                compute_units: None,
            },
            m,
            n: 8,
            k: 8,
            precision: "f32".into(),
            variant: Config { kernel: "toy".into(), params: [("A".to_string(), variant)].into() },
            times: Some(Times { min_ms: median * 0.9, median_ms: median, repeats: 5 }),
            valid: true,
            error: None,
        }
    }

    fn write(lines: &[String]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
        f
    }

    #[test]
    fn load_skips_corrupt_and_duplicate_lines_with_counts() {
        let a = serde_json::to_string(&record(4, 1, 2.0)).unwrap();
        let b = serde_json::to_string(&record(4, 2, 1.0)).unwrap();
        let f = write(&[a.clone(), "{\"device\": 3".into(), b, a, "{}".into()]);
        let (set, report) = Dataset::load(&[f.path().to_path_buf()]).unwrap();
        assert_eq!(set.records.len(), 2);
        assert_eq!(report, LoadReport { lines: 5, corrupt: 2, duplicates: 1 });
    }

    #[test]
    fn conflicting_duplicates_are_refused() {
        let a = serde_json::to_string(&record(4, 1, 2.0)).unwrap();
        let b = serde_json::to_string(&record(4, 1, 3.0)).unwrap();
        let f = write(&[a, b]);
        match Dataset::load(&[f.path().to_path_buf()]) {
            Err(Error::Conflict { first, second, .. }) => {
                assert!(first.ends_with(":1") && second.ends_with(":2"), "{first} {second}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn matrix_and_oracle() {
        let recs = [record(4, 1, 2.0), record(4, 2, 1.0), record(16, 1, 3.0)];
        let m = Matrix::from_records(recs.iter());
        assert_eq!(m.problems.len(), 2);
        assert_eq!(m.configs.len(), 2);
        assert_eq!(m.oracle(), vec![1.0, 3.0]);
        assert_eq!(m.time[1][1], f64::INFINITY);
        assert_eq!(m.recorded, vec![vec![true, true], vec![true, false]]);
    }

    #[test]
    fn machine_labels_keep_same_named_devices_apart() {
        let a = record(4, 1, 2.0);
        let mut b = record(4, 1, 3.0);
        b.device.machine = Some("vm2".into());
        let line = serde_json::to_string(&a).unwrap();
        assert!(!line.contains("machine"), "an unlabelled record is written as before: {line}");
        let f = write(&[line, serde_json::to_string(&b).unwrap()]);
        let (set, report) = Dataset::load(&[f.path().to_path_buf()]).unwrap();
        assert_eq!((set.records.len(), report.duplicates), (2, 0));
        assert_eq!(set.records[1].device.machine.as_deref(), Some("vm2"));
        let m = set.matrix("f32");
        assert_eq!(m.devices.iter().map(DeviceRecord::label).collect::<Vec<_>>(), ["d", "d [vm2]"]);
        assert_eq!(m.problems.len(), 2);
    }

    #[test]
    fn layouts_are_features_and_unknown_ones_are_skipped() {
        let mut nt = record(4, 1, 3.0);
        nt.device.layout = Some("NT".into());
        let mut bad = record(4, 1, 3.0);
        bad.device.layout = Some("XY".into());
        let lines = [&record(4, 1, 2.0), &nt, &bad].map(|r| serde_json::to_string(r).unwrap());
        let (set, report) = Dataset::load(&[write(&lines).path().to_path_buf()]).unwrap();
        assert_eq!((set.records.len(), report.corrupt), (2, 1));
        let m = set.matrix("f32");
        let along_k: Vec<u64> = (0..m.problems.len()).map(|r| m.kernel_features(r).operands_along_k).collect();
        assert_eq!(along_k, [1, 2]);
        assert_eq!(m.kernel_features(1).n, 4, "the kernel's view: row-major m is its n");
    }

    #[test]
    fn label_machine_labels_the_unlabelled_and_refuses_collisions() {
        let mut labelled = record(4, 1, 3.0);
        labelled.device.machine = Some("vm1".into());
        let mut set = Dataset { records: vec![record(4, 1, 2.0), labelled.clone()] };
        set.label_machine("vm2").unwrap();
        let machines: Vec<_> = set.records.iter().map(|r| r.device.machine.as_deref()).collect();
        assert_eq!(machines, [Some("vm2"), Some("vm1")]);
        let mut clash = Dataset { records: vec![record(4, 1, 2.0), labelled] };
        let before = clash.clone();
        assert!(matches!(clash.label_machine("vm1"), Err(Error::Invalid(_))));
        assert_eq!(clash.records, before.records, "a refused labelling changes nothing");
    }

    #[test]
    fn gz_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl.gz");
        let set = Dataset { records: vec![record(4, 1, 2.0), record(5, 1, 2.5)] };
        set.save(&path).unwrap();
        let (back, report) = Dataset::load(&[path]).unwrap();
        assert_eq!(back.records, set.records);
        assert_eq!(report.corrupt, 0);
    }

    #[test]
    fn gz_files_joined_by_cat_load_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("a.jsonl.gz"), dir.path().join("b.jsonl.gz"));
        Dataset { records: vec![record(4, 1, 2.0)] }.save(&first).unwrap();
        Dataset { records: vec![record(5, 1, 2.5)] }.save(&second).unwrap();
        let joined = dir.path().join("ab.jsonl.gz");
        let bytes = [std::fs::read(&first).unwrap(), std::fs::read(&second).unwrap()].concat();
        std::fs::write(&joined, bytes).unwrap();
        let (back, _) = Dataset::load(&[joined]).unwrap();
        assert_eq!(back.records, vec![record(4, 1, 2.0), record(5, 1, 2.5)]);
    }
}
