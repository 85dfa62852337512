//! The sweep dataset: kernel-agnostic JSON Lines records of (device, shape, variant) timings, the
//! loader that skips bad lines with counts, atomic saving, merging, and the dense time matrix that
//! selection, training and evaluation work on. The format is documented in `variants/README.md`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
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
    /// Lines that were not a valid record (bad JSON, missing or impossible fields), skipped: where
    /// each is (`file:line`) and why.
    pub corrupt: Vec<String>,
    /// Exact repeats of a record already read, skipped.
    pub duplicates: usize,
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        /// How many corrupt lines are named; the rest are counted.
        const NAMED: usize = 5;
        write!(
            f,
            "{} lines, {} corrupt skipped, {} duplicates skipped",
            self.lines,
            self.corrupt.len(),
            self.duplicates
        )?;
        if !self.corrupt.is_empty() {
            write!(f, "; corrupt: {}", self.corrupt[..self.corrupt.len().min(NAMED)].join("; "))?;
            if self.corrupt.len() > NAMED {
                write!(f, "; and {} more", self.corrupt.len() - NAMED)?;
            }
        }
        Ok(())
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
    /// file, as `cat a.gz b.gz` joins them). Lines that are not a valid record (a half-written last
    /// line after a crash, say) and exact duplicates are skipped and counted; two records with the
    /// same key but different results are a conflict and an error naming both places. A file that
    /// cannot be read or decompressed (a truncated or corrupt `.gz`) is an error naming it and the
    /// line it stopped at.
    pub fn load(paths: &[PathBuf]) -> Result<(Dataset, LoadReport)> {
        let mut loader = Loader::default();
        for path in paths {
            let file = File::open(path).map_err(|source| Error::Io { path: path.clone(), source })?;
            loader.read(path, file)?;
        }
        Ok((loader.set, loader.report))
    }

    /// Reads one dataset from `reader` as [`Dataset::load`] reads the file `path` (gzip where the
    /// name ends in `.gz`); `path` only names it.
    pub fn read(path: &Path, reader: impl Read) -> Result<(Dataset, LoadReport)> {
        let mut loader = Loader::default();
        loader.read(path, reader)?;
        Ok((loader.set, loader.report))
    }

    /// Writes the records as JSON Lines (gzip-compressed when the path ends in `.gz`), atomically:
    /// the file is either left as it was or holds every record ([`write_atomically`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomically(path, |out| {
            for r in &self.records {
                serde_json::to_writer(&mut *out, r)?;
                out.write_all(b"\n")?;
            }
            Ok(())
        })
    }

    /// The time matrix of one precision: every (device, shape) problem against every configuration.
    pub fn matrix(&self, precision: &str) -> Matrix {
        Matrix::from_records(precision, self.records.iter().filter(|r| r.precision == precision))
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

/// Whether a dataset's path names a gzip-compressed file.
pub(crate) fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// The first bytes of every gzip member: ID1, ID2, and CM (deflate).
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Reads a gzip dataset's bytes member by member, for a sweep that resumes on it: `Ok(None)` where
/// every member is whole; `Ok(Some(lines))` where the last one is cut short (a sweep killed while
/// appending a member, a crash while saving), `lines` being every complete line that decodes, that
/// member's included; an error saying where for damage of any other kind (a corrupt member, bytes
/// that are not gzip).
pub fn gzip_cut_short(bytes: &[u8]) -> std::result::Result<Option<Vec<u8>>, String> {
    let mut rest = bytes;
    while !rest.is_empty() {
        let mut member = flate2::bufread::GzDecoder::new(rest);
        match std::io::copy(&mut member, &mut std::io::sink()) {
            Ok(_) => rest = member.into_inner(),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && is_one_partial_member(rest) => {
                // Decoding stops at the cut with an error, after giving all it could decode.
                let mut lines = Vec::new();
                flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut lines).ok();
                lines.truncate(lines.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1));
                return Ok(Some(lines));
            }
            Err(e) => return Err(format!("damaged gzip data at byte {}: {e}", bytes.len() - rest.len())),
        }
    }
    Ok(None)
}

