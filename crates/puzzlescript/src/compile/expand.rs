//! Rule expansion as the reference performs it: one rule per scan direction,
//! relative directions made absolute, up and left rules turned into down and
//! right ones, aggregates and synonyms replaced by objects, then every
//! ambiguous movement (`moving`, `horizontal`, `parallel`...) and every
//! property that must be told apart expanded into concrete rules, in the
//! reference's order (which decides the order rules run in).

use super::fault::Fault;
use std::collections::VecDeque;

use super::names::Names;
use super::rule_text::{Cell, Draft};

fn direction_aggregate(word: &str) -> Option<&'static [&'static str]> {
    Some(match word {
        "horizontal" | "horizontal_par" | "horizontal_perp" => &["left", "right"],
        "vertical" | "vertical_par" | "vertical_perp" => &["up", "down"],
        "moving" => &["up", "down", "left", "right", "action"],
        "orthogonal" => &["up", "down", "left", "right"],
        "perpendicular" => &["^", "v"],
        "parallel" => &["<", ">"],
        _ => return None,
    })
}

fn relative(forward: &str, word: &str) -> Option<&'static str> {
    let index = ["^", "v", "<", ">", "parallel", "perpendicular"]
        .iter()
        .position(|w| *w == word)?;
    let row: [&str; 6] = match forward {
        "right" => [
            "up",
            "down",
            "left",
            "right",
            "horizontal_par",
            "vertical_perp",
        ],
        "up" => [
            "left",
            "right",
            "down",
            "up",
            "vertical_par",
            "horizontal_perp",
        ],
        "down" => [
            "right",
            "left",
            "up",
            "down",
            "vertical_par",
            "horizontal_perp",
        ],
        _ => [
            "down",
            "up",
            "right",
            "left",
            "horizontal_par",
            "vertical_perp",
        ],
    };
    Some(row[index])
}

/// The most rules one rule line may expand into, the intermediate ones of
/// the expansion counted: one four-cell rule of `moving` objects of a
/// four-object property expands into millions (6 GB before this bound).
pub const MAX_EXPANSION: usize = 100_000;

/// The most rules a whole game may expand into.
pub const MAX_RULES: usize = 400_000;

/// What a rule line may still expand into.
struct Budget {
    line: usize,
    left: usize,
}

impl Budget {
    /// Counts one more rule made by the expansion.
    fn spend(&mut self) -> Result<(), Fault> {
        match self.left.checked_sub(1) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(Fault::at(
                self.line,
                format!(
                    "the rule expands into more than {MAX_EXPANSION} rules (each ambiguous \
                     movement and property multiplies them): split it into several rules"
                ),
            )),
        }
    }
}

/// Expands drafts into rules with one absolute direction each and no
/// ambiguous movement; properties stay only where one layer holds them all.
/// Each draft goes through every step before the next (the order of the
/// result is the reference's, which runs each step over all rules), so that
/// a rule that expands past its budget is stopped before it fills memory.
pub fn expand(drafts: &[Draft], names: &Names) -> Result<Vec<Draft>, Fault> {
    let mut out = Vec::new();
    for d in drafts {
        let mut budget = Budget {
            line: d.line,
            left: MAX_EXPANSION,
        };
        for dir in &d.directions {
            let mut r = d.clone();
            r.directions = vec![dir.clone()];
            absolutify(&mut r);
            rewrite_up_left(&mut r);
            atomize(&mut r, names)?;
            rephrase_synonyms(&mut r, names);
            for concrete in concretize_moving(r, &mut budget)? {
                for mut rule in concretize_properties(concrete, names, &mut budget)? {
                    spawned_objects_stationary(&mut rule, names);
                    out.push(rule);
                }
            }
            if out.len() > MAX_RULES {
                return Err(Fault::at(
                    d.line,
                    format!("the game's rules expand into more than {MAX_RULES} rules"),
                ));
            }
        }
    }
    Ok(out)
}

fn cells_mut(r: &mut Draft) -> impl Iterator<Item = &mut Cell> {
    r.lhs.iter_mut().chain(r.rhs.iter_mut()).flatten()
}

