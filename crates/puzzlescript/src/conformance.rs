//! Replays conformance cases (one JSON object a line, as in the shared
//! `testdata.jsonl` taken from the reference's test suite) and reports which
//! pass, with the first differing cell of those that do not.

use serde::Deserialize;

use crate::engine::session::{Input, Session};
use crate::text_form::first_difference;
use crate::Error;

#[derive(Deserialize)]
struct Case {
    name: String,
    source: String,
    inputs: Vec<serde_json::Value>,
    expected: String,
    #[serde(default)]
    level: Option<serde_json::Value>,
    #[serde(default)]
    seed: Option<serde_json::Value>,
}

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// True when the final level equals the expected text form.
    pub passed: bool,
    /// Where the first difference is: `(text line, cell)` from 1.
    pub first_difference: Option<(usize, usize)>,
    /// Why the case could not be run (compile error, bad input), if so.
    pub error: Option<String>,
}

/// The outcome of a file of cases.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One result per case, in file order.
    pub cases: Vec<CaseResult>,
}

impl Report {
    /// Number of passing cases.
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.passed).count()
    }

    /// Number of failing cases.
    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed()
    }
}

/// Reads and replays a cases file.
pub fn run_file(path: &std::path::Path) -> Result<Report, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        file: path.display().to_string(),
        source,
    })?;
    run_text(&path.display().to_string(), &text)
}

/// Replays the cases in `text`; `file` names it in errors.
pub fn run_text(file: &str, text: &str) -> Result<Report, Error> {
    let mut report = Report::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line).map_err(|e| Error::Cases {
            file: file.to_string(),
            line: i + 1,
            message: e.to_string(),
        })?;
        report.cases.push(run_case(&case));
    }
    Ok(report)
}

fn parse_inputs(values: &[serde_json::Value]) -> Result<Vec<Input>, String> {
    values
        .iter()
        .map(|v| {
            let word = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Input::parse(&word).ok_or_else(|| format!("unknown input {word}"))
        })
        .collect()
}

/// A JSON number or string as the text the reference would stringify.
fn number(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn run_case(case: &Case) -> CaseResult {
    let failed = |error: String| CaseResult {
        name: case.name.clone(),
        passed: false,
        first_difference: None,
        error: Some(error),
    };
    let game = match crate::compile(&case.name, &case.source) {
        Ok(g) => g,
        Err(e) => return failed(e.to_string()),
    };
    let inputs = match parse_inputs(&case.inputs) {
        Ok(i) => i,
        Err(e) => return failed(e),
    };
    let level = match &case.level {
        None => 0,
        Some(v) => match number(v).and_then(|s| s.parse::<usize>().ok()) {
            Some(l) => l,
            None => return failed(format!("bad level {v}")),
        },
    };
    let seed = case.seed.as_ref().and_then(number);
    let mut session = match Session::new(&game, level, seed.as_deref()) {
        Ok(s) => s,
        Err(e) => return failed(e.to_string()),
    };
    for input in inputs {
        session.input(input);
    }
    if let Some(overrun) = session.fault() {
        return failed(overrun.to_string());
    }
    let actual = session.text_form();
    let diff = first_difference(&case.expected, &actual);
    CaseResult {
        name: case.name.clone(),
        passed: diff.is_none(),
        first_difference: diff,
        error: None,
    }
}

/// A conformance case (one JSON line of the shared `testdata.jsonl` format)
/// that replays `inputs` on playable level `number` (from 1) of the game
/// `source` and expects the level the reference's harness then shows (after
/// a win, the next level), with the default seed. A designer keeps it as a
/// regression test that [`run_text`] replays.
pub fn case_line(
    name: &str,
    file: &str,
    source: &str,
    number: usize,
    inputs: &[crate::Input],
) -> Result<String, Error> {
    let game = crate::compile(file, source)?;
    let Some(info) = crate::list_levels(&game)
        .into_iter()
        .find(|l| l.number == number)
    else {
        return Err(Error::Level {
            file: file.to_string(),
            message: format!("no playable level {number}"),
        });
    };
    let mut session = Session::new(&game, info.index, None)?;
    let mut codes = Vec::new();
    for &input in inputs {
        session.input(input);
        codes.push(match input.code() {
            Some(c) => serde_json::Value::from(c),
            None => serde_json::Value::from(format!("{input:?}").to_lowercase()),
        });
    }
    let case = serde_json::json!({
        "name": name,
        "source": source,
        "level": info.index,
        "inputs": codes,
        "expected": session.text_form(),
    });
    Ok(case.to_string())
}
