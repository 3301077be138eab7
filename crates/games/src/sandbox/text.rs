//! The sandbox level files: parsing and canonical writing of specifications
//! (`sandbox spec`) and instances (`sandbox instance`), several per file.

use super::level::{HiddenToken, Instance, Spec, Token};
use super::rules::{Rules, TokenKind, ValueKind, ARROW_GLYPHS};
use crate::GamesError;

/// One level of a file: a specification or an instance, with its first line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// A `sandbox spec` block.
    Spec(Spec, usize),
    /// A `sandbox instance` block.
    Instance(Instance, usize),
}

impl Block {
    /// The block's title.
    pub fn title(&self) -> &str {
        match self {
            Block::Spec(s, _) => &s.title,
            Block::Instance(i, _) => &i.title,
        }
    }
}

/// True when `text` is meant to be a sandbox file: a line opens a sandbox block. Any
/// such line counts, not only the first, so that a damaged file gets the sandbox's error
/// and position rather than Sokoban's.
pub fn looks_like(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .any(|l| l.starts_with("sandbox spec") || l.starts_with("sandbox instance"))
}

/// A line of the file with its 1-based number.
type Line<'a> = (usize, &'a str);

/// Parses every block of a file.
pub fn parse(file: &str, text: &str) -> Result<Vec<Block>, GamesError> {
    let lines: Vec<Line> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let mut blocks = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let end = (start + 1..lines.len())
            .find(|&i| lines[i].1.starts_with("sandbox "))
            .unwrap_or(lines.len());
        blocks.push(parse_block(file, &lines[start..end])?);
        start = end;
    }
    if blocks.is_empty() {
        return Err(syntax(
            file,
            1,
            "no `sandbox spec` or `sandbox instance` block found",
        ));
    }
    Ok(blocks)
}

fn syntax(file: &str, line: usize, message: &str) -> GamesError {
    GamesError::Syntax {
        file: file.to_string(),
        line,
        column: 1,
        message: message.to_string(),
        excerpt: String::new(),
    }
}

fn parse_block(file: &str, lines: &[Line]) -> Result<Block, GamesError> {
    let (first, header) = lines[0];
    match header {
        "sandbox spec" => parse_spec(file, lines).map(|s| Block::Spec(s, first)),
        "sandbox instance" => parse_instance(file, lines).map(|i| Block::Instance(i, first)),
        _ => Err(syntax(
            file,
            first,
            &format!("expected `sandbox spec` or `sandbox instance`, found {header:?}"),
        )),
    }
}

/// Reads a number, naming the line on failure.
fn number<T: std::str::FromStr>(
    file: &str,
    line: usize,
    what: &str,
    word: Option<&str>,
) -> Result<T, GamesError> {
    let word = word.ok_or_else(|| syntax(file, line, &format!("{what} is missing a number")))?;
    word.parse().map_err(|_| {
        syntax(
            file,
            line,
            &format!("{what}: {word:?} is not a valid number"),
        )
    })
}

fn parse_rule(
    file: &str,
    line: usize,
    rules: &mut Rules,
    words: &[&str],
) -> Result<(), GamesError> {
    match words {
        [name, value] => rules.set(name, value).map_err(|m| syntax(file, line, &m)),
        _ => Err(syntax(file, line, "a rule line reads `rule NAME VALUE`")),
    }
}

fn parse_spec(file: &str, lines: &[Line]) -> Result<Spec, GamesError> {
    let mut spec = Spec::empty("", 0);
    let mut side_seen = false;
    for &(line, text) in &lines[1..] {
        let words: Vec<&str> = text.split_whitespace().collect();
        let arg = words.get(1).copied();
        match words[0] {
            "title" => spec.title = text["title".len()..].trim().to_string(),
            "side" => {
                spec.side = number(file, line, "side", arg)?;
                side_seen = true;
            }
            "moves" => spec.moves = Some(number(file, line, "moves", arg)?),
            "values" => spec.values = (number(file, line, "values", arg)?, number(file, line, "values", words.get(2).copied())?),
            "walls" => spec.walls = number(file, line, "walls", arg)?,
            "seed" => spec.seed = number(file, line, "seed", arg)?,
            "tokens" => read_counts(file, line, &words[1..], &mut spec.counts)?,
            "hidden" => read_counts(file, line, &words[1..], &mut spec.hidden)?,
            "rule" => parse_rule(file, line, &mut spec.rules, &words[1..])?,
            other => return Err(syntax(file, line, &format!("unknown specification line {other:?} (expected title, side, moves, values, tokens, hidden, walls, seed or rule)"))),
        }
    }
    if !side_seen {
        return Err(syntax(
            file,
            lines[0].0,
            "the specification has no `side` line",
        ));
    }
    spec.check().map_err(|m| syntax(file, lines[0].0, &m))?;
    Ok(spec)
}

