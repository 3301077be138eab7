//! From expanded rules to masks (the reference's `rulesToMask`), with the
//! duplicate removal that precedes it and the grouping, loop points and
//! rigid bookkeeping that follow.

use super::fault::Fault;
use super::move_slots;
use super::names::Names;
use super::program::{
    CellPattern, NarrowCell, NarrowRule, PatternCell, Replacement, Rule, RuleSet, WordBits,
    WordTest,
};
use super::row_tests::{AnchorTest, RowTests};
use super::rule_text::{Cell, Command, Draft};
use crate::bits;

fn dir_bits(word: &str) -> u64 {
    match word {
        "up" => 1,
        "down" => 2,
        "left" => 4,
        "right" => 8,
        "moving" => 15,
        "no" => 3,
        "randomdir" => 5,
        "random" => 18,
        "action" => 16,
        _ => 0,
    }
}

/// The reference's printed form of a rule, used to find duplicates.
fn string_rep(r: &Draft) -> String {
    let directed = r.lhs.iter().any(|row| row.len() > 1);
    let mut s = format!(
        "{}|{}|{}{}{}|",
        r.line,
        if directed {
            r.directions[0].as_str()
        } else {
            ""
        },
        r.rigid,
        r.random,
        r.late
    );
    let side = |rows: &Vec<Vec<Cell>>, s: &mut String| {
        for row in rows {
            s.push('[');
            for cell in row {
                for (d, n) in cell {
                    s.push_str(d);
                    s.push(' ');
                    s.push_str(n);
                    s.push(' ');
                }
                s.push('|');
            }
            s.push(']');
        }
    };
    side(&r.lhs, &mut s);
    s.push_str("->");
    side(&r.rhs, &mut s);
    for c in &r.commands {
        s.push_str(c.word());
        if let Command::Message(m) = c {
            s.push_str(m);
        }
        s.push(';');
    }
    s
}

