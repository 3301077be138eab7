//! The section state machine: which section a line belongs to, and the
//! readers of the prelude, COLLISIONLAYERS, RULES, WINCONDITIONS and LEVELS.

use super::lines::{column_of, words};
use super::objects::ObjectReader;
use super::{syntax, Line, Parsed, RawLevel, RuleLine};
use crate::Error;

const SECTIONS: [&str; 7] = [
    "objects",
    "legend",
    "sounds",
    "collisionlayers",
    "rules",
    "winconditions",
    "levels",
];

const VALUE_KEYS: [&str; 12] = [
    "title",
    "author",
    "homepage",
    "background_color",
    "text_color",
    "key_repeat_interval",
    "realtime_interval",
    "again_interval",
    "flickscreen",
    "zoomscreen",
    "color_palette",
    "youtube",
];

const FLAG_KEYS: [&str; 10] = [
    "run_rules_on_level_start",
    "norepeat_action",
    "require_player_movement",
    "debug",
    "verbose_logging",
    "throttle_movement",
    "noundo",
    "noaction",
    "norestart",
    "scanline",
];

/// Reads lines one by one into a [`Parsed`].
pub struct SectionParser {
    file: String,
    section: Option<usize>,
    visited: Vec<usize>,
    objects: ObjectReader,
    parsed: Parsed,
    /// True while the current level's rows are being read.
    in_level: bool,
}

impl SectionParser {
    /// A parser for the file named `file`.
    pub fn new(file: &str) -> SectionParser {
        SectionParser {
            file: file.to_string(),
            section: None,
            visited: Vec::new(),
            objects: ObjectReader::default(),
            parsed: Parsed::default(),
            in_level: false,
        }
    }

    /// Reads one line.
    pub fn line(&mut self, line: &Line) -> Result<(), Error> {
        let code = line.code.trim();
        if code.is_empty() {
            self.blank(line);
            return Ok(());
        }
        let is_levels = self.section == Some(6);
        if code.chars().all(|c| c == '=' || c.is_whitespace()) {
            return Ok(());
        }
        if !is_levels {
            if let Some(index) = section_header(code) {
                return self.enter(index, line);
            }
            if let Some(meant) = misspelled_header(line) {
                return Err(syntax(
                    &self.file,
                    line.number,
                    column_of(line, code),
                    format!(
                        "unknown section header \"{}\" (did you mean {}? the sections are {})",
                        line.original.trim(),
                        meant.to_uppercase(),
                        SECTIONS.map(str::to_uppercase).join(", ")
                    ),
                ));
            }
        }
        match self.section {
            None => self.prelude(line),
            Some(0) => self.objects.line(&self.file, line, &mut self.parsed),
            Some(1) => self.objects.legend(&self.file, line, &mut self.parsed),
            Some(2) => Ok(()),
            Some(3) => self.layer(line),
            Some(4) => {
                self.rule(line);
                Ok(())
            }
            Some(5) => self.wincondition(line),
            _ => self.level(line),
        }
    }

    fn blank(&mut self, line: &Line) {
        // Only a line of whitespace is blank for the reference: a line that is
        // all comment neither ends a level nor an object's sprite.
        if !line.original.trim().is_empty() {
            return;
        }
        match self.section {
            Some(6) => self.in_level = false,
            Some(0) => self.objects.blank(),
            _ => {}
        }
    }

    fn enter(&mut self, index: usize, line: &Line) -> Result<(), Error> {
        if self.visited.contains(&index) {
            return Err(syntax(
                &self.file,
                line.number,
                1,
                format!("section {} appears twice", SECTIONS[index].to_uppercase()),
            ));
        }
        if index > 0 && !self.visited.contains(&(index - 1)) {
            return Err(syntax(
                &self.file,
                line.number,
                1,
                format!(
                    "section {} must follow section {}",
                    SECTIONS[index].to_uppercase(),
                    SECTIONS[index - 1].to_uppercase()
                ),
            ));
        }
        self.visited.push(index);
        self.section = Some(index);
        self.objects.blank();
        Ok(())
    }

    fn prelude(&mut self, line: &Line) -> Result<(), Error> {
        let code = line.code.trim();
        let key: String = code
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if VALUE_KEYS.contains(&key.as_str()) {
            let start = line.code.find(&key).unwrap_or(0) + key.len();
            let cut = line.first_comment.unwrap_or(line.original.len());
            let value = line
                .original
                .get(start..cut.max(start))
                .unwrap_or("")
                .trim();
            let value = if matches!(key.as_str(), "title" | "author" | "homepage") {
                value.to_string()
            } else {
                value.to_lowercase()
            };
            self.parsed.metadata.push((key, value));
            Ok(())
        } else if FLAG_KEYS.contains(&key.as_str()) {
            self.parsed.metadata.push((key, "true".to_string()));
            Ok(())
        } else {
            Err(syntax(
                &self.file,
                line.number,
                column_of(line, code),
                format!("unrecognised prelude entry \"{code}\""),
            ))
        }
    }

