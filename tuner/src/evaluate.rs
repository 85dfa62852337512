//! Evaluating a shipped selection (its configurations and one tree per device class) on any
//! matrix, e.g. measurements of unseen shapes or devices: per-problem slowdown of the tree's pick
//! against the oracle, summaries per device, and the cumulative-distribution plot of slowdowns
//! (Figs. 6 and 7 of *A few fit most*).

use std::path::Path;

use plotters::prelude::*;

use super::dataset::{Matrix, Shape};
use super::error::{Error, Result};
use super::select::Stats;
use fewfit_codegen::Tree;

/// What ships: the selected variant ids and a selector tree per device class (a tree of class
/// `default` serves classes without their own).
#[derive(Clone, Debug, PartialEq)]
pub struct Shipped {
    /// The selected configurations' ids ([`super::dataset::Config::id`]).
    pub configs: Vec<String>,
    /// The trees.
    pub trees: Vec<Tree>,
}

impl Shipped {
    /// The tree serving a device class: its own, else `default`.
    pub fn tree_for(&self, class: &str) -> Option<&Tree> {
        self.trees.iter().find(|t| t.class == class).or_else(|| self.trees.iter().find(|t| t.class == "default"))
    }
}

/// The outcome on one problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The problem's row in the matrix.
    pub row: usize,
    /// The variant id the tree picked.
    pub pick: String,
    /// Whether the data holds a time of the pick on this problem: false where the pick was never
    /// timed there (data older than the set), which is not a failure.
    pub measured: bool,
    /// Pick time over oracle time; `None` when the pick failed (invalid there) or was not measured.
    pub slowdown: Option<f64>,
    /// Whether the data holds a time of some shipped configuration on this problem.
    pub set_measured: bool,
    /// Best-in-set time over oracle time; `None` when no shipped configuration ran there.
    pub best_in_set: Option<f64>,
}

/// The summary of one device.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceSummary {
    /// The device's index in [`Matrix::devices`].
    pub device: usize,
    /// Its problems (with a finite oracle).
    pub problems: usize,
    /// Problems where the pick failed.
    pub failed: usize,
    /// Problems where the data holds no time of the pick.
    pub unmeasured: usize,
    /// Geometric-mean slowdown of the picks that ran (1 when none did).
    pub geomean: f64,
    /// Geometric-mean slowdown of the best shipped configuration (the tree's ceiling).
    pub best_in_set_geomean: f64,
    /// The worst shape of the picks that ran, and its slowdown.
    pub worst: Option<(Shape, f64)>,
}

/// An evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// One outcome per problem with a finite oracle, in row order.
    pub outcomes: Vec<Outcome>,
    /// One summary per device that has problems, in device order.
    pub devices: Vec<DeviceSummary>,
    /// The tree's picks over the problems where the data holds their time.
    pub tree: Stats,
    /// Problems where the data holds no time of the tree's pick.
    pub unmeasured: usize,
    /// The best shipped configuration over the problems where the data holds a time of one.
    pub best_in_set: Stats,
    /// Problems where the data holds no time of any shipped configuration.
    pub set_unmeasured: usize,
}

impl Evaluation {
    /// The tree's slowdown per problem, INFINITY for failed or unmeasured picks (for [`plot_cdf`]).
    pub fn slowdowns(&self) -> Vec<f64> {
        self.outcomes.iter().map(|o| o.slowdown.unwrap_or(f64::INFINITY)).collect()
    }

    /// The best-in-set slowdown per problem, INFINITY where nothing shipped ran.
    pub fn best_in_set_slowdowns(&self) -> Vec<f64> {
        self.outcomes.iter().map(|o| o.best_in_set.unwrap_or(f64::INFINITY)).collect()
    }