fn absolutify(r: &mut Draft) {
    let forward = r.directions[0].clone();
    for cell in cells_mut(r) {
        for (dir, _) in cell.iter_mut() {
            if let Some(abs) = relative(&forward, dir) {
                *dir = abs.to_string();
            }
        }
    }
}

fn has_ellipsis(r: &Draft) -> bool {
    r.lhs
        .iter()
        .flatten()
        .any(|c| c.first().is_some_and(|(_, n)| n == "..."))
}

fn rewrite_up_left(r: &mut Draft) {
    if has_ellipsis(r) {
        return;
    }
    let new = match r.directions[0].as_str() {
        "up" => "down",
        "left" => "right",
        _ => return,
    };
    r.directions[0] = new.to_string();
    for row in r.lhs.iter_mut().chain(r.rhs.iter_mut()) {
        row.reverse();
    }
}

fn atomize(r: &mut Draft, names: &Names) -> Result<(), Fault> {
    let line = r.line;
    let all_names = names.aggregates.len() + names.objects.len() + names.properties.len() + 1;
    for cell in cells_mut(r) {
        let limit = cell.len().saturating_mul(all_names);
        let mut i = 0;
        while i < cell.len() {
            if let Some(members) = names.aggregate(&cell[i].1) {
                if cell[i].0 == "no" {
                    return Err(Fault::at(
                        line,
                        format!(
                            "'no' cannot exclude the aggregate {}",
                            cell[i].1.to_uppercase()
                        ),
                    ));
                }
                let dir = cell[i].0.clone();
                cell[i].1 = members[0].clone();
                for m in &members[1..] {
                    cell.push((dir.clone(), m.clone()));
                }
                // Aggregates that name each other (what a fuzzed game's
                // synonyms made of its legend) would push members forever:
                // past 20 GB before this bound. A cell of real aggregates
                // never holds more entries than there are names.
                if cell.len() > limit {
                    return Err(Fault::at(
                        line,
                        format!(
                            "the aggregates of a cell name each other ({} among them)",
                            cell[i].1.to_uppercase()
                        ),
                    ));
                }
            }
            i += 1;
        }
    }
    Ok(())
}

fn rephrase_synonyms(r: &mut Draft, names: &Names) {
    for cell in cells_mut(r) {
        for (_, name) in cell.iter_mut() {
            if let Some(s) = names.synonyms.get(name.as_str()) {
                *name = s.clone();
            }
        }
    }
}

/// Bookkeeping of one expansion: which ambiguous movement of which object
/// became which direction, and how often it occurred.
/// One ambiguous movement of one object: ((object, ambiguous word),
/// concrete direction, occurrences, row, cell).
type ObjectMove = ((String, String), String, usize, usize, usize);

/// A rule being expanded with its property replacements: (property, concrete, occurrences).
type PropertyDraft = (Draft, Vec<(String, String, usize)>);

#[derive(Clone, Default)]
struct Moves {
    /// Each object's ambiguous movement and what it became.
    by_object: Vec<ObjectMove>,
    /// (ambiguous, concrete, count)
    by_word: Vec<(String, String, usize)>,
}

fn movings(cell: &Cell) -> Option<(String, String)> {
    cell.iter()
        .find(|(dir, _)| direction_aggregate(dir).is_some())
        .map(|(dir, name)| (name.clone(), dir.clone()))
}

fn replace_moving(cell: &mut Cell, ambiguous: &str, name: &str, concrete: &str) {
    for (dir, n) in cell.iter_mut() {
        if dir == ambiguous && n == name {
            *dir = concrete.to_string();
        }
    }
}

