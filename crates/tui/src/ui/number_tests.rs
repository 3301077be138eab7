//! Snapshots of the screens on the synthetic fixture with 7-digit figures, at 80x24
//! and 60x16: no number is cut, a number that does not fit is abbreviated visibly,
//! and every figure is named and counted as `docs/metrics.md` defines it (issue 22).

use crate::test_support::{big_app, press, render, UNICODE};

const SMALL: (u16, u16) = (80, 24);
const TINY: (u16, u16) = (60, 16);

fn shot(size: (u16, u16), partial: bool, keys: &str) -> String {
    let mut app = big_app(UNICODE, size, partial);
    press(&mut app, keys);
    render(&app)
}

macro_rules! big_screens {
    ($($name:ident: $partial:expr, $keys:expr;)*) => {
        $(
            #[test]
            fn $name() {
                insta::assert_snapshot!(
                    concat!(stringify!($name), "_80x24"),
                    shot(SMALL, $partial, $keys)
                );
                insta::assert_snapshot!(
                    concat!(stringify!($name), "_60x16"),
                    shot(TINY, $partial, $keys)
                );
            }
        )*
    };
}

big_screens! {
    big_overview: false, "";
    big_browser: false, "2";
    big_browser_whole_board: false, "2z";
    big_paths: false, "3";
    big_partial_overview: true, "";
    big_partial_browser: true, "2";
}

#[test]
fn seven_digit_sizes_are_never_cut_from_the_left() {
    for size in [SMALL, TINY] {
        let screen = shot(size, false, "2");
        for line in screen.lines() {
            // Every occurrence of the size is whole: no digit of it is cut away.
            let cut = line
                .match_indices("396152")
                .any(|(i, _)| !line[..i].ends_with('1'));
            assert!(!cut, "{line}");
        }
        assert!(
            screen.contains("1.4M") || screen.contains("1396152"),
            "{screen}"
        );
    }
}

#[test]
fn details_count_critical_actions_with_multiplicity_and_hsg_edges_apart() {
    let app = big_app(UNICODE, SMALL, false);
    let bench = app.bench.clone().unwrap();
    let root = bench.root();
    let d = bench.details(root).unwrap();
    let out = bench.critical_out(root, usize::MAX);
    let sum: u64 = out.items.iter().map(|a| a.multiplicity).sum();
    assert_eq!(d.out_critical, sum);
    assert_eq!(d.out_critical, 58_173 + 1_397);
    assert_eq!(d.out_labelled, out.total);
    assert_eq!(d.out_edges, 2);
    let mut app = app;
    press(&mut app, "2");
    let screen = render(&app);
    assert!(screen.contains("critical actions out 59570"), "{screen}");
    assert!(screen.contains("HSG edges out 2 (2 labelled)"), "{screen}");
}

#[test]
fn the_bfs_depth_range_ends_at_the_deepest_layer_with_states() {
    use crate::data::analysis::{overview_of, RunFacts};
    use crate::data::RunState;
    let bench = crate::data::fixture::two_boxes(None).unwrap();
    let facts = RunFacts {
        game: "sokoban".into(),
        level_title: "t".into(),
        options: Vec::new(),
        run_state: RunState::Complete,
        stale_note: None,
        action_labels: Vec::new(),
        outcome_names: Vec::new(),
    };
    // A store's layer table ends with the start of a layer that holds no state.
    let o = overview_of(&bench.saved().summary, &facts, vec![1, 4, 9, 0]);
    assert_eq!(o.bfs_depths, [1, 4, 9]);
}
