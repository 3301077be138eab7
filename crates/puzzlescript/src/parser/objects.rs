//! OBJECTS and LEGEND: object names with their colours and sprites, and the
//! legend's synonyms, aggregates (`and`) and properties (`or`), substituted
//! as the reference does while it reads them.

use super::lines::{column_of, words};
use super::{syntax, LegendDef, Line, ObjectDef, Parsed};
use crate::Error;

/// What the next line of OBJECTS is expected to hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Expect {
    /// An object's name.
    #[default]
    Name,
    /// Its colours.
    Colors,
    /// Sprite rows, or the next object's name.
    Sprite,
}

/// Reader state for OBJECTS and LEGEND.
#[derive(Debug, Default)]
pub struct ObjectReader {
    expect: Expect,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl ObjectReader {
    /// A blank line ends the current object.
    pub fn blank(&mut self) {
        self.expect = Expect::Name;
    }

    /// Reads one line of OBJECTS.
    pub fn line(&mut self, file: &str, line: &Line, parsed: &mut Parsed) -> Result<(), Error> {
        let code = line.code.trim();
        match self.expect {
            Expect::Name => self.name_line(file, line, parsed),
            Expect::Colors => {
                let colors = code.split_whitespace().map(str::to_string).collect();
                if let Some(o) = parsed.objects.last_mut() {
                    o.colors = colors;
                }
                self.expect = Expect::Sprite;
                Ok(())
            }
            Expect::Sprite => {
                let is_row = code.chars().all(|c| c == '.' || c.is_ascii_digit());
                let sprite_empty = parsed.objects.last().is_none_or(|o| o.sprite.is_empty());
                if !is_row && sprite_empty {
                    return self.name_line(file, line, parsed);
                }
                if !is_row {
                    return Err(syntax(
                        file,
                        line.number,
                        column_of(line, code),
                        "a sprite row holds only '.' and colour digits",
                    ));
                }
                if let Some(o) = parsed.objects.last_mut() {
                    o.sprite.push(code.to_string());
                    if o.sprite.len() >= 5 {
                        self.expect = Expect::Name;
                    }
                }
                Ok(())
            }
        }
    }

    fn name_line(&mut self, file: &str, line: &Line, parsed: &mut Parsed) -> Result<(), Error> {
        let tokens = words(&line.code, char::is_whitespace);
        let Some(&(column, name)) = tokens.first() else {
            return Ok(());
        };
        if !name.chars().all(is_word_char) {
            // The reference warns about such junk and skips it.
            return Ok(());
        }
        if parsed.object(name).is_some() {
            return Err(syntax(
                file,
                line.number,
                column,
                format!("object \"{}\" defined twice", name.to_uppercase()),
            ));
        }
        parsed.push_object(ObjectDef {
            name: name.to_string(),
            line: line.number,
            colors: Vec::new(),
            sprite: Vec::new(),
        });
        for &(_, alias) in &tokens[1..] {
            parsed.push_synonym(LegendDef {
                name: alias.to_string(),
                values: vec![name.to_string()],
                line: line.number,
            });
        }
        self.expect = Expect::Colors;
        Ok(())
    }

    /// Reads one line of LEGEND.
    pub fn legend(&mut self, file: &str, line: &Line, parsed: &mut Parsed) -> Result<(), Error> {
        let code = line.code.trim();
        let err = |column: usize, message: String| Err(syntax(file, line.number, column, message));
        let Some((lhs, rhs)) = code.split_once('=') else {
            return err(
                column_of(line, code),
                "a legend entry looks like \"a = b\", \"a = b or c\" or \"a = b and c\"".into(),
            );
        };
        let name = lhs.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return err(column_of(line, code), format!("bad legend name \"{name}\""));
        }
        // A name defined twice is an error in the reference, which keeps going
        // with the first definition wherever names are looked up.
        let tokens: Vec<&str> = rhs.split_whitespace().collect();
        if tokens.is_empty() || tokens.len().is_multiple_of(2) {
            return err(column_of(line, code), "incomplete legend entry".into());
        }
        let joiner = tokens.get(1).copied();
        for (i, t) in tokens.iter().enumerate() {
            if i % 2 == 1 && Some(*t) != joiner {
                return err(
                    column_of(line, t),
                    "mix of 'and' and 'or', or a missing one".into(),
                );
            }
            if i % 2 == 0 && !parsed.is_declared(t) {
                return err(
                    column_of(line, t),
                    format!("\"{}\" is not defined", t.to_uppercase()),
                );
            }
        }
        let names: Vec<String> = tokens.iter().step_by(2).map(|t| t.to_string()).collect();
        let def = |values| LegendDef {
            name: name.to_string(),
            values,
            line: line.number,
        };
        match joiner {
            None => parsed.push_synonym(def(names)),
            Some("and") => {
                let mut values = Vec::new();
                for n in &names {
                    values.extend(
                        substitute_and(parsed, n)
                            .map_err(|m| syntax(file, line.number, column_of(line, n), m))?,
                    );
                }
                parsed.push_aggregate(def(values));
            }
            Some("or") => {
                let mut values = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    // The reference substitutes the first two names only.
                    if i < 2 {
                        values.extend(
                            substitute_or(parsed, n)
                                .map_err(|m| syntax(file, line.number, column_of(line, n), m))?,
                        );
                    } else {
                        values.push(n.clone());
                    }
                }
                // A chain `PrI = Pr(I-1) or Target` would list Target I times
                // (20,000 entries: 4 GB): each member is kept once, at its
                // first place, as the reference's compiler keeps it when it
                // splices one property into another.
                let mut seen = std::collections::HashSet::new();
                values.retain(|v| seen.insert(v.clone()));
                parsed.push_property(def(values));
            }
            Some(other) => {
                return err(
                    column_of(line, other),
                    format!("expected AND or OR, found \"{other}\""),
                )
            }
        }
        Ok(())
    }

    /// The objects a COLLISIONLAYERS name stands for (empty when it is not
    /// an object, a synonym or a property).
    pub fn expand_for_layer(&self, parsed: &Parsed, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![name.to_string()];
        let mut steps = 0;
        while let Some(n) = stack.pop() {
            steps += 1;
            if steps > 10_000 {
                break;
            }
            if parsed.object(&n).is_some() {
                out.push(n);
            } else if let Some(s) = parsed.synonym(&n) {
                stack.extend(s.values.iter().rev().cloned());
            } else if let Some(p) = parsed.property(&n) {
                stack.extend(p.values.iter().rev().filter(|v| **v != n).cloned());
            }
        }
        out
    }
}

