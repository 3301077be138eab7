//! The PuzzleScript parser: splits a game's text into its sections and reads
//! each line the way the reference editor's tokenizer does (case-folded,
//! nested `( )` comments, `===` rows ignored), producing a [`Parsed`] game
//! whose names are still unresolved.

mod lines;
mod objects;
mod sections;

pub use lines::Line;

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
}

impl Parsed {
    /// True when `name` is an object or a legend name.
    pub fn is_declared(&self, name: &str) -> bool {
        self.object(name).is_some()
            || self.synonyms.iter().any(|d| d.name == name)
            || self.aggregates.iter().any(|d| d.name == name)
            || self.properties.iter().any(|d| d.name == name)
    }

    /// The object called `name`.
    pub fn object(&self, name: &str) -> Option<&ObjectDef> {
        self.objects.iter().find(|o| o.name == name)
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