    /// One line per problem: device, shape (as swept), the tree's pick, its slowdown and the best
    /// in set's ("failed" where it did not run there, "not measured" where the data holds no time
    /// of it).
    pub fn per_shape(&self, matrix: &Matrix) -> String {
        let mut out = String::from("device\tshape\ttree pick\tslowdown\tbest in set\n");
        let show = |x: Option<f64>| x.map_or("failed".to_string(), |x| format!("{x:.3}"));
        for o in &self.outcomes {
            let problem = &matrix.problems[o.row];
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\n",
                matrix.devices[problem.device].label(),
                problem.shape,
                o.pick,
                if o.measured { show(o.slowdown) } else { "not measured".to_string() },
                if o.set_measured { show(o.best_in_set) } else { "not measured".to_string() },
            ));
        }
        out
    }

    /// A plain-text summary: the totals, then one line per device.
    pub fn describe(&self, matrix: &Matrix) -> String {
        let count = |n: usize, what: &str| if n > 0 { format!(", {n} {what}") } else { String::new() };
        let mut out = format!(
            "tree: {}{}\nbest in set: {}{}\noracle: geomean 1.000\n",
            self.tree.describe(matrix),
            count(self.unmeasured, "picks not measured"),
            self.best_in_set.describe(matrix),
            count(self.set_unmeasured, "problems with no variant of the set measured")
        );
        for d in &self.devices {
            let device = &matrix.devices[d.device];
            out.push_str(&format!(
                "{} [{}]: {} problems, geomean {:.3} (best in set {:.3})",
                device.label(),
                device.class,
                d.problems,
                d.geomean,
                d.best_in_set_geomean
            ));
            if let Some((shape, w)) = d.worst {
                out.push_str(&format!(", worst {w:.3} at {shape}"));
            }
            out.push_str(&count(d.failed, "failed"));
            out.push_str(&count(d.unmeasured, "picks not measured"));
            out.push('\n');
        }
        out
    }
}

/// Evaluates a shipped selection on some rows of a matrix (all for `None`). Problems without a
/// finite oracle are skipped; a device class with no tree (and no `default` tree) is an error.
pub fn evaluate(matrix: &Matrix, rows: Option<&[usize]>, shipped: &Shipped) -> Result<Evaluation> {
    let rows: Vec<usize> = rows.map_or_else(|| (0..matrix.problems.len()).collect(), <[usize]>::to_vec);
    if let Some(&bad) =
        rows.iter().find(|&&r| r >= matrix.problems.len() || matrix.time[r].len() != matrix.configs.len())
    {
        return Err(Error::Invalid(format!("problem row {bad} is not a full row of the matrix")));
    }
    let ids: Vec<String> = matrix.configs.iter().map(|c| c.id()).collect();
    let column = |id: &str| ids.iter().position(|i| i == id);
    let shipped_columns: Vec<usize> = shipped.configs.iter().filter_map(|id| column(id)).collect();
    let oracle = matrix.oracle();
    let mut outcomes = Vec::new();
    for row in rows {
        if !oracle[row].is_finite() {
            continue;
        }
        let problem = &matrix.problems[row];
        let class = &matrix.devices[problem.device].class;
        let tree = shipped
            .tree_for(class)
            .ok_or_else(|| Error::Data(format!("no selector tree for device class `{class}` and no `default` tree")))?;
        let pick = tree.variant(&matrix.kernel_features(row)).to_string();
        let time = column(&pick).map_or(f64::INFINITY, |v| matrix.time[row][v]);
        let measured = column(&pick).is_some_and(|v| matrix.recorded[row][v]);
        let best = shipped_columns.iter().map(|&v| matrix.time[row][v]).fold(f64::INFINITY, f64::min);
        let set_measured = shipped_columns.iter().any(|&v| matrix.recorded[row][v]);
        let ratio = |t: f64| Some(t / oracle[row]).filter(|s| s.is_finite());
        outcomes.push(Outcome { row, pick, measured, slowdown: ratio(time), set_measured, best_in_set: ratio(best) });
    }
    let summary_rows: Vec<usize> = outcomes.iter().map(|o| o.row).collect();
    // The tree is judged where its picks were timed; the best in set wherever the set was.
    let measured_rows: Vec<usize> = outcomes.iter().filter(|o| o.measured).map(|o| o.row).collect();
    let set_rows: Vec<usize> = outcomes.iter().filter(|o| o.set_measured).map(|o| o.row).collect();
    let slowdown_of = |row: usize, best: bool| -> f64 {
        outcomes
            .iter()
            .find(|o| o.row == row)
            .and_then(|o| if best { o.best_in_set } else { o.slowdown })
            .map_or(f64::INFINITY, |s| s * oracle[row])
    };
    let tree_stats = Stats::of(matrix, &measured_rows, |r| slowdown_of(r, false));
    let best_stats = Stats::of(matrix, &set_rows, |r| slowdown_of(r, true));
    let mut devices = Vec::new();
    for device in 0..matrix.devices.len() {
        let on_device = |rows: &[usize]| -> Vec<usize> {
            rows.iter().copied().filter(|&r| matrix.problems[r].device == device).collect()
        };
        let (rows, timed, with_set) = (on_device(&summary_rows), on_device(&measured_rows), on_device(&set_rows));
        if rows.is_empty() {
            continue;
        }
        let picks = Stats::of(matrix, &timed, |r| slowdown_of(r, false));
        let best = Stats::of(matrix, &with_set, |r| slowdown_of(r, true));
        devices.push(DeviceSummary {
            device,
            problems: rows.len(),
            failed: picks.failed,
            unmeasured: rows.len() - timed.len(),
            geomean: picks.geomean,
            best_in_set_geomean: best.geomean,
            worst: picks.worst.map(|(r, w)| (matrix.problems[r].shape, w)),
        });
    }
    Ok(Evaluation {
        tree: tree_stats,
        unmeasured: summary_rows.len() - measured_rows.len(),
        best_in_set: best_stats,
        set_unmeasured: summary_rows.len() - set_rows.len(),
        outcomes,
        devices,
    })
}

