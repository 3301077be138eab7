//! The compiler: resolves names, expands and compiles rules, reads levels and
//! win conditions into a [`Compiled`] game ready for the engine.

pub mod cell_runs;
mod expand;
mod fault;
pub mod inert;
mod masks;
pub mod move_slots;
pub mod names;
pub mod one_per_layer;
pub mod program;
pub mod row_tests;
pub mod rule_text;
pub mod settle;
pub mod write_list;
pub mod writes;

use crate::bits;
use crate::parser::{self, Parsed, RawLevel};
use crate::Error;
pub use fault::Fault;
pub use names::Names;
pub use program::{
    CellPattern, NarrowCell, NarrowRule, PatternCell, Replacement, Rule, RuleSet, SourceRule,
    WordBits, WordTest,
};
pub use rule_text::Command;

/// A level's starting grid: `width * height` cells stored column by column
/// (index `x * height + y`, as the reference stores them), each cell
/// `obj_words` words of object bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Object words, cell after cell.
    pub cells: Vec<u64>,
}

/// An entry of LEVELS.
#[derive(Clone, Debug)]
pub enum Level {
    /// A message shown between levels.
    Message(String),
    /// A playable level.
    Grid(Grid),
}

/// A win condition: `no`, `some` or `all` objects of one set (on another).
#[derive(Clone, Debug)]
pub struct WinCondition {
    /// -1 for `no`, 0 for `some`/`any`, 1 for `all`.
    pub quantifier: i8,
    /// The first set.
    pub first: Vec<u64>,
    /// True when every object of the first set is required (an aggregate).
    pub first_all: bool,
    /// The set after `on` (every object when absent).
    pub second: Vec<u64>,
    /// True when every object of the second set is required.
    pub second_all: bool,
}

/// The prelude switches the engine obeys.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `run_rules_on_level_start`.
    pub run_rules_on_level_start: bool,
    /// `noaction`.
    pub noaction: bool,
    /// `noundo`.
    pub noundo: bool,
    /// `norestart`.
    pub norestart: bool,
    /// `require_player_movement`.
    pub require_player_movement: bool,
    /// `realtime_interval`, in seconds.
    pub realtime_interval: Option<f64>,
    /// `color_palette`: a palette's name or number, as written.
    pub color_palette: Option<String>,
}

/// A compiled game.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The source name.
    pub file: String,
    /// The title, if the prelude gives one.
    pub title: Option<String>,
    /// Names and masks.
    pub names: Names,
    /// Words of an object set.
    pub obj_words: usize,
    /// Words of a movement set.
    pub mov_words: usize,
    /// The rules run before movement.
    pub rules: RuleSet,
    /// The late rules.
    pub late_rules: RuleSet,
    /// For each group of `rules`, its rigid index (for groups holding a rigid rule).
    pub rigid_index: Vec<Option<usize>>,
    /// Group index of each rigid index.
    pub rigid_groups: Vec<usize>,
    /// Win conditions.
    pub win_conditions: Vec<WinCondition>,
    /// Every entry of LEVELS.
    pub levels: Vec<Level>,
    /// Prelude switches.
    pub flags: Flags,
    /// The first colour of each object by id, as written.
    pub colors: Vec<String>,
    /// Every rule line, in the order written (loop markers left out); each
    /// compiled rule names its line's index here ([`Rule::source`]).
    pub rule_sources: Vec<SourceRule>,
    /// True when no cell of any level ever holds two objects of one layer
    /// ([`one_per_layer`]), which the rules' writes rely on: set, with the
    /// writes, by [`one_per_layer::index_writes`] whenever the levels or
    /// the replacements change.
    pub one_per_layer: bool,
}

impl Compiled {
    /// The names of the inert objects (see [`inert`]), in id order.
    pub fn inert_names(&self) -> Vec<String> {
        inert::find(self)
            .iter()
            .zip(&self.names.id_dict)
            .filter(|(&inert, _)| inert)
            .map(|(_, name)| name.clone())
            .collect()
    }

    /// The game without its inert objects, and their names (none: the game
    /// itself).
    pub fn without_inert(self) -> (Compiled, Vec<String>) {
        let inert = inert::find(&self);
        if !inert.contains(&true) {
            return (self, Vec::new());
        }
        let names = self
            .names
            .id_dict
            .iter()
            .zip(&inert)
            .filter(|(_, &i)| i)
            .map(|(n, _)| n.clone())
            .collect();
        (inert::strip(&self, &inert), names)
    }
}

