//! Simulated power loss while analyses are saved (issue 20): two analyses are saved one
//! after the other into a run directory, recorded at every durability point (each file
//! sync, folder sync and rename, see `store::power_loss`), and at each point the
//! directory is rebuilt as a power cut would leave it: only what is durable, everything
//! landed, or a mix with torn pages. Loading it must give the first analysis, the
//! second, or an error (an analysis is derived data: commands compute it again), never
//! anything else; and saving again over the image must work and read back.

use hsg::{AnalyzeOptions, Labels, MemGraph, SavedAnalysis};
use std::collections::BTreeMap;
use std::path::Path;
use store::power_loss::{Cut, Recorder};

/// An analysis of a small graph; `variant` changes the graph (and so every file).
fn analysis(variant: u64) -> hsg::Analysis {
    let n = 40 + variant * 7;
    let mut edges = Vec::new();
    for s in 0..n - 2 {
        edges.push((s, 0, (s * 3 + variant) % n));
        edges.push((s, 1, s + 1));
        if s % 5 == variant % 5 {
            edges.push((s + 1, 2, s));
        }
    }
    let graph = MemGraph::new(n, &edges, &[(n - 2, 0), (n - 1, 1)]).expect("graph");
    let labels = Labels {
        actions: ["a", "b", "c"].map(String::from).to_vec(),
        outcomes: ["win", "fail"].map(String::from).to_vec(),
    };
    hsg::analyze_graph(
        &graph,
        &labels,
        &AnalyzeOptions::default(),
        Default::default(),
    )
    .expect("analysis")
}

/// What `hsg::load` and `hsg::load_summary` read back after a plain save of `a`.
fn loaded(a: &hsg::Analysis, dir: &Path) -> (String, String) {
    hsg::save(a, dir).expect("saved");
    (
        format!("{:?}", hsg::load(dir).expect("loads")),
        format!("{:?}", hsg::load_summary(dir).expect("loads")),
    )
}

fn describe(saved: &SavedAnalysis) -> String {
    format!("{saved:?}")
}

#[test]
fn power_cuts_while_saving_leave_the_old_analysis_the_new_one_or_an_error() {
    let root = tempfile::tempdir().expect("temp dir");
    let (first, second) = (analysis(0), analysis(3));
    let (first_whole, first_summary) = loaded(&first, &root.path().join("first"));
    let (second_whole, second_summary) = loaded(&second, &root.path().join("second"));
    let expected = [first_whole, second_whole];
    assert_ne!(expected[0], expected[1]);

    let run_dir = root.path().join("run");
    std::fs::create_dir_all(&run_dir).expect("run dir");
    let recorder = Recorder::start(&run_dir);
    hsg::save(&first, &run_dir).expect("first save");
    hsg::save(&second, &run_dir).expect("second save");
    let points = recorder.stop();
    assert!(points.len() > 20, "only {} durability points", points.len());

    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for (at, point) in points.iter().enumerate() {
        for cut in [Cut::Durable, Cut::Landed, Cut::Mixed(at as u64 * 31 + 7)] {
            let image = root.path().join(format!("image-{at}-{cut:?}"));
            point.image(cut, &image).expect("image written");
            let what = format!("point {at} ({}), {cut:?}", point.event);
            let outcome = match hsg::load(&image) {
                Ok(saved) if describe(&saved) == expected[0] => "the first analysis".into(),
                Ok(saved) if describe(&saved) == expected[1] => "the second analysis".into(),
                Ok(saved) => panic!("{what}: another analysis loaded: {saved:?}"),
                Err(hsg::HsgError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    "no analysis".to_string()
                }
                Err(e) => format!(
                    "refused: {}",
                    e.to_string().replace(&image.display().to_string(), "DIR")
                ),
            };
            if let Ok(summary) = hsg::load_summary(&image) {
                let summary = format!("{summary:?}");
                let known = summary == first_summary || summary == second_summary;
                assert!(known, "{what}: another summary loaded");
            }
            *outcomes.entry(outcome).or_default() += 1;
            // The next save recovers whatever the cut left.
            hsg::save(&second, &image).expect("saves over the image");
            assert_eq!(
                format!("{:?}", hsg::load(&image).expect("loads")),
                expected[1]
            );
            let _ = std::fs::remove_dir_all(&image);
        }
    }
    eprintln!(
        "saved analysis: {} durability points, 3 images each:",
        points.len()
    );
    for (outcome, count) in &outcomes {
        eprintln!("  {count}: {outcome}");
    }
    let refused: usize = outcomes
        .iter()
        .filter(|(k, _)| k.starts_with("refused"))
        .map(|(_, v)| v)
        .sum();
    // Every file is synced, then its folder, before the folder replaces the old
    // analysis: no cut leaves a damaged one.
    assert_eq!(refused, 0, "{outcomes:?}");
}