fn concretize_moving(rule: Draft, budget: &mut Budget) -> Result<Vec<Draft>, Fault> {
    // The reference keeps one array, appends a rule's expansions at its end
    // and removes the rule: the rules left are the final ones in the order
    // they were added, which a queue gives in linear time.
    let mut queue: VecDeque<(Draft, Option<Moves>)> = VecDeque::from([(rule, None)]);
    let mut result: Vec<(Draft, Option<Moves>)> = Vec::new();
    while let Some((cur, cur_moves)) = queue.pop_front() {
        let mut expanded = false;
        for j in 0..cur.lhs.len() {
            for k in 0..cur.lhs[j].len() {
                let Some((name, ambiguous)) = movings(&cur.lhs[j][k]) else {
                    continue;
                };
                expanded = true;
                for concrete in direction_aggregate(&ambiguous).unwrap_or(&[]) {
                    budget.spend()?;
                    let mut new = cur.clone();
                    let mut moves = cur_moves.clone().unwrap_or_default();
                    replace_moving(&mut new.lhs[j][k], &ambiguous, &name, concrete);
                    if let Some(cell) = new.rhs.get_mut(j).and_then(|row| row.get_mut(k)) {
                        replace_moving(cell, &ambiguous, &name, concrete);
                    }
                    let key = (name.clone(), ambiguous.clone());
                    match moves.by_object.iter_mut().find(|m| m.0 == key) {
                        None => moves.by_object.push((key, concrete.to_string(), 1, j, k)),
                        Some(m) if m.3 != j || m.4 != k => m.2 += 1,
                        Some(_) => {}
                    }
                    match moves.by_word.iter_mut().find(|m| m.0 == ambiguous) {
                        None => moves
                            .by_word
                            .push((ambiguous.clone(), concrete.to_string(), 1)),
                        Some(m) => m.2 += 1,
                    }
                    queue.push_back((new, Some(moves)));
                }
            }
        }
        if !expanded {
            result.push((cur, cur_moves));
        }
    }
    let mut out = Vec::new();
    for (mut r, moves) in result {
        if let Some(moves) = moves {
            for ((name, ambiguous), concrete, count, _, _) in &moves.by_object {
                if *count == 1 {
                    for cell in r.rhs.iter_mut().flatten() {
                        replace_moving(cell, ambiguous, name, concrete);
                    }
                }
            }
            for (ambiguous, concrete, count) in &moves.by_word {
                if *count == 1 {
                    for cell in r.rhs.iter_mut().flatten() {
                        for (dir, _) in cell.iter_mut() {
                            if dir == ambiguous {
                                *dir = concrete.clone();
                            }
                        }
                    }
                }
            }
        }
        if let Some((_, dir)) = r.rhs.iter().flatten().find_map(movings) {
            return Err(Fault::at(
                r.line,
                format!("the movement \"{dir}\" on the right cannot be inferred from the left"),
            ));
        }
        out.push(r);
    }
    Ok(out)
}

fn properties_in(cell: &Cell, names: &Names) -> Vec<String> {
    cell.iter()
        .filter(|(dir, name)| dir != "random" && names.property(name).is_some())
        .map(|(_, name)| name.clone())
        .collect()
}

fn replace_property(cell: &mut Cell, property: &str, concrete: &str) {
    for (dir, name) in cell.iter_mut() {
        if name == property && dir != "random" {
            *name = concrete.to_string();
        }
    }
}

fn expand_no_properties(cell: &Cell, names: &Names) -> Cell {
    let mut out = Vec::new();
    for (dir, name) in cell {
        match names.property(name) {
            Some(members) if dir == "no" => {
                out.extend(members.iter().map(|m| (dir.clone(), m.clone())));
            }
            _ => out.push((dir.clone(), name.clone())),
        }
    }
    out
}