/// The step points of an empirical CDF over `[1, x_max]`: (slowdown, fraction of problems with at
/// most that slowdown). Failures (INFINITY, NaN) count in the denominator only, so the curve ends
/// below 1 when some problem failed.
pub fn cdf_points(slowdowns: &[f64], x_max: f64) -> Vec<(f64, f64)> {
    let n = slowdowns.len();
    let mut finite: Vec<f64> = slowdowns.iter().copied().filter(|s| s.is_finite()).map(|s| s.max(1.0)).collect();
    finite.sort_by(f64::total_cmp);
    let mut points = vec![(1.0, 0.0)];
    for (i, &s) in finite.iter().enumerate() {
        if s > x_max {
            break;
        }
        let y_before = points.last().map_or(0.0, |p| p.1);
        points.push((s, y_before));
        points.push((s, (i + 1) as f64 / n as f64));
    }
    let y_end = points.last().map_or(0.0, |p| p.1);
    points.push((x_max, y_end));
    points
}

/// Writes an SVG of the cumulative distribution of slowdown against the oracle, one line per
/// named series: x is the slowdown (linear, from 1 to the largest finite slowdown, at most 3),
/// y the fraction of problems at or below it.
pub fn plot_cdf(path: &Path, series: &[(String, Vec<f64>)]) -> Result<()> {
    if series.is_empty() || series.iter().any(|(_, s)| s.is_empty()) {
        return Err(Error::Invalid("a CDF plot needs at least one series, each with slowdowns".into()));
    }
    let largest = series.iter().flat_map(|(_, s)| s.iter().copied()).filter(|s| s.is_finite()).fold(1.0, f64::max);
    let x_max = (largest * 1.02).clamp(1.05, 3.0);
    let plot_error = |e: &dyn std::fmt::Display| Error::Plot { path: path.to_path_buf(), reason: e.to_string() };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    }
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Slowdown over oracle", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(1.0..x_max, 0.0..1.0)
        .map_err(|e| plot_error(&e))?;
    chart
        .configure_mesh()
        .x_desc("slowdown (time / oracle time)")
        .y_desc("fraction of problems")
        .draw()
        .map_err(|e| plot_error(&e))?;
    for (i, (name, slowdowns)) in series.iter().enumerate() {
        let colour = Palette99::pick(i).stroke_width(2);
        chart
            .draw_series(LineSeries::new(cdf_points(slowdowns, x_max), colour))
            .map_err(|e| plot_error(&e))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], Palette99::pick(i).stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| plot_error(&e))?;
    root.present().map_err(|e| plot_error(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::tests::toy;

    const INF: f64 = f64::INFINITY;

    fn case() -> (Matrix, Shipped) {
        let t = vec![vec![1.0, 2.0, 4.0], vec![3.0, 1.5, 1.0], vec![INF, 1.0, 2.0], vec![2.0, 4.0, 1.0]];
        let m = toy(&[("x", "cpu"), ("y", "gpu")], &[(0, 8, 8, 8), (0, 8, 8, 1000), (1, 8, 8, 8), (1, 8, 8, 1000)], t);
        let ids: Vec<String> = m.configs.iter().map(|c| c.id()).collect();
        let parse = |text: String| Tree::parse(Path::new("t.json"), &text, &ids).unwrap();
        let cpu = parse(format!(
            r#"{{ "class": "cpu", "root": {{ "feature": "k", "threshold": 100, "le": {{ "variant": "{}" }}, "gt": {{ "variant": "{}" }} }} }}"#,
            ids[0], ids[1]
        ));
        let default = parse(format!(r#"{{ "class": "default", "root": {{ "variant": "{}" }} }}"#, ids[0]));
        (m, Shipped { configs: ids[..2].to_vec(), trees: vec![cpu, default] })
    }

    #[test]
    fn numbers_by_hand() {
        let (m, shipped) = case();
        let e = evaluate(&m, None, &shipped).unwrap();
        let slow: Vec<Option<f64>> = e.outcomes.iter().map(|o| o.slowdown).collect();
        assert_eq!(slow, vec![Some(1.0), Some(1.5), None, Some(2.0)]);
        let best: Vec<Option<f64>> = e.outcomes.iter().map(|o| o.best_in_set).collect();
        assert_eq!(best, vec![Some(1.0), Some(1.5), Some(1.0), Some(2.0)]);
        assert_eq!((e.tree.problems, e.tree.failed, e.tree.worst), (4, 1, Some((3, 2.0))));
        assert!((e.tree.geomean - 3f64.powf(1.0 / 3.0)).abs() < 1e-12);
        assert!((e.best_in_set.geomean - 3f64.powf(0.25)).abs() < 1e-12);
        let x = &e.devices[0];
        assert!((x.geomean - 1.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(x.worst, Some((Shape { m: 8, n: 8, k: 1000 }, 1.5)));
        let y = &e.devices[1];
        assert_eq!((y.failed, y.geomean), (1, 2.0));
        assert!((y.best_in_set_geomean - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(e.slowdowns()[2], INF);
        assert!(e.describe(&m).contains("1 failed"));
        let lines: Vec<String> = e.per_shape(&m).lines().map(String::from).collect();
        assert_eq!(lines.len(), 5);
        assert!(lines[2].starts_with("x\t8x8x1000\t") && lines[2].ends_with("\t1.500\t1.500"), "{}", lines[2]);
        assert!(lines[3].ends_with("\tfailed\t1.000"), "{}", lines[3]);
    }

    #[test]
    fn a_pick_never_timed_is_not_measured_not_failed() {
        let (_, shipped) = case();
        // case()'s devices and problems, with device y's 8x8x1000 row given.
        let with_last_row = |last: Vec<f64>| {
            let t = vec![vec![1.0, 2.0, 4.0], vec![3.0, 1.5, 1.0], vec![INF, 1.0, 2.0], last];
            toy(&[("x", "cpu"), ("y", "gpu")], &[(0, 8, 8, 8), (0, 8, 8, 1000), (1, 8, 8, 8), (1, 8, 8, 1000)], t)
        };
        // Device y's 8x8x1000: no record of the pick (data older than the set); its 8x8x8 failed.
        let m = with_last_row(vec![f64::NAN, 4.0, 1.0]);
        let e = evaluate(&m, None, &shipped).unwrap();
        assert_eq!(e.outcomes.iter().map(|o| o.measured).collect::<Vec<_>>(), [true, true, true, false]);
        assert!(e.outcomes.iter().all(|o| o.set_measured), "the set's other variant was timed on each");
        assert_eq!((e.best_in_set.problems, e.set_unmeasured), (4, 0));
        assert_eq!((e.tree.problems, e.tree.failed, e.unmeasured), (3, 1, 1));
        let y = &e.devices[1];
        assert_eq!((y.problems, y.failed, y.unmeasured, y.geomean), (2, 1, 1, 1.0));
        let text = e.describe(&m);
        assert!(text.contains(", 1 failed, 1 picks not measured\n"), "{text}");
        assert!(e.per_shape(&m).lines().nth(4).unwrap().ends_with("\tnot measured\t4.000"));

        // Neither variant of the set timed there: the best in set is not measured either.
        let m = with_last_row(vec![f64::NAN, f64::NAN, 1.0]);
        let e = evaluate(&m, None, &shipped).unwrap();
        assert_eq!((e.best_in_set.problems, e.best_in_set.failed, e.set_unmeasured), (3, 0, 1));
        assert_eq!((e.devices[1].problems, e.devices[1].best_in_set_geomean), (2, 1.0));
        assert!(e.describe(&m).contains(", 1 problems with no variant of the set measured\n"));
        assert!(e.per_shape(&m).lines().nth(4).unwrap().ends_with("\tnot measured\tnot measured"));
    }

    #[test]
    fn a_class_without_a_tree_is_an_error() {
        let (m, mut shipped) = case();
        shipped.trees.pop();
        assert!(matches!(evaluate(&m, None, &shipped), Err(Error::Data(_))));
        assert!(matches!(evaluate(&m, Some(&[7]), &shipped), Err(Error::Invalid(_))));
    }

    #[test]
    fn cdf_steps_and_svg() {
        let points = cdf_points(&[1.0, 1.5, INF, 2.0], 3.0);
        let want = [(1.0, 0.0), (1.0, 0.0), (1.0, 0.25), (1.5, 0.25), (1.5, 0.5), (2.0, 0.5), (2.0, 0.75), (3.0, 0.75)];
        assert_eq!(points, want);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plots/cdf.svg");
        plot_cdf(&path, &[("greedy".into(), vec![1.0, 1.2, 1.3]), ("kmeans".into(), vec![1.1, INF])]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("<svg") && svg.contains("greedy") && svg.contains("kmeans"));
        assert!(matches!(plot_cdf(&path, &[]), Err(Error::Invalid(_))));
    }
}
