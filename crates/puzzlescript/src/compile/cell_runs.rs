//! Runs of cell-local groups: consecutive groups whose rules each read and
//! write one cell alone, which the engine applies in one pass over the
//! board's cells instead of one search of the board per rule
//! (`engine::cell_runs`).
//!
//! A rule is cell-local when it is one row of one cell (its matches are
//! distinct cells, and each writes its own cell alone), its writes are
//! plain words that set no movement, and it has no command, no random
//! choice and no rigid mark. A group of such rules that settles in one pass
//! (`super::settle::settles`) runs exactly one pass: its fixpoint stops
//! after a pass that changed the board, and after one that changed nothing.
//! That pass applies each rule in turn at every cell it matches; since a
//! rule's application at one cell reads and writes that cell alone, the
//! board it leaves is the one left by taking the cells one at a time and
//! applying every rule at each in turn. The same holds for consecutive such
//! groups, whose passes follow each other: the engine takes each cell once
//! and applies the run's rules there in order.

use super::program::{Rule, RuleSet};

/// The most rules one run holds (the engine keeps one bit per rule).
pub const MAX_RUN_RULES: usize = 64;

/// The fewest rules of a run on boards of one object word (two on wider
/// ones). The pass tests each rule at the cells that hold its object,
/// where the searches one by one skip the lines that hold none with a test
/// of one word: there, a run of a few rules cost more than their searches
/// (pipe puffer's decoration of two rules +4% instructions, Sexual
/// Intercourse's of six +3%; Pocket Gopher's runs of 15 to 20 -7%). On
/// boards of several object words a search costs more (ecosystem
/// generator's runs of thirteen rules and of two, -22% together).
pub const MIN_RUN_RULES: usize = 8;

/// True when `rule` reads and writes one cell alone (see the module's
/// documentation).
pub fn cell_local(rule: &Rule) -> bool {
    rule.single_cell()
        .is_some_and(|p| p.moves_present.iter().all(|&m| m == 0))
        && rule.has_replacements
        && rule.writes.plain
        && rule.commands.is_empty()
        && !rule.random
        && !rule.rigid
        && !rule.fires_everywhere
        && rule.narrow.is_none()
        && rule
            .writes
            .rows
            .iter()
            .flat_map(|row| row.iter())
            .all(|w| w.plain.is_some_and(|p| p.moves_set == 0))
}

/// Per group of `set`, the number of groups from it that run as one pass
/// over the cells: each cell-local, settling in one pass, not random and
/// not the end of a loop, at least [`MIN_RUN_RULES`] rules in all (two on
/// boards of several object words, `obj_words`) and at most
/// [`MAX_RUN_RULES`]; zero where no such run starts. Reads `set.settles`,
/// so it runs after them.
pub fn runs(set: &RuleSet, obj_words: usize) -> Vec<u32> {
    let least = match obj_words {
        1 => MIN_RUN_RULES,
        _ => 2,
    };
    let local = |gi: usize| {
        let group = &set.groups[gi];
        set.settles.get(gi).copied().unwrap_or(false)
            && set.loop_point.get(gi).copied().flatten().is_none()
            && group.first().is_some_and(|r| !r.random)
            && group.iter().all(cell_local)
    };
    let n = set.groups.len();
    (0..n)
        .map(|start| {
            let (mut groups, mut rules) = (0, 0);
            for gi in (start..n).take_while(|&gi| local(gi)) {
                let size = set.groups[gi].len();
                if rules + size > MAX_RUN_RULES {
                    break;
                }
                groups += 1;
                rules += size;
            }
            if rules >= least && groups >= 2 {
                groups
            } else {
                0
            }
        })
        .collect()
}