/// Parses and compiles a game.
pub fn compile(file: &str, text: &str) -> Result<Compiled, Error> {
    compile_with(file, text, true)
}

/// [`compile`] with a movement field for every layer, whether or not it
/// can move, as before [`move_slots`]: for the tests that compare the two.
#[doc(hidden)]
pub fn compile_every_layer_moving(file: &str, text: &str) -> Result<Compiled, Error> {
    compile_with(file, text, false)
}

/// [`compile`], with movement fields for the layers that can move alone
/// when `compact` holds (see [`move_slots`]).
fn compile_with(file: &str, text: &str, compact: bool) -> Result<Compiled, Error> {
    let parsed = parser::parse(file, text)?;
    let cerr = |fault: Fault| Error::Compile {
        file: file.to_string(),
        line: fault.line,
        column: fault.column,
        message: fault.message,
    };
    if parsed.layers.is_empty() {
        return Err(cerr("no collision layers defined".into()));
    }
    let mut names = names::resolve(&parsed).map_err(cerr)?;
    let mut drafts = Vec::new();
    let mut loops = Vec::new();
    for line in &parsed.rules {
        match rule_text::read_rule(line, &names.all_names, drafts.last()).map_err(cerr)? {
            rule_text::RuleItem::Rule(d) => drafts.push(d),
            rule_text::RuleItem::Loop(start, l) => loops.push((l, start)),
        }
    }
    check_loops(&loops).map_err(cerr)?;
    let rule_sources = sources(&parsed, &drafts);
    let source_of: std::collections::HashMap<usize, usize> = rule_sources
        .iter()
        .enumerate()
        .map(|(i, s)| (s.line, i))
        .collect();
    let expanded = masks::remove_duplicates(expand::expand(&drafts, &names).map_err(cerr)?);
    // Movement fields for the layers that can move alone, before any mask
    // of a movement is built.
    if compact {
        names.move_slots = move_slots::MoveSlots::of(&expanded, &names);
    }
    let mut rules = Vec::new();
    let mut lates = Vec::new();
    for d in &expanded {
        if let Some(mut r) = masks::compile_rule(d, &names).map_err(cerr)? {
            r.source = source_of.get(&d.line).copied().unwrap_or(0);
            rules.push(r);
            lates.push(d.late);
        }
    }
    let (mut rules, mut late_rules) = masks::arrange(rules, &lates, &loops);
    let all = rules.groups.iter_mut().chain(late_rules.groups.iter_mut());
    let mut classes = std::collections::HashMap::new();
    for (index, rule) in all.flatten().enumerate() {
        rule.index = index;
        if let Some(test) = rule.anchored_row.and_then(|r| rule.anchor_tests.get(r)) {
            let next = classes.len() as u32;
            rule.anchor_class = *classes.entry(*test).or_insert(next);
        }
    }
    let mut rigid_index = vec![None; rules.groups.len()];
    let mut rigid_groups = Vec::new();
    for (gi, g) in rules.groups.iter().enumerate() {
        if g.iter().any(|r| r.rigid) {
            rigid_index[gi] = Some(rigid_groups.len());
            rigid_groups.push(gi);
        }
    }
    if rigid_groups.len() > 30 {
        return Err(cerr("at most 30 rule groups may hold rigid rules".into()));
    }
    let win_conditions = win_conditions(&parsed, &names).map_err(cerr)?;
    let levels = levels(&parsed, &names).map_err(cerr)?;
    let colors = names
        .id_dict
        .iter()
        .map(|n| {
            parsed
                .object(n)
                .and_then(|o| o.colors.first().cloned())
                .unwrap_or_default()
        })
        .collect();
    let mut game = Compiled {
        file: file.to_string(),
        title: meta(&parsed, "title").map(str::to_string),
        obj_words: names.obj_words,
        mov_words: names.move_slots.words(),
        names,
        rules,
        late_rules,
        rigid_index,
        rigid_groups,
        win_conditions,
        levels,
        flags: flags(&parsed),
        colors,
        rule_sources,
        one_per_layer: false,
    };
    one_per_layer::index_writes(&mut game);
    Ok(game)
}

