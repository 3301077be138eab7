//! Whether a game keeps at most one object of each layer in every cell, and
//! the rules' write lists that follow from it (`Compiled::one_per_layer`).
//!
//! The reference lets a level's legend put one object of a layer in a cell
//! (an aggregate of two is an error), blocks a movement into a cell whose
//! layer is taken, and makes a replacement that adds an object clear the
//! rest of its layer. So when every level starts with one object a layer a
//! cell, and no replacement adds two objects of one layer (nor one beside a
//! random one of the same layer), no board of the game ever holds two. A
//! cell that satisfies a pattern naming an object then holds nothing else of
//! that layer, and a replacement such as `1 -> 1`, which clears the layer
//! and sets `1` again, changes no cell its pattern accepts: it can be left
//! out of the rule's writes (`writes::row_writes`).

use super::program::{Replacement, RuleSet};
use super::{Compiled, Grid, Level, Names};
use crate::bits;

/// True when every grid level of `levels` starts with at most one object of
/// each layer in every cell, and every replacement of `sets` keeps a cell
/// that holds at most one so.
pub fn holds(names: &Names, sets: &[&RuleSet], levels: &[Level]) -> bool {
    let grids_hold = levels.iter().all(|level| match level {
        Level::Grid(grid) => grid_holds(names, grid),
        Level::Message(_) => true,
    });
    let replacements = sets
        .iter()
        .flat_map(|set| set.groups.iter().flatten())
        .flat_map(|rule| rule.rows.iter().flatten())
        .filter_map(|cell| match cell {
            super::PatternCell::Cell(p) => p.replacement.as_ref(),
            super::PatternCell::Ellipsis => None,
        });
    grids_hold
        && replacements
            .into_iter()
            .all(|r| keeps_one_per_layer(names, r))
}

/// True when no cell of `grid` holds two objects of one layer.
pub fn grid_holds(names: &Names, grid: &Grid) -> bool {
    let so = names.obj_words.max(1);
    // Per layer, the number (plus one) of the last cell that held one of
    // its objects: each object of a cell is looked at once.
    let mut last = vec![0usize; names.layer_count];
    grid.cells.chunks(so).enumerate().all(|(k, cell)| {
        bits::ones(cell).all(|id| {
            let Some(slot) = names.id_layer.get(id).and_then(|&l| last.get_mut(l)) else {
                return true;
            };
            let fresh = *slot != k + 1;
            *slot = k + 1;
            fresh
        })
    })
}

/// True when writing `rep`, `(old & !clear) | set` with its random object
/// added (which clears that object's layer), on a cell holding at most one
/// object of each layer leaves at most one: in each layer it sets an object
/// of, it sets that one alone, clears every other one, and adds no random
/// one (layers it sets nothing in keep at most one).
pub fn keeps_one_per_layer(names: &Names, rep: &Replacement) -> bool {
    bits::ones(&rep.set).all(|id| {
        let Some(layer) = names
            .id_layer
            .get(id)
            .and_then(|&l| names.layer_masks.get(l))
        else {
            return false;
        };
        let set = bits::ones_in(&rep.set, layer);
        let kept_beside = layer
            .iter()
            .enumerate()
            .any(|(w, &m)| m & !word(&rep.set, w) & !word(&rep.clear, w) != 0);
        let random = bits::intersects(layer, &rep.random_objects);
        set == 1 && !kept_beside && !random
    })
}

/// Word `w` of `words`, zero past its end.
fn word(words: &[u64], w: usize) -> u64 {
    words.get(w).copied().unwrap_or(0)
}