/// Whether the bytes that end a gzip file, cut short, can be a single member cut short: they start
/// as a member does, and no complete member starts in them (as one would after a member whose
/// damaged header reads on to the end of the file).
fn is_one_partial_member(tail: &[u8]) -> bool {
    let member_at = |i: usize| {
        tail[i..].starts_with(&GZIP_MAGIC)
            && std::io::copy(&mut flate2::bufread::GzDecoder::new(&tail[i..]), &mut std::io::sink()).is_ok()
    };
    GZIP_MAGIC.starts_with(&tail[..tail.len().min(GZIP_MAGIC.len())]) && !(1..tail.len()).any(member_at)
}

/// Loads datasets one after another into one set with unique keys.
#[derive(Default)]
struct Loader {
    set: Dataset,
    report: LoadReport,
    /// Each key read, with the index of its record and where it was read (`file:line`).
    seen: HashMap<RecordKey, (usize, String)>,
}

impl Loader {
    /// Reads the lines of one file. A line that is not a valid record is skipped and named; a read
    /// or decompression error ends the file at once with an error naming it and the line.
    fn read(&mut self, path: &Path, reader: impl Read) -> Result<()> {
        let read_error = |line, source| Error::Read { path: path.into(), line, source };
        let mut reader: Box<dyn BufRead> = Box::new(BufReader::new(reader));
        if is_gzip(path) {
            // A file of no bytes holds no records (a sweep stopped before its first leaves one),
            // although it is not a gzip stream.
            if reader.fill_buf().map_err(|e| read_error(1, e))?.is_empty() {
                return Ok(());
            }
            reader = Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(reader)));
        }
        let mut line = Vec::new();
        for number in 1.. {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(source) => return Err(read_error(number, source)),
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.report.lines += 1;
            let place = format!("{}:{number}", path.display());
            let parsed = serde_json::from_slice::<Record>(&line).map_err(|e| e.to_string());
            match parsed.and_then(|r| r.check().map(|_| r)) {
                Ok(record) => self.add(record, place)?,
                Err(why) => self.report.corrupt.push(format!("{place} ({why})")),
            }
        }
        Ok(())
    }

    /// Adds a record read at `place`: an exact repeat is counted, a conflicting one refused.
    fn add(&mut self, mut record: Record, place: String) -> Result<()> {
        record.variant.fill_neutral_defaults();
        match self.seen.get(&record.key()) {
            Some((index, _)) if self.set.records[*index] == record => self.report.duplicates += 1,
            Some((_, first)) => {
                return Err(Error::Conflict { first: first.clone(), second: place, key: describe(&record) })
            }
            None => {
                self.seen.insert(record.key(), (self.set.records.len(), place));
                self.set.records.push(record);
            }
        }
        Ok(())
    }
}

