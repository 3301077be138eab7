//! The win conditions, checked over every cell.

use crate::bits;
use crate::compile::{Compiled, WinCondition};

fn holds(set: &[u64], all: bool, cell: &[u64]) -> bool {
    if all {
        bits::contains(cell, set)
    } else {
        bits::intersects(cell, set)
    }
}

/// The one-word case (at most 64 objects), kept free of slices.
fn condition_holds_narrow(c: &WinCondition, objects: &[u64]) -> bool {
    let (f, s) = (c.first[0], c.second[0]);
    let has = |set: u64, all: bool, cell: u64| {
        if all {
            cell & set == set
        } else {
            cell & set != 0
        }
    };
    let both = |&cell: &u64| has(f, c.first_all, cell) && has(s, c.second_all, cell);
    match c.quantifier {
        -1 => !objects.iter().any(both),
        0 => objects.iter().any(both),
        _ => !objects
            .iter()
            .any(|&cell| has(f, c.first_all, cell) && !has(s, c.second_all, cell)),
    }
}

fn condition_holds(c: &WinCondition, objects: &[u64], so: usize) -> bool {
    if so == 1 {
        return condition_holds_narrow(c, objects);
    }
    let mut cells = objects.chunks(so);
    let both =
        |cell: &[u64]| holds(&c.first, c.first_all, cell) && holds(&c.second, c.second_all, cell);
    match c.quantifier {
        -1 => !cells.any(both),
        0 => cells.any(both),
        _ => !cells.any(|cell| {
            holds(&c.first, c.first_all, cell) && !holds(&c.second, c.second_all, cell)
        }),
    }
}

/// True when the game has win conditions and all of them hold.
pub fn satisfied(g: &Compiled, objects: &[u64]) -> bool {
    !g.win_conditions.is_empty()
        && g.win_conditions
            .iter()
            .all(|c| condition_holds(c, objects, g.obj_words))
}

/// The cells each win condition needs to look at in one level: when every
/// object of a condition's first set never changes, only the cells that
/// start with one of them can make the condition fail or hold.
#[derive(Clone, Debug, Default)]
pub struct WinPlan {
    /// Per condition, the cells to check (`None`: every cell).
    cells: Vec<Option<Vec<usize>>>,
    /// Every object some condition names, as one word (all ones when
    /// objects take several words): a turn that adds or removes none of
    /// them anywhere leaves every condition as it was.
    pub objects: u64,
}

impl WinPlan {
    /// The plan for a level starting as `grid`, where `mutable` holds the
    /// objects that may change.
    pub fn new(g: &Compiled, grid: &[u64], mutable: &[u64]) -> WinPlan {
        let so = g.obj_words;
        let cells = g
            .win_conditions
            .iter()
            .map(|c| {
                if bits::intersects(&c.first, mutable) {
                    return None;
                }
                Some(
                    grid.chunks(so)
                        .enumerate()
                        .filter(|(_, cell)| holds(&c.first, c.first_all, cell))
                        .map(|(i, _)| i)
                        .collect(),
                )
            })
            .collect();
        let objects = if so == 1 {
            g.win_conditions
                .iter()
                .map(|c| {
                    c.first.first().copied().unwrap_or(0) | c.second.first().copied().unwrap_or(0)
                })
                .fold(0, |a, b| a | b)
        } else {
            u64::MAX
        };
        WinPlan { cells, objects }
    }

    /// Same as [`satisfied`], looking only at the cells that matter.
    pub fn satisfied(&self, g: &Compiled, objects: &[u64]) -> bool {
        let so = g.obj_words;
        !g.win_conditions.is_empty()
            && g.win_conditions
                .iter()
                .zip(&self.cells)
                .all(|(c, cells)| match cells {
                    None => condition_holds(c, objects, so),
                    Some(cells) if so == 1 => {
                        let f = c.first.first().copied().unwrap_or(0);
                        let s = c.second.first().copied().unwrap_or(0);
                        let has = |set: u64, all: bool, cell: u64| {
                            if all {
                                cell & set == set
                            } else {
                                cell & set != 0
                            }
                        };
                        let both = |&i: &usize| {
                            let cell = objects.get(i).copied().unwrap_or(0);
                            has(f, c.first_all, cell) && has(s, c.second_all, cell)
                        };
                        match c.quantifier {
                            -1 => !cells.iter().any(both),
                            0 => cells.iter().any(both),
                            _ => cells.iter().all(both),
                        }
                    }
                    Some(cells) => {
                        let both = |&i: &usize| {
                            let cell = &objects[i * so..i * so + so];
                            holds(&c.first, c.first_all, cell)
                                && holds(&c.second, c.second_all, cell)
                        };
                        match c.quantifier {
                            -1 => !cells.iter().any(both),
                            0 => cells.iter().any(both),
                            _ => cells.iter().all(both),
                        }
                    }
                })
    }
}

#[cfg(test)]
mod tests {
    use super::WinPlan;

    /// The plan's word names every object of every condition and no other.
    #[test]
    fn the_plan_names_the_objects_of_its_conditions() {
        let text = "title t\n\nOBJECTS\n\nBackground\nblack\n\nTarget\nyellow\n\nWall\nbrown\n\n\
                    Player\nwhite\n\nCrate\norange\n\nLEGEND\n\n. = Background\n# = Wall\nP = Player\n\
                    * = Crate\nO = Target\n\nSOUNDS\n\nCOLLISIONLAYERS\n\nBackground\nTarget\n\
                    Player, Wall, Crate\n\nRULES\n\n[ > Player | Crate ] -> [ > Player | > Crate ]\n\n\
                    WINCONDITIONS\n\nAll Target on Crate\n\nLEVELS\n\n#####\n#P*O#\n#####\n";
        let g = crate::compile("t", text).expect("the game compiles");
        // Every object counted as changing: no cells are looked up.
        let plan = WinPlan::new(&g, &[], &[!0]);
        let id = |name: &str| g.names.objects[name].0;
        assert_eq!(plan.objects, 1 << id("target") | 1 << id("crate"));
    }
}