/// Reads `KIND COUNT KIND COUNT ...` into `counts`.
fn read_counts(
    file: &str,
    line: usize,
    words: &[&str],
    counts: &mut [u16; 12],
) -> Result<(), GamesError> {
    if words.len() % 2 == 1 {
        return Err(syntax(
            file,
            line,
            "token counts read `KIND COUNT KIND COUNT ...`",
        ));
    }
    for pair in words.chunks(2) {
        let kind = TokenKind::from_name(pair[0]).ok_or_else(|| {
            let known: Vec<&str> = TokenKind::ALL.iter().map(|k| k.name()).collect();
            syntax(
                file,
                line,
                &format!(
                    "unknown token kind {:?} (known: {})",
                    pair[0],
                    known.join(", ")
                ),
            )
        })?;
        counts[usize::from(kind.code())] = number(file, line, kind.name(), Some(pair[1]))?;
    }
    Ok(())
}

fn parse_instance(file: &str, lines: &[Line]) -> Result<Instance, GamesError> {
    let mut inst = Instance {
        title: String::new(),
        side: 0,
        moves: 0,
        rules: Rules::default(),
        start: 0,
        walls: Vec::new(),
        tokens: Vec::new(),
        hidden: Vec::new(),
    };
    let mut moves = None;
    let mut rows: Vec<Line> = Vec::new();
    let mut in_board = false;
    let mut hidden_lines = Vec::new();
    for &(line, text) in &lines[1..] {
        let words: Vec<&str> = text.split_whitespace().collect();
        let arg = words.get(1).copied();
        match words[0] {
            "title" => inst.title = text["title".len()..].trim().to_string(),
            "side" => inst.side = number(file, line, "side", arg)?,
            "moves" => moves = Some(number(file, line, "moves", arg)?),
            "rule" => parse_rule(file, line, &mut inst.rules, &words[1..])?,
            "board" => in_board = true,
            "hidden" => hidden_lines.push((line, words)),
            _ if in_board => rows.push((line, text)),
            other => return Err(syntax(file, line, &format!("unknown instance line {other:?} (expected title, side, moves, rule, board, board rows or hidden)"))),
        }
    }
    super::level::check_side(inst.side).map_err(|m| syntax(file, lines[0].0, &m))?;
    inst.moves = moves.unwrap_or_else(|| super::level::default_moves(inst.side));
    read_board(file, lines[0].0, &rows, &mut inst)?;
    for (line, words) in hidden_lines {
        inst.hidden
            .push(read_hidden(file, line, &words, inst.side)?);
    }
    inst.check().map_err(|m| syntax(file, lines[0].0, &m))?;
    Ok(inst)
}

fn read_board(
    file: &str,
    header: usize,
    rows: &[Line],
    inst: &mut Instance,
) -> Result<(), GamesError> {
    let side = usize::from(inst.side);
    if rows.len() != side {
        return Err(syntax(
            file,
            rows.first().map_or(header, |r| r.0),
            &format!("the board has {} rows, the side is {side}", rows.len()),
        ));
    }
    let mut start = None;
    for (r, &(line, text)) in rows.iter().enumerate() {
        let cells: Vec<&str> = text.split_whitespace().collect();
        if cells.len() != side {
            return Err(syntax(
                file,
                line,
                &format!(
                    "this board row has {} squares, the side is {side}",
                    cells.len()
                ),
            ));
        }
        for (c, code) in cells.iter().enumerate() {
            let cell = (r * side + c) as u8;
            match *code {
                ".." => {}
                "[]" => inst.walls.push(cell),
                "@@" if start.is_none() => start = Some(cell),
                "@@" => return Err(syntax(file, line, "a second start square `@@`")),
                _ => inst.tokens.push(read_token(file, line, code, cell)?),
            }
        }
    }
    inst.start = start.ok_or_else(|| syntax(file, header, "the board has no start square `@@`"))?;
    Ok(())
}