/// Expands a name inside an `and` entry into objects.
fn substitute_and(parsed: &Parsed, name: &str) -> Result<Vec<String>, String> {
    if parsed.object(name).is_some() {
        return Ok(vec![name.to_string()]);
    }
    if let Some(s) = parsed.synonym(name) {
        let mut out = Vec::new();
        for v in &s.values {
            out.extend(substitute_and(parsed, v)?);
        }
        return Ok(out);
    }
    if let Some(a) = parsed.aggregate(name) {
        return Ok(a.values.clone());
    }
    Err(format!(
        "cannot define an aggregate ('and') in terms of the property \"{}\" ('or')",
        name.to_uppercase()
    ))
}

/// Expands a name inside an `or` entry into objects.
fn substitute_or(parsed: &Parsed, name: &str) -> Result<Vec<String>, String> {
    if parsed.object(name).is_some() {
        return Ok(vec![name.to_string()]);
    }
    if let Some(s) = parsed.synonym(name) {
        let mut out = Vec::new();
        for v in &s.values {
            out.extend(substitute_or(parsed, v)?);
        }
        return Ok(out);
    }
    if parsed.aggregate(name).is_some() {
        return Err(format!(
            "cannot define a property ('or') in terms of the aggregate \"{}\" ('and')",
            name.to_uppercase()
        ));
    }
    if let Some(p) = parsed.property(name) {
        // Members were defined before this entry, so the recursion ends.
        let mut out = Vec::new();
        for v in p.values.iter().filter(|v| *v != name) {
            out.extend(substitute_or(parsed, v)?);
        }
        return Ok(out);
    }
    Ok(vec![name.to_string()])
}
