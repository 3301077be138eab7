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
    assert!(screen.contains("critical actions out 59,570"), "{screen}");
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
    let o = overview_of(bench.saved().summary(), &facts, vec![1, 4, 9, 0]);
    assert_eq!(o.bfs_depths, [1, 4, 9]);
}

/// The two-boxes fixture after `keys`, without colour, at both sizes.
fn small_shot(size: (u16, u16), keys: &str) -> String {
    let view = crate::app::ViewOptions {
        ascii: false,
        colour: false,
    };
    let mut app = crate::test_support::fixture_app(view, size, None);
    press(&mut app, keys);
    render(&app)
}

macro_rules! fixture_screens {
    ($($name:ident: $keys:expr;)*) => {
        $(
            #[test]
            fn $name() {
                insta::assert_snapshot!(
                    concat!(stringify!($name), "_80x24"),
                    small_shot(SMALL, $keys)
                );
                insta::assert_snapshot!(
                    concat!(stringify!($name), "_60x16"),
                    small_shot(TINY, $keys)
                );
            }
        )*
    };
}

fixture_screens! {
    // Item 6: e-win, i-fail and unknown have their own glyphs without colour.
    graph_without_colour: "4";
    // Item 7: the radius keys say the whole graph is drawn.
    graph_radius_on_a_whole_graph: "4}";
    // Item 5: a tag filter selects its first row, never blank rows or stale details.
    browser_filtered_by_win: "2t";
    // Item 8: f says it seeks a fail or implicitly failed hyperstate, and which it found.
    nearest_loss: "2f";
    // Item 9: the summary line describes the highlighted row.
    paths_after_a_step: "3j";
    paths_on_another_path: "3lj";
    // Item 11: movement keys on the overview say why nothing moves.
    overview_movement: "j";
}

#[test]
fn node_glyphs_differ_by_tag_in_both_character_sets() {
    use crate::data::Tag;
    for ascii in [false, true] {
        let t = crate::ui::theme::Theme::new(crate::app::ViewOptions {
            ascii,
            colour: false,
        });
        let glyphs: Vec<char> = Tag::ALL.iter().map(|&tag| t.node(tag)).collect();
        for (i, g) in glyphs.iter().enumerate() {
            assert!(!glyphs[i + 1..].contains(g), "{glyphs:?}");
        }
    }
}

#[test]
fn a_filter_moves_the_selection_into_the_filtered_rows() {
    let mut app = crate::test_support::fixture_app(crate::test_support::UNICODE, SMALL, None);
    press(&mut app, "2t");
    let bench = app.bench.clone().unwrap();
    let row = bench.row(app.selected).unwrap();
    assert_eq!(Some(row.tag), app.table.filter);
    assert_eq!(app.focus.as_ref().unwrap().h, app.selected);
}
