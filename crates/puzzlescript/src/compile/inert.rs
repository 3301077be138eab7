//! Inert objects: objects that cannot change play, found at compile time and
//! left out of the game (`docs/puzzlescript.md`, "Inert objects", gives the
//! argument). Decoration drawn at random on many cells then costs nothing.
//!
//! A rule is *decorative* for a set D of objects when all it can change is
//! D: it has no commands, is not rigid, each replacement adds only objects
//! of D (or objects its cell is required to hold already), removes only
//! objects of D (or re-adds what it removes), and rewrites no movement
//! outside D's layers. D shrinks from every object but the player and the
//! background until it is stable: an object leaves D when a rule that is not
//! decorative reads it (on its left side, or its layer's movement), a win
//! condition names it, it shares a collision layer with an object outside
//! D, or a random choice mixes it with objects outside D. What is left is
//! inert: no rule outside the decorative ones, no win condition and no
//! movement ever depends on it, and decorative rules change nothing else.

use super::program::{CellPattern, PatternCell, Rule};
use super::Compiled;
use crate::bits;

/// The inert objects of `g`, by id.
pub fn find(g: &Compiled) -> Vec<bool> {
    let n = g.names.id_dict.len();
    let mut d = vec![true; n];
    for id in bits::ones(&g.names.player_mask) {
        d[id] = false;
    }
    d[g.names.background.0] = false;
    loop {
        let before = d.clone();
        let mask = to_mask(&d, g.obj_words);
        for rule in rules(g) {
            if decorative(g, rule, &mask) {
                continue;
            }
            for p in cells(rule) {
                for m in [&p.present, &p.missing]
                    .into_iter()
                    .chain(p.any_present.iter())
                {
                    clear_ids(&mut d, m);
                }
                // By layer, whether or not the layer can move (the masks
                // keep the layers that move alone).
                for layer in 0..g.names.layer_count {
                    let read = bits::get(&p.moves_tested_layers, layer);
                    let moved = p
                        .replacement
                        .as_ref()
                        .is_some_and(|r| bits::get(&r.moved_layers, layer));
                    if read || moved {
                        clear_ids(&mut d, &g.names.layer_masks[layer]);
                    }
                }
            }
        }
        for p in rules(g).flat_map(cells) {
            if let Some(r) = &p.replacement {
                if bits::ones(&r.random_objects).any(|id| !d[id]) {
                    clear_ids(&mut d, &r.random_objects);
                }
            }
        }
        for w in &g.win_conditions {
            clear_ids(&mut d, &w.first);
            if !w.second.iter().all(|&x| x == u64::MAX) {
                clear_ids(&mut d, &w.second);
            }
        }
        for layer in &g.names.layer_masks {
            if bits::ones(layer).any(|id| !d[id]) {
                clear_ids(&mut d, layer);
            }
        }
        if d == before {
            return d;
        }
    }
}

/// `g` without its inert objects: decorative rules lose their replacements
/// (they still match, so a random group picks among the same options), other
/// rules stop writing inert objects, and levels start without them.
pub fn strip(g: &Compiled, inert: &[bool]) -> Compiled {
    let mut out = g.clone();
    let mask = to_mask(inert, g.obj_words);
    for set in [&mut out.rules, &mut out.late_rules] {
        for rule in set.groups.iter_mut().flatten() {
            let neutral = decorative(g, rule, &mask);
            for row in &mut rule.rows {
                for cell in row.iter_mut() {
                    let PatternCell::Cell(p) = cell else { continue };
                    if neutral {
                        p.replacement = None;
                    } else if let Some(r) = &mut p.replacement {
                        bits::clear_into(&mut r.set, &mask);
                        bits::clear_into(&mut r.random_objects, &mask);
                        r.index_words();
                    }
                }
            }
            if neutral {
                rule.has_replacements = false;
                if let Some(source) = out.rule_sources.get_mut(rule.source) {
                    source.decorative = true;
                }
            }
            // The replacements changed: the plain-word form follows them.
            rule.narrow = super::NarrowRule::of(rule);
            rule.keeps_own_matches = rule.keeps_matches();
            rule.fires_everywhere = !rule.has_replacements && rule.matches_every_cell();
            // `Rule::settles` follows the writes (`index_writes` below).
        }
    }
    for level in &mut out.levels {
        if let super::Level::Grid(grid) = level {
            for cell in grid.cells.chunks_mut(g.obj_words.max(1)) {
                bits::clear_into(cell, &mask);
            }
        }
    }
    // The writes follow the replacements and levels changed.
    super::one_per_layer::index_writes(&mut out);
    out
}

/// True when all `rule` can change is the objects of `d` (and their layers'
/// movements).
fn decorative(g: &Compiled, rule: &Rule, d: &[u64]) -> bool {
    if !rule.commands.is_empty() || rule.rigid {
        return false;
    }
    cells(rule).all(|p| match &p.replacement {
        None => true,
        Some(r) => {
            let outside =
                |m: &[u64]| -> Vec<u64> { m.iter().zip(d).map(|(a, b)| a & !b).collect() };
            let added = outside(&r.set);
            let removed = outside(&r.clear);
            let random_outside = !bits::is_zero(&outside(&r.random_objects));
            let d_layers: Vec<bool> = g
                .names
                .layer_masks
                .iter()
                .map(|l| bits::ones(l).all(|id| bits::get(d, id)))
                .collect();
            let moves_outside = (0..g.names.layer_count)
                .any(|layer| !d_layers[layer] && bits::get(&r.move_written_layers, layer));
            bits::contains(&p.present, &added)
                && bits::contains(&r.set, &removed)
                && !random_outside
                && !moves_outside
        }
    })
}

fn rules(g: &Compiled) -> impl Iterator<Item = &Rule> {
    g.rules.groups.iter().chain(&g.late_rules.groups).flatten()
}

fn cells(rule: &Rule) -> impl Iterator<Item = &CellPattern> {
    rule.rows.iter().flatten().filter_map(|c| match c {
        PatternCell::Cell(p) => Some(p),
        PatternCell::Ellipsis => None,
    })
}

fn to_mask(d: &[bool], words: usize) -> Vec<u64> {
    let mut m = vec![0; words];
    for (id, &inert) in d.iter().enumerate() {
        if inert {
            bits::set(&mut m, id);
        }
    }
    m
}

fn clear_ids(d: &mut [bool], mask: &[u64]) {
    for id in bits::ones(mask) {
        if let Some(x) = d.get_mut(id) {
            *x = false;
        }
    }
}