fn concretize_properties(
    mut rule: Draft,
    names: &Names,
    budget: &mut Budget,
) -> Result<Vec<Draft>, Fault> {
    for row in rule.lhs.iter_mut().chain(rule.rhs.iter_mut()) {
        for cell in row.iter_mut() {
            *cell = expand_no_properties(cell, names);
        }
    }
    let mut ambiguous: Vec<String> = Vec::new();
    for (row_l, row_r) in rule.lhs.iter().zip(&rule.rhs) {
        for (cl, cr) in row_l.iter().zip(row_r) {
            let left = properties_in(cl, names);
            for p in properties_in(cr, names) {
                if !left.contains(&p) && !ambiguous.contains(&p) {
                    ambiguous.push(p);
                }
            }
        }
    }
    // (rule, replacements: (property, concrete, count)), expanded through a
    // queue as in `concretize_moving`.
    let mut queue: VecDeque<PropertyDraft> = VecDeque::from([(rule, Vec::new())]);
    let mut result: Vec<PropertyDraft> = Vec::new();
    while let Some((cur, reps)) = queue.pop_front() {
        let mut expanded = false;
        'cells: for j in 0..cur.lhs.len() {
            for k in 0..cur.lhs[j].len() {
                for property in properties_in(&cur.lhs[j][k], names) {
                    if names.single_layer.contains_key(&property) && !ambiguous.contains(&property)
                    {
                        continue;
                    }
                    expanded = true;
                    for concrete in names.property(&property).cloned().unwrap_or_default() {
                        budget.spend()?;
                        let mut new = cur.clone();
                        let mut new_reps = reps.clone();
                        replace_property(&mut new.lhs[j][k], &property, &concrete);
                        if let Some(cell) = new.rhs.get_mut(j).and_then(|row| row.get_mut(k)) {
                            replace_property(cell, &property, &concrete);
                        }
                        match new_reps.iter_mut().find(|r| r.0 == property) {
                            None => new_reps.push((property.clone(), concrete.clone(), 1)),
                            Some(r) => r.2 += 1,
                        }
                        queue.push_back((new, new_reps));
                    }
                    break 'cells;
                }
            }
        }
        if !expanded {
            result.push((cur, reps));
        }
    }
    let mut out = Vec::new();
    for (mut r, reps) in result {
        for (property, concrete, count) in &reps {
            if *count == 1 {
                for cell in r.rhs.iter_mut().flatten() {
                    replace_property(cell, property, concrete);
                }
            }
        }
        let unresolved = r.rhs.iter().flatten().any(|c| {
            properties_in(c, names)
                .iter()
                .any(|p| ambiguous.contains(p))
        });
        if unresolved {
            // The reference drops such a rule (with an error) and goes on.
            return Ok(Vec::new());
        }
        out.push(r);
    }
    Ok(out)
}

fn spawned_objects_stationary(r: &mut Draft, names: &Names) {
    if r.late {
        return;
    }
    for (row_l, row_r) in r.lhs.iter().zip(r.rhs.iter_mut()) {
        for (cl, cr) in row_l.iter().zip(row_r.iter_mut()) {
            let mut possible: Vec<&str> = Vec::new();
            for (_, name) in cl {
                if names.objects.contains_key(name) {
                    possible.push(name);
                } else if let Some(members) = names.property(name) {
                    possible.extend(members.iter().map(String::as_str));
                }
            }
            let layers: Vec<Option<usize>> = possible.iter().map(|n| names.layer_of(n)).collect();
            for (dir, name) in cr.iter_mut() {
                if !dir.is_empty()
                    || names.property(name).is_some()
                    || possible.contains(&name.as_str())
                {
                    continue;
                }
                if let Some(layer) = names.layer_of(name) {
                    if !layers.contains(&Some(layer)) {
                        *dir = "stationary".to_string();
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: aggregates that name each other (what a fuzzed game's synonyms made
    /// of its legend) had their members pushed into a cell forever, past 20 GB.
    #[test]
    fn aggregates_that_name_each_other_are_an_error_not_a_loop() {
        let names = Names {
            aggregates: vec![
                ("a".into(), vec!["crate".into(), "b".into()]),
                ("b".into(), vec!["player".into(), "a".into()]),
            ],
            ..Names::default()
        };
        let mut draft = Draft {
            directions: vec!["right".into()],
            lhs: vec![vec![vec![(String::new(), "a".into())]]],
            rhs: Vec::new(),
            line: 7,
            late: false,
            rigid: false,
            group: 7,
            commands: Vec::new(),
            random: false,
        };
        let err = atomize(&mut draft, &names).unwrap_err();
        assert_eq!(err.line, Some(7));
        assert!(
            err.message
                .starts_with("the aggregates of a cell name each other"),
            "{err:?}"
        );
    }
}