/// Removes duplicate rules inside each group, keeping the last copy.
pub fn remove_duplicates(rules: Vec<Draft>) -> Vec<Draft> {
    let mut keep = vec![true; rules.len()];
    let mut seen = std::collections::HashSet::new();
    let mut last_group = None;
    for i in (0..rules.len()).rev() {
        if last_group != Some(rules[i].group) {
            seen.clear();
        }
        if !seen.insert(string_rep(&rules[i])) {
            keep[i] = false;
        }
        last_group = Some(rules[i].group);
    }
    rules
        .into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

/// The sizes of a rule's masks: objects, movements built layer by layer,
/// and movements in the engine's slots (`MoveSlots`).
struct Words {
    obj: usize,
    mov: usize,
    slots: usize,
}

impl Words {
    fn obj(&self) -> Vec<u64> {
        vec![0; self.obj]
    }
    /// Movements layer by layer, as a cell's masks are built.
    fn mov(&self) -> Vec<u64> {
        vec![0; self.mov]
    }
    /// Movements in slots, as the engine reads them.
    fn slots(&self) -> Vec<u64> {
        vec![0; self.slots]
    }
}

/// Compiles one expanded rule; `None` when it can never match.
pub fn compile_rule(r: &Draft, names: &Names) -> Result<Option<Rule>, Fault> {
    let w = Words {
        obj: names.obj_words,
        mov: bits::mov_words(names.layer_count),
        slots: names.move_slots.words(),
    };
    let mut rows = Vec::new();
    for (j, row_l) in r.lhs.iter().enumerate() {
        let mut row = Vec::new();
        for (k, cell_l) in row_l.iter().enumerate() {
            if cell_l.first().is_some_and(|(d, _)| d == "...") {
                if cell_l.len() != 1 {
                    return Err(Fault::at(
                        r.line,
                        "nothing may share a cell with an ellipsis".into(),
                    ));
                }
                row.push(PatternCell::Ellipsis);
                continue;
            }
            let cell_r = r.rhs.get(j).and_then(|row| row.get(k));
            match compile_cell(cell_l, cell_r, names, &w, r.line)? {
                Some(p) => row.push(PatternCell::Cell(p)),
                None => return Ok(None),
            }
        }
        rows.push(row);
    }
    let ellipses: Vec<u8> = rows
        .iter()
        .map(|row| {
            row.iter()
                .filter(|c| matches!(c, PatternCell::Ellipsis))
                .count() as u8
        })
        .collect();
    if ellipses.iter().any(|&e| e > 2) {
        return Err(Fault::at(
            r.line,
            "at most two ellipses in a pattern".into(),
        ));
    }
    let mut row_masks = Vec::new();
    let mut row_move_masks = Vec::new();
    let mut rule_mask = w.obj();
    let mut rule_move_mask = w.slots();
    for row in &rows {
        let (mut om, mut mm) = (w.obj(), w.slots());
        for c in row {
            if let PatternCell::Cell(p) = c {
                bits::or_into(&mut om, &p.present);
                bits::or_into(&mut mm, &p.moves_present);
            }
        }
        bits::or_into(&mut rule_mask, &om);
        bits::or_into(&mut rule_move_mask, &mm);
        row_masks.push(om.into_boxed_slice());
        row_move_masks.push(mm.into_boxed_slice());
    }
    let row_any: Vec<Box<[WordBits]>> = rows.iter().map(|row| row_properties(row)).collect();
    let mut rule_any: Vec<WordBits> = Vec::new();
    for any in row_any.iter().flatten() {
        if !rule_any.contains(any) {
            rule_any.push(any.clone());
        }
    }
    let anchors: Vec<Option<usize>> = rows.iter().map(|row| movement_anchor(row)).collect();
    let anchor_tests = rows
        .iter()
        .zip(&anchors)
        .map(|(row, &anchor)| AnchorTest::of_row(row, anchor))
        .collect();
    let narrow_rows = rows.iter().map(|row| NarrowCell::row(row)).collect();
    let row_tests = rows.iter().map(|row| RowTests::of(row)).collect();
    let reads_movements = rows.iter().flatten().any(|c| {
        matches!(c, PatternCell::Cell(p)
            if !bits::is_zero(&p.moves_present) || !bits::is_zero(&p.moves_missing))
    });
    let mut rule = Rule {
        direction: dir_bits(&r.directions[0]) as u8,
        rows,
        ellipses,
        has_replacements: !r.rhs.is_empty(),
        line: r.line,
        // Set by the caller, which knows every rule line.
        source: 0,
        group: r.group,
        rigid: r.rigid,
        commands: r.commands.clone(),
        random: r.random,
        row_masks,
        row_move_masks,
        row_any,
        rule_any: rule_any.into_boxed_slice(),
        rule_mask: rule_mask.into_boxed_slice(),
        rule_move_mask: rule_move_mask.into_boxed_slice(),
        narrow_rows,
        row_tests,
        anchors,
        anchor_tests,
        // Set below, once the narrow form is known.
        anchored_row: None,
        // Numbered by the caller, which sees every rule.
        anchor_class: 0,
        reads_movements,
        // Set by the caller once the rules are arranged.
        index: 0,
        narrow: None,
        keeps_own_matches: false,
        settles: false,
        fires_everywhere: false,
        writes: Default::default(),
        records_unchanged: false,
    };
    rule.narrow = NarrowRule::of(&rule);
    // A rule of one row: the look answers for the whole rule (with more
    // rows, the anchored one, `[ moving player ]`, mostly matches while
    // another decides, and the look is a cost).
    if let (None, [Some(_)], [0]) = (&rule.narrow, &rule.anchors[..], &rule.ellipses[..]) {
        rule.anchored_row = Some(0);
    }
    rule.keeps_own_matches = rule.keeps_matches();
    rule.fires_everywhere = !rule.has_replacements && rule.matches_every_cell();
    // The game's levels may allow fewer writes (`one_per_layer::index_writes`,
    // which also tells whether the rule settles in one pass).
    rule.writes = super::writes::rule_writes(&rule, None);
    Ok(Some(rule))
}

/// The properties the cells of a row need, each once, as their words.
fn row_properties(row: &[PatternCell]) -> Box<[WordBits]> {
    let mut out: Vec<WordBits> = Vec::new();
    for c in row {
        if let PatternCell::Cell(p) = c {
            for any in p.any_words.iter() {
                if !out.contains(any) {
                    out.push(any.clone());
                }
            }
        }
    }
    out.into_boxed_slice()
}

/// The first cell before any ellipsis that needs some movement.
fn movement_anchor(row: &[PatternCell]) -> Option<usize> {
    row.iter()
        .take_while(|c| !matches!(c, PatternCell::Ellipsis))
        .position(|c| matches!(c, PatternCell::Cell(p) if !bits::is_zero(&p.moves_present)))
}

/// The layer of an object or of a single-layer property.
fn layer_of(names: &Names, name: &str) -> Option<usize> {
    names
        .layer_of(name)
        .or_else(|| names.single_layer.get(name).copied())
}

fn compile_cell(
    cell_l: &Cell,
    cell_r: Option<&Cell>,
    names: &Names,
    w: &Words,
    line: usize,
) -> Result<Option<CellPattern>, Fault> {
    let (mut present, mut missing) = (w.obj(), w.obj());
    let (mut moves_present, mut moves_missing, mut layers_l) = (w.mov(), w.mov(), w.mov());
    let mut any_present = Vec::new();
    let mut used_l: Vec<bool> = vec![false; names.layer_count];
    for (dir, name) in cell_l {
        if dir == "random" {
            return Err(Fault::at(
                line,
                "RANDOM can only appear on the right".into(),
            ));
        }
        let mask = names
            .object_masks
            .get(name)
            .ok_or_else(|| Fault::at(line, format!("unknown name \"{name}\"")))?;
        if dir == "no" {
            bits::or_into(&mut missing, mask);
            continue;
        }
        let Some(layer) = layer_of(names, name) else {
            return Err(Fault::at(
                line,
                format!("\"{}\" spans several layers", name.to_uppercase()),
            ));
        };
        if used_l[layer] {
            // Two objects of one layer can never share a cell: the reference culls the rule.
            return Ok(None);
        }
        used_l[layer] = true;
        if names.objects.contains_key(name) {
            bits::or_into(&mut present, mask);
            bits::mov_or(&mut layers_l, layer, 0x1f);
        } else {
            any_present.push(mask.clone().into_boxed_slice());
        }
        if dir == "stationary" {
            bits::mov_or(&mut moves_missing, layer, 0x1f);
        } else {
            bits::mov_or(&mut moves_present, layer, dir_bits(dir));
        }
    }
    if bits::intersects(&present, &missing) {
        return Ok(None);
    }
    let replacement = match cell_r {
        Some(cell_r) => replacement(
            cell_r,
            &present,
            &moves_present,
            &used_l,
            layers_l,
            names,
            w,
            line,
        )?,
        None => None,
    };
    // The movements were built layer by layer; the engine keeps fields for
    // the layers that can move alone (`MoveSlots`).
    let moves_tested_layers =
        move_slots::layers_of(&[&moves_present, &moves_missing], names.layer_count);
    let moves_present = names.move_slots.tested(&moves_present);
    let moves_missing = names.move_slots.written(&moves_missing);
    let narrow = match (
        &present[..],
        &missing[..],
        &moves_present[..],
        &moves_missing[..],
    ) {
        ([op], [om], [mp], [mm]) => Some([*op, *om, *mp, *mm]),
        // Movements over several words, none tested: the objects' word.
        ([op], [om], mp, mm) if bits::is_zero(mp) && bits::is_zero(mm) => Some([*op, *om, 0, 0]),
        _ => None,
    };
    let tests = WordTest::of(&present, &missing, false)
        .chain(WordTest::of(&moves_present, &moves_missing, true))
        .collect();
    let any_words = any_present
        .iter()
        .map(|any| {
            let words = any.iter().enumerate().filter(|&(_, &m)| m != 0);
            words.map(|(w, &m)| (w as u32, m)).collect()
        })
        .collect();
    Ok(Some(CellPattern {
        narrow,
        tests,
        any_words,
        present: present.into_boxed_slice(),
        missing: missing.into_boxed_slice(),
        any_present,
        moves_present: moves_present.into_boxed_slice(),
        moves_missing: moves_missing.into_boxed_slice(),
        moves_tested_layers,
        replacement,
    }))
}

#[allow(clippy::too_many_arguments)]
fn replacement(
    cell_r: &Cell,
    present: &[u64],
    moves_present: &[u64],
    used_l: &[bool],
    mut layers_l: Vec<u64>,
    names: &Names,
    w: &Words,
    line: usize,
) -> Result<Option<Replacement>, Fault> {
    let (mut clear, mut set, mut random_objects) = (w.obj(), w.obj(), w.obj());
    let (mut moves_clear, mut moves_set, mut layers_r) = (w.mov(), w.mov(), w.mov());
    let (mut moves_layers, mut random_dirs) = (w.mov(), w.mov());
    let mut used_r = vec![false; names.layer_count];
    for (dir, name) in cell_r {
        if dir == "..." {
            break;
        }
        let mask = names
            .object_masks
            .get(name)
            .ok_or_else(|| Fault::at(line, format!("unknown name \"{name}\"")))?;
        if dir == "random" {
            bits::or_into(&mut random_objects, mask);
            continue;
        }
        if dir == "no" {
            bits::or_into(&mut clear, mask);
            continue;
        }
        let Some(layer) = layer_of(names, name) else {
            return Err(Fault::at(
                line,
                format!("\"{}\" spans several layers", name.to_uppercase()),
            ));
        };
        used_r[layer] = true;
        if !dir.is_empty() {
            bits::mov_or(&mut moves_layers, layer, 0x1f);
        }
        if let Some(&(id, _)) = names.objects.get(name) {
            bits::set(&mut set, id);
            bits::or_into(&mut clear, &names.layer_masks[layer]);
            bits::mov_or(&mut layers_r, layer, 0x1f);
        }
        match dir.as_str() {
            "stationary" => bits::mov_or(&mut moves_clear, layer, 0x1f),
            "randomdir" => bits::mov_or(&mut random_dirs, layer, dir_bits(dir)),
            _ => bits::mov_or(&mut moves_set, layer, dir_bits(dir)),
        }
    }
    if !bits::contains(&set, present) {
        bits::or_into(&mut clear, present);
    }
    if !bits::contains(&moves_set, moves_present) {
        bits::or_into(&mut moves_clear, moves_present);
    }
    for layer in 0..names.layer_count {
        if used_l[layer] && !used_r[layer] {
            bits::or_into(&mut clear, &names.layer_masks[layer]);
            bits::mov_or(&mut moves_layers, layer, 0x1f);
        }
    }
    bits::clear_into(&mut layers_l, &layers_r);
    bits::or_into(&mut moves_layers, &layers_l);
    let changes = [&clear, &set, &random_objects]
        .iter()
        .chain([&moves_clear, &moves_set, &moves_layers, &random_dirs].iter())
        .any(|m| !bits::is_zero(m));
    if !changes {
        return Ok(None);
    }
    // The movements, built layer by layer, in the engine's slots
    // (`MoveSlots`), and the layers they touch for the analyses by layer.
    let n = names.layer_count;
    let moved_layers = move_slots::layers_of(&[&moves_set, &moves_layers, &random_dirs], n);
    let move_written_layers =
        move_slots::layers_of(&[&moves_set, &moves_clear, &moves_layers, &random_dirs], n);
    let slots = &names.move_slots;
    let mut r = Replacement::new([
        clear,
        set,
        slots.written(&moves_clear),
        slots.written(&moves_set),
        slots.written(&moves_layers),
        random_objects,
        slots.written(&random_dirs),
    ]);
    (r.moved_layers, r.move_written_layers) = (moved_layers, move_written_layers);
    Ok(Some(r))
}

/// Groups rules by group number (late rules apart) and computes loop points.
pub fn arrange(rules: Vec<Rule>, lates: &[bool], loops: &[(usize, bool)]) -> (RuleSet, RuleSet) {
    let mut normal: Vec<Vec<Rule>> = Vec::new();
    let mut late: Vec<Vec<Rule>> = Vec::new();
    for (rule, &is_late) in rules.into_iter().zip(lates) {
        let target = if is_late { &mut late } else { &mut normal };
        match target.iter_mut().find(|g| g[0].group == rule.group) {
            Some(g) => g.push(rule),
            None => target.push(vec![rule]),
        }
    }
    normal.sort_by_key(|g| g[0].group);
    late.sort_by_key(|g| g[0].group);
    let points = |groups: &Vec<Vec<Rule>>| loop_points(groups, loops);
    let (np, lp) = (points(&normal), points(&late));
    (
        RuleSet {
            groups: normal,
            loop_point: np,
            settles: Vec::new(),
            replayable: Vec::new(),
            cell_runs: Vec::new(),
        },
        RuleSet {
            groups: late,
            loop_point: lp,
            settles: Vec::new(),
            replayable: Vec::new(),
            cell_runs: Vec::new(),
        },
    )
}

fn loop_points(groups: &[Vec<Rule>], loops: &[(usize, bool)]) -> Vec<Option<usize>> {
    let mut point = vec![None; groups.len()];
    for pair in loops.chunks(2) {
        let start = pair[0].0;
        let end = pair.get(1).map_or(start, |p| p.0);
        let mut first = None;
        for (gi, g) in groups.iter().enumerate() {
            let line = g[0].line;
            if end < line {
                break;
            }
            if start <= line && line <= end {
                let init = *first.get_or_insert(gi);
                if gi > 0 && point[gi - 1] == Some(init) {
                    point[gi - 1] = None;
                }
                point[gi] = Some(init);
            }
        }
    }
    point
}