/// Writes a file whole or not at all: `write` fills a temporary file in the same directory
/// (through a gzip encoder when the path ends in `.gz`), which is synced and then renamed over
/// `path`. A crash or error on the way leaves `path` as it was.
pub(crate) fn write_atomically(path: &Path, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let name = path.file_name().map_or_else(|| "dataset".into(), |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // Read and write for everyone the umask allows, as `File::create` makes files (not 0600).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder.tempfile_in(dir).map_err(io)?;
    let mut buffered = std::io::BufWriter::new(temp.as_file_mut());
    if is_gzip(path) {
        let mut gz = flate2::write::GzEncoder::new(&mut buffered, flate2::Compression::best());
        write(&mut gz).and_then(|_| gz.finish()).map_err(io)?;
    } else {
        write(&mut buffered).map_err(io)?;
    }
    buffered.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)?;
    temp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
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
    /// The precision of its records (`f32`, `f16`, ...): that of the trees trained on it.
    pub precision: String,
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
    /// Builds the matrix from records of one precision, `precision`.
    pub fn from_records<'a>(precision: &str, records: impl Iterator<Item = &'a Record> + Clone) -> Matrix {
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
        Matrix { precision: precision.to_string(), devices, problems, configs, time, recorded }
    }

    /// The matrix restricted to some configurations (column indices), same problems.
    pub fn columns(&self, keep: &[usize]) -> Matrix {
        Matrix {
            precision: self.precision.clone(),
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
        assert_eq!((report.lines, report.corrupt.len(), report.duplicates), (5, 2, 1));
        // Each corrupt line is named, file:line and why.
        let name = f.path().display().to_string();
        assert!(report.corrupt[0].starts_with(&format!("{name}:2 (")), "{:?}", report.corrupt);
        assert!(report.corrupt[1].starts_with(&format!("{name}:5 (missing field")), "{:?}", report.corrupt);
        let shown = report.to_string();
        assert!(shown.starts_with("5 lines, 2 corrupt skipped, 1 duplicates skipped; corrupt: "), "{shown}");
        assert!(shown.contains(&format!("{name}:2")) && shown.contains(&format!("{name}:5")), "{shown}");
    }

    #[test]
    fn a_line_that_is_not_utf8_is_a_corrupt_line_not_a_read_error() {
        let a = serde_json::to_string(&record(4, 1, 2.0)).unwrap();
        let text = [b"\xff\xfe{\n".as_slice(), a.as_bytes(), b"\n"].concat();
        let (set, report) = Dataset::read(Path::new("x.jsonl"), &text[..]).unwrap();
        assert_eq!((set.records.len(), report.corrupt.len()), (1, 1));
        assert!(report.corrupt[0].starts_with("x.jsonl:1 "), "{:?}", report.corrupt);
    }

    /// Two records in two gzip members, and the byte offset where the second member starts.
    fn two_members() -> (Vec<u8>, usize) {
        let member = |r: &Record| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all((serde_json::to_string(r).unwrap() + "\n").as_bytes()).unwrap();
            gz.finish().unwrap()
        };
        let first = member(&record(4, 1, 2.0));
        (([first.clone(), member(&record(5, 1, 2.5))]).concat(), first.len())
    }

    #[test]
    fn a_truncated_gzip_is_an_error_naming_file_and_line_at_once() {
        let (bytes, boundary) = two_members();
        let path = Path::new("d.jsonl.gz");
        for cut in 0..bytes.len() {
            let start = std::time::Instant::now();
            match Dataset::read(path, &bytes[..cut]) {
                Ok((set, _)) => assert!(cut == 0 || cut == boundary, "cut at {cut}: {} records", set.records.len()),
                // A member's line decodes before the check of its trailer fails: the error then
                // comes at the next line.
                Err(Error::Read { path: p, line, .. }) => {
                    assert_eq!(p, path);
                    let first = if cut < boundary { 1 } else { 2 };
                    assert!(line == first || line == first + 1, "cut at {cut}: line {line}");
                }
                Err(e) => panic!("cut at {cut}: {e}"),
            }
            assert!(start.elapsed() < std::time::Duration::from_secs(1), "cut at {cut} took {:?}", start.elapsed());
        }
        let e = Dataset::read(path, &bytes[..boundary + 12]).unwrap_err().to_string();
        assert!(e.starts_with("d.jsonl.gz:2: cannot read"), "{e}");
        // Corrupt, not truncated: an error too.
        let mut flipped = bytes.clone();
        flipped[boundary / 2] ^= 0x55;
        assert!(matches!(Dataset::read(path, &flipped[..]), Err(Error::Read { .. })));
    }

    #[test]
    fn an_empty_gzip_file_holds_no_records() {
        let (set, report) = Dataset::read(Path::new("d.jsonl.gz"), &[][..]).unwrap();
        assert!(set.records.is_empty() && report == LoadReport::default());
    }

    #[test]
    fn save_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl");
        std::fs::write(&path, "old\n").unwrap();
        let set = Dataset { records: vec![record(4, 1, 2.0), record(5, 1, 2.5)] };
        set.save(&path).unwrap();
        assert_eq!(Dataset::load(std::slice::from_ref(&path)).unwrap().0.records, set.records);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["d.jsonl"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let created = dir.path().join("created");
            File::create(&created).unwrap();
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
            assert_eq!(mode(&path), mode(&created), "a saved dataset is not private to its owner");
        }
        // Into a directory that does not exist yet.
        let nested = dir.path().join("a/b/d.jsonl.gz");
        set.save(&nested).unwrap();
        assert_eq!(Dataset::load(&[nested]).unwrap().0.records, set.records);
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
        let m = Matrix::from_records("f32", recs.iter());
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
        assert_eq!((set.records.len(), report.corrupt.len()), (2, 1));
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
        assert!(report.corrupt.is_empty());
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