/// The rule lines as written, one per draft (a draft is one line), their
/// text case-folded, without comments and with runs of blanks made one.
fn sources(parsed: &Parsed, drafts: &[rule_text::Draft]) -> Vec<SourceRule> {
    let text_of: std::collections::HashMap<usize, String> = parsed
        .rules
        .iter()
        .map(|r| {
            (
                r.line,
                r.text.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect();
    drafts
        .iter()
        .map(|d| SourceRule {
            line: d.line,
            text: text_of.get(&d.line).cloned().unwrap_or_default(),
            late: d.late,
            decorative: false,
        })
        .collect()
}

fn meta<'a>(parsed: &'a Parsed, key: &str) -> Option<&'a str> {
    parsed
        .metadata
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn flags(parsed: &Parsed) -> Flags {
    let has = |k: &str| meta(parsed, k).is_some();
    Flags {
        run_rules_on_level_start: has("run_rules_on_level_start"),
        noaction: has("noaction"),
        noundo: has("noundo"),
        norestart: has("norestart"),
        require_player_movement: has("require_player_movement"),
        realtime_interval: meta(parsed, "realtime_interval").and_then(|v| v.parse().ok()),
        color_palette: meta(parsed, "color_palette").map(str::to_string),
    }
}

fn check_loops(loops: &[(usize, bool)]) -> Result<(), Fault> {
    for (i, (line, start)) in loops.iter().enumerate() {
        if *start != (i % 2 == 0) {
            return Err(Fault::at(
                *line,
                "STARTLOOP and ENDLOOP must alternate".into(),
            ));
        }
    }
    if loops.len() % 2 == 1 {
        return Err(Fault::at(
            loops[loops.len() - 1].0,
            "STARTLOOP without ENDLOOP".into(),
        ));
    }
    Ok(())
}

fn win_conditions(parsed: &Parsed, names: &Names) -> Result<Vec<WinCondition>, Fault> {
    let mut out = Vec::new();
    for (words, line) in &parsed.winconditions {
        let quantifier = match words[0].as_str() {
            "no" => -1,
            "all" => 1,
            _ => 0,
        };
        let set = |n: &str| -> Result<(Vec<u64>, bool), Fault> {
            if let Some(m) = names.object_masks.get(n) {
                Ok((m.clone(), false))
            } else if let Some(m) = names.aggregate_masks.get(n) {
                Ok((m.clone(), true))
            } else {
                Err(Fault::at(
                    *line,
                    format!("unknown name \"{n}\" in a win condition"),
                ))
            }
        };
        let (first, first_all) = set(&words[1])?;
        let (second, second_all) = match words.get(3) {
            Some(n) => set(n)?,
            None => (vec![u64::MAX; names.obj_words], false),
        };
        out.push(WinCondition {
            quantifier,
            first,
            first_all,
            second,
            second_all,
        });
    }
    Ok(out)
}

fn levels(parsed: &Parsed, names: &Names) -> Result<Vec<Level>, Fault> {
    let mut out = Vec::new();
    for raw in &parsed.levels {
        match raw {
            RawLevel::Message(m) => out.push(Level::Message(m.clone())),
            RawLevel::Rows { line, rows } => out.push(Level::Grid(grid(*line, rows, names)?)),
        }
    }
    Ok(out)
}

fn grid(line: usize, rows: &[Vec<char>], names: &Names) -> Result<Grid, Fault> {
    let so = names.obj_words;
    let width = rows.first().map_or(0, Vec::len);
    let height = rows.len();
    let mut cells = vec![0u64; width * height * so];
    for x in 0..width {
        for (y, row) in rows.iter().enumerate() {
            let Some(&ch) = row.get(x).or(row.last()) else {
                continue;
            };
            let Some(mask) = names.glyphs.get(&ch) else {
                let why = if names.property(&ch.to_string()).is_some() {
                    "is defined with OR, so it is ambiguous in a level"
                } else {
                    "is not in the legend"
                };
                return Err(Fault {
                    line: Some(line + y),
                    column: Some(x + 1),
                    message: format!("the character '{ch}' {why}"),
                });
            };
            let at = (x * height + y) * so;
            cells[at..at + so].copy_from_slice(mask);
        }
    }
    let (bg_id, bg_layer) = names.background;
    let layer_mask = &names.layer_masks[bg_layer];
    let mut fill = vec![0u64; so];
    bits::set(&mut fill, bg_id);
    if let Some(first) = cells.chunks(so).find(|c| bits::intersects(c, layer_mask)) {
        for (f, (c, m)) in fill.iter_mut().zip(first.iter().zip(layer_mask)) {
            *f = c & m;
        }
    }
    for cell in cells.chunks_mut(so) {
        if !bits::intersects(cell, layer_mask) {
            bits::or_into(cell, &fill);
        }
    }
    Ok(Grid {
        width,
        height,
        cells,
    })
}
