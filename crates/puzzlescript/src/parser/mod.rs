//! The PuzzleScript parser: splits a game's text into its sections and reads
//! each line the way the reference editor's tokenizer does (case-folded,
//! nested `( )` comments, `===` rows ignored), producing a [`Parsed`] game
//! whose names are still unresolved.

mod lines;
mod objects;
mod sections;

pub use lines::Line;

use std::collections::HashMap;

use crate::Error;

/// One object as declared in OBJECTS.
#[derive(Clone, Debug)]
pub struct ObjectDef {
    /// Lower-case name.
    pub name: String,
    /// Line of the declaration.
    pub line: usize,
    /// Colours as written (names or `#rrggbb`).
    pub colors: Vec<String>,
    /// Sprite rows of `.` and digits, possibly empty.
    pub sprite: Vec<String>,
}

/// A LEGEND entry: a synonym (`a = b`), an aggregate (`and`) or a property (`or`).
#[derive(Clone, Debug)]
pub struct LegendDef {
    /// The defined name.
    pub name: String,
    /// The names it stands for, in order.
    pub values: Vec<String>,
    /// Line of the definition.
    pub line: usize,
}

/// A level as written: a message or rows of glyphs.
#[derive(Clone, Debug)]
pub enum RawLevel {
    /// A `message` line between levels.
    Message(String),
    /// Rows of legend characters, with the line of the first row.
    Rows {
        /// Line of the first row.
        line: usize,
        /// The rows, case-folded and trimmed.
        rows: Vec<Vec<char>>,
    },
}

/// A rule line as written (case-folded, comments removed).
#[derive(Clone, Debug)]
pub struct RuleLine {
    /// The rule's text.
    pub text: String,
    /// The original text of the line (for messages).
    pub original: String,
    /// One-based line number.
    pub line: usize,
}

/// A game read from text, names unresolved.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// Prelude entries in order: key and value (`"true"` for flags).
    pub metadata: Vec<(String, String)>,
    /// OBJECTS in declaration order.
    pub objects: Vec<ObjectDef>,
    /// `a = b` entries (also the aliases written beside an object's name).
    pub synonyms: Vec<LegendDef>,
    /// `a = b and c` entries, with synonyms and aggregates already substituted.
    pub aggregates: Vec<LegendDef>,
    /// `a = b or c` entries, the first two values substituted.
    pub properties: Vec<LegendDef>,
    /// COLLISIONLAYERS, each a list of object names.
    pub layers: Vec<Vec<String>>,
    /// RULES lines, loop markers included.
    pub rules: Vec<RuleLine>,
    /// WINCONDITIONS: the words of each line and its line number.
    pub winconditions: Vec<(Vec<String>, usize)>,
    /// LEVELS entries, messages included.
    pub levels: Vec<RawLevel>,
    /// Where the first definition of each name of each kind is: the legend
    /// is looked up by name in constant time (a legend of 20,000 chained
    /// entries was minutes of linear searches).
    index: NameIndex,
}

/// The position of the first definition of a name, per kind.
#[derive(Clone, Debug, Default)]
struct NameIndex {
    objects: HashMap<String, usize>,
    synonyms: HashMap<String, usize>,
    aggregates: HashMap<String, usize>,
    properties: HashMap<String, usize>,
}

impl Parsed {
    /// True when `name` is an object or a legend name.
    pub fn is_declared(&self, name: &str) -> bool {
        let i = &self.index;
        i.objects.contains_key(name)
            || i.synonyms.contains_key(name)
            || i.aggregates.contains_key(name)
            || i.properties.contains_key(name)
    }

    /// The object called `name`.
    pub fn object(&self, name: &str) -> Option<&ObjectDef> {
        self.index.objects.get(name).map(|&i| &self.objects[i])
    }

    /// The first synonym called `name`.
    pub fn synonym(&self, name: &str) -> Option<&LegendDef> {
        self.index.synonyms.get(name).map(|&i| &self.synonyms[i])
    }

    /// The first aggregate called `name`.
    pub fn aggregate(&self, name: &str) -> Option<&LegendDef> {
        self.index
            .aggregates
            .get(name)
            .map(|&i| &self.aggregates[i])
    }

    /// The first property called `name`.
    pub fn property(&self, name: &str) -> Option<&LegendDef> {
        self.index
            .properties
            .get(name)
            .map(|&i| &self.properties[i])
    }

    /// Adds an object.
    pub fn push_object(&mut self, o: ObjectDef) {
        self.index
            .objects
            .entry(o.name.clone())
            .or_insert(self.objects.len());
        self.objects.push(o);
    }

    /// Adds a synonym.
    pub fn push_synonym(&mut self, d: LegendDef) {
        self.index
            .synonyms
            .entry(d.name.clone())
            .or_insert(self.synonyms.len());
        self.synonyms.push(d);
    }

    /// Adds an aggregate.
    pub fn push_aggregate(&mut self, d: LegendDef) {
        self.index
            .aggregates
            .entry(d.name.clone())
            .or_insert(self.aggregates.len());
        self.aggregates.push(d);
    }

    /// Adds a property.
    pub fn push_property(&mut self, d: LegendDef) {
        self.index
            .properties
            .entry(d.name.clone())
            .or_insert(self.properties.len());
        self.properties.push(d);
    }
}

/// Parses the text of a game; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Parsed, Error> {
    let mut parser = sections::SectionParser::new(file);
    for line in lines::split(text) {
        parser.line(&line)?;
    }
    parser.finish()
}

/// A syntax error at a line and column.
pub(crate) fn syntax(file: &str, line: usize, column: usize, message: impl Into<String>) -> Error {
    Error::Syntax {
        file: file.to_string(),
        line,
        column,
        message: message.into(),
    }
}