/// Reads a two-character token cell such as `B3`, `G.` or `A^`.
fn read_token(file: &str, line: usize, code: &str, cell: u8) -> Result<Token, GamesError> {
    let bad = || {
        syntax(file, line, &format!("{code:?} is not a square (`..`, `[]`, `@@` or a token letter and its number, e.g. `B3`, `G.`, `A^`)"))
    };
    let mut chars = code.chars();
    let (Some(letter), Some(mark), None) = (chars.next(), chars.next(), chars.next()) else {
        return Err(bad());
    };
    let kind = TokenKind::from_letter(letter).ok_or_else(bad)?;
    let value = match kind.value_kind() {
        ValueKind::None if mark == '.' => 0,
        ValueKind::Direction => ARROW_GLYPHS
            .iter()
            .position(|&g| g == mark)
            .ok_or_else(bad)? as u8,
        ValueKind::Strength | ValueKind::Pair => mark.to_digit(10).ok_or_else(bad)? as u8,
        ValueKind::None => return Err(bad()),
    };
    Ok(Token { cell, kind, value })
}

/// Reads `hidden CODE at ROW COL by ROW COL` (1-based rows and columns).
fn read_hidden(
    file: &str,
    line: usize,
    words: &[&str],
    side: u8,
) -> Result<HiddenToken, GamesError> {
    let shape =
        "a hidden token reads `hidden CODE at ROW COLUMN by ROW COLUMN` (the green token's square)";
    let [_, code, "at", r, c, "by", gr, gc] = words else {
        return Err(syntax(file, line, shape));
    };
    let square = |r: &str, c: &str| -> Result<u8, GamesError> {
        let r: u8 = number(file, line, "row", Some(r))?;
        let c: u8 = number(file, line, "column", Some(c))?;
        if r == 0 || c == 0 || r > side || c > side {
            return Err(syntax(
                file,
                line,
                &format!("row {r} column {c} is off the {side}x{side} board"),
            ));
        }
        Ok((r - 1) * side + (c - 1))
    };
    let cell = square(r, c)?;
    Ok(HiddenToken {
        token: read_token(file, line, code, cell)?,
        green: square(gr, gc)?,
    })
}

/// The two characters of a token on the board.
pub fn token_code(t: &Token) -> String {
    let mark = match t.kind.value_kind() {
        ValueKind::None => '.',
        ValueKind::Direction => ARROW_GLYPHS
            .get(usize::from(t.value))
            .copied()
            .unwrap_or('?'),
        _ => char::from_digit(u32::from(t.value), 10).unwrap_or('?'),
    };
    format!("{}{mark}", t.kind.letter())
}

/// The canonical text of an instance; parsing it gives the instance back.
pub fn instance_text(inst: &Instance) -> String {
    let mut out = format!(
        "sandbox instance\ntitle {}\nside {}\nmoves {}\n",
        inst.title, inst.side, inst.moves
    );
    for (name, value) in inst.rules.entries() {
        out.push_str(&format!("rule {name} {value}\n"));
    }
    out.push_str("board\n");
    let side = usize::from(inst.side);
    let mut cells = vec!["..".to_string(); inst.cells()];
    for &w in &inst.walls {
        cells[usize::from(w)] = "[]".to_string();
    }
    for t in &inst.tokens {
        cells[usize::from(t.cell)] = token_code(t);
    }
    cells[usize::from(inst.start)] = "@@".to_string();
    for row in cells.chunks(side) {
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    let rc = |cell: u8| format!("{} {}", cell / inst.side + 1, cell % inst.side + 1);
    for h in &inst.hidden {
        out.push_str(&format!(
            "hidden {} at {} by {}\n",
            token_code(&h.token),
            rc(h.token.cell),
            rc(h.green)
        ));
    }
    out
}

/// The canonical text of a specification.
pub fn spec_text(spec: &Spec) -> String {
    let mut out = format!("sandbox spec\ntitle {}\nside {}\n", spec.title, spec.side);
    if let Some(m) = spec.moves {
        out.push_str(&format!("moves {m}\n"));
    }
    out.push_str(&format!("values {} {}\n", spec.values.0, spec.values.1));
    out.push_str(&format!("tokens{}\n", counts_text(&spec.counts)));
    if spec.hidden.iter().any(|&c| c > 0) {
        out.push_str(&format!("hidden{}\n", counts_text(&spec.hidden)));
    }
    out.push_str(&format!("walls {}\nseed {}\n", spec.walls, spec.seed));
    for (name, value) in spec.rules.entries() {
        out.push_str(&format!("rule {name} {value}\n"));
    }
    out
}

fn counts_text(counts: &[u16; 12]) -> String {
    TokenKind::ALL
        .iter()
        .filter(|k| counts[usize::from(k.code())] > 0)
        .map(|k| format!(" {} {}", k.name(), counts[usize::from(k.code())]))
        .collect()
}