    fn layer(&mut self, line: &Line) -> Result<(), Error> {
        let mut layer = Vec::new();
        for (column, word) in words(&line.code, |c| c == ',' || c.is_whitespace()) {
            let mut names = self.objects.expand_for_layer(&self.parsed, word);
            if names.is_empty() {
                return Err(syntax(
                    &self.file,
                    line.number,
                    column,
                    format!("cannot add \"{word}\" to a collision layer: it is not an object or a property"),
                ));
            }
            layer.append(&mut names);
        }
        self.parsed.layers.push(layer);
        Ok(())
    }

    fn rule(&mut self, line: &Line) {
        // The reference reads a rule up to the first comment on its line.
        let cut = line.first_comment.unwrap_or(line.code.len());
        let text = line.code.get(..cut).unwrap_or(&line.code).to_string();
        self.parsed.rules.push(RuleLine {
            text,
            original: line.original.clone(),
            line: line.number,
        });
    }

    fn wincondition(&mut self, line: &Line) -> Result<(), Error> {
        let words: Vec<String> = line.code.split_whitespace().map(str::to_string).collect();
        let valid = matches!(words.len(), 2 | 4)
            && matches!(words[0].as_str(), "all" | "any" | "no" | "some")
            && (words.len() == 2 || words[2] == "on");
        if !valid {
            return Err(syntax(
                &self.file,
                line.number,
                column_of(line, line.code.trim()),
                "a win condition looks like \"all crate on target\", \"some gem\" or \"no fire\"",
            ));
        }
        self.parsed.winconditions.push((words, line.number));
        Ok(())
    }

    fn level(&mut self, line: &Line) -> Result<(), Error> {
        let code = line.code.trim();
        if let Some(text) = message_text(line) {
            self.parsed.levels.push(RawLevel::Message(text));
            self.in_level = false;
            return Ok(());
        }
        let cut = line.first_comment.unwrap_or(line.code.len());
        let row: Vec<char> = line
            .code
            .get(..cut)
            .unwrap_or(code)
            .trim()
            .chars()
            .collect();
        if row.is_empty() {
            return Ok(());
        }
        match self.parsed.levels.last_mut() {
            Some(RawLevel::Rows { rows, .. }) if self.in_level => rows.push(row),
            _ => {
                self.parsed.levels.push(RawLevel::Rows {
                    line: line.number,
                    rows: vec![row],
                });
                self.in_level = true;
            }
        }
        Ok(())
    }

    /// Checks the sections that every game needs and returns the game.
    pub fn finish(self) -> Result<Parsed, Error> {
        if self.visited.is_empty() {
            return Err(syntax(&self.file, 1, 1, "no OBJECTS section found"));
        }
        if !self.visited.contains(&6) {
            return Err(syntax(
                &self.file,
                1,
                1,
                "no LEVELS section found: a game needs one, after WINCONDITIONS",
            ));
        }
        Ok(self.parsed)
    }
}

/// The section a header line opens, if it is one.
fn section_header(code: &str) -> Option<usize> {
    let word: String = code
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let index = SECTIONS.iter().position(|s| *s == word)?;
    let rest = code[word.len()..].trim();
    rest.is_empty().then_some(index)
}

/// The section a line written as a header, in capitals and alone on its
/// line, most likely meant when it names none (`OBJECT`, `COLLISIONLAYER`):
/// a section name at most two edits away. Lower-case words are left alone
/// (an object may well be called `rule` in a layer).
fn misspelled_header(line: &Line) -> Option<&'static str> {
    let word = line.original.trim();
    let capitals = word.chars().all(|c| c.is_ascii_uppercase());
    if word.len() < 4 || !capitals {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    SECTIONS
        .into_iter()
        .find(|s| *s != lower && edit_distance(s, &lower) <= 2)
}

/// Levenshtein distance over bytes (both words are short ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let replaced = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = replaced.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The text of a `message` level line, as written.
fn message_text(line: &Line) -> Option<String> {
    let lower = line.original.to_lowercase();
    let t = lower.trim_start();
    let after = t.strip_prefix("message")?;
    if after
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
    {
        return None;
    }
    let offset = line.original.len() - after.len();
    Some(line.original.get(offset..).unwrap_or("").trim().to_string())
}