/// Sets [`Compiled::one_per_layer`] from the game's levels and rules, and
/// computes every rule's writes (`Rule::writes`) with what it allows,
/// whether unchanged matches may be recorded (`Rule::records_unchanged`),
/// and whether a pass settles the rule and its group (`Rule::settles`,
/// `RuleSet::settles`, which read the writes).
/// Run whenever the rules' replacements or the levels change.
pub fn index_writes(game: &mut Compiled) {
    game.one_per_layer = holds(&game.names, &[&game.rules, &game.late_rules], &game.levels);
    let layers = game.one_per_layer.then_some(&game.names.layer_masks[..]);
    // The movement bits of the player's layers: what an input moves.
    let mut player_moves = vec![0; game.mov_words];
    for id in bits::ones(&game.names.player_mask) {
        let layer = game.names.id_layer.get(id).copied();
        if let Some(slot) = layer.and_then(|l| game.names.move_slots.slot(l)) {
            bits::mov_or(&mut player_moves, slot, 0x1f);
        }
    }
    let all = game
        .rules
        .groups
        .iter_mut()
        .chain(&mut game.late_rules.groups);
    for rule in all.flatten() {
        rule.writes = super::writes::rule_writes(rule, layers);
        rule.records_unchanged = rule.records_unchanged_matches(&player_moves);
    }
    for set in [&mut game.rules, &mut game.late_rules] {
        set.replayable = set
            .groups
            .iter()
            .map(|group| group.iter().all(super::Rule::replayable))
            .collect();
        set.settles.clear();
        for group in set.groups.iter_mut() {
            let (alone, settles) = super::settle::settles(group, layers);
            for (rule, alone) in group.iter_mut().zip(alone) {
                rule.settles = alone;
            }
            set.settles.push(settles);
        }
        set.cell_runs = super::cell_runs::runs(set, game.obj_words);
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::writes::keeps_any_match;
    use crate::compile::{PatternCell, Rule};
    use crate::test_rng::xorshift;

    /// Player, Crate and Wall share a layer; `Thing` is a property within it.
    const GAME: &str = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
        Mark\ngreen\nLEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\n\
        Thing = Crate or Wall\nSOUNDS\nCOLLISIONLAYERS\nBackground\nMark\n\
        Player, Wall, Crate\nRULES\n\
        right [ Player | Mark ] -> [ Player | ]\n\
        right [ Thing | Crate ] -> [ Thing | Crate Mark ]\n\
        right [ Thing | Mark ] -> [ Thing no Player | Mark ]\n\
        [ Crate ] -> [ Wall ]\n\
        WINCONDITIONS\nLEVELS\n.P*#\n";

    fn rule_of(g: &crate::Compiled, text: &str) -> Rule {
        let line = GAME
            .lines()
            .position(|l| l.starts_with(text))
            .map(|l| l + 1);
        let rules = g.rules.groups.iter().flatten();
        rules
            .into_iter()
            .find(|r| Some(r.line) == line)
            .cloned()
            .unwrap_or_else(|| panic!("no rule {text}"))
    }

    /// With one object a layer a cell, `[ Player | Mark ] -> [ Player | ]`
    /// writes its second cell alone: writing `Player` on a cell that holds
    /// `Player` clears a layer that holds nothing else. A cell that needs
    /// `Thing`, a property within that layer, holds no `Player` to clear.
    #[test]
    fn cells_kept_by_their_layer_are_not_written() {
        let g = crate::compile("case", GAME).expect("the game compiles");
        assert!(g.one_per_layer);
        let writes = |text: &str| {
            let rule = rule_of(&g, text);
            rule.writes.rows[0]
                .iter()
                .map(|w| w.cell)
                .collect::<Vec<_>>()
        };
        assert_eq!(writes("right [ Player | Mark ]"), [1]);
        assert_eq!(writes("right [ Thing | Crate ]"), [1]);
        assert_eq!(writes("right [ Thing | Mark ]"), [0u32; 0]);
        assert_eq!(writes("[ Crate ]"), [0]);
    }

    /// A replacement left out under the layers changes no cell that
    /// satisfies its pattern and holds at most one object a layer, on
    /// random cells.
    #[test]
    fn left_out_replacements_change_no_cell_of_one_object_a_layer() {
        let g = crate::compile("case", GAME).expect("the game compiles");
        let layers = &g.names.layer_masks[..];
        let mut next = xorshift(0x3c6e_f372_fe94_f82b);
        let mut left = 0;
        for rule in g.rules.groups.iter().flatten() {
            for cell in rule.rows.iter().flatten() {
                let PatternCell::Cell(p) = cell else { continue };
                let Some(rep) = &p.replacement else { continue };
                if !keeps_any_match(p, rep, Some(layers)) {
                    continue;
                }
                left += 1;
                let mut tried = 0;
                while tried < 200 {
                    // One object or none per layer.
                    let mut o = 0u64;
                    for layer in layers {
                        let ids: Vec<usize> = crate::bits::ones(layer).collect();
                        let k = next() as usize % (ids.len() + 1);
                        if let Some(&id) = ids.get(k) {
                            o |= 1 << id;
                        }
                    }
                    let any = p.any_present.iter().all(|a| o & a[0] != 0);
                    if o & p.present[0] != p.present[0] || o & p.missing[0] != 0 || !any {
                        continue;
                    }
                    tried += 1;
                    assert_eq!((o & !rep.clear[0]) | rep.set[0], o, "line {}", rule.line);
                }
            }
        }
        assert!(left >= 3, "{left} left out");
    }

    /// A replacement that puts two objects of one layer in a cell, or one
    /// beside a random one of its layer, breaks the property, and the
    /// game's writes then rely on nothing.
    #[test]
    fn two_objects_of_a_layer_break_it() {
        let game = |rule: &str| GAME.replace("[ Crate ] -> [ Wall ]", rule);
        for rule in [
            "[ Crate ] -> [ Wall Player ]",
            "[ Crate ] -> [ Wall random Thing ]",
        ] {
            let g = crate::compile("case", &game(rule)).expect("the game compiles");
            assert!(!g.one_per_layer, "{rule}");
            let kept = rule_of(&g, "right [ Player | Mark ]");
            assert_eq!(kept.writes.rows[0].len(), 2);
        }
        let g = crate::compile("case", &game("[ Crate ] -> [ random Thing ]")).expect("compiles");
        assert!(g.one_per_layer);
    }
}
