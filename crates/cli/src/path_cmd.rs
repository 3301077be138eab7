//! `hsg path` (a shortest action sequence to a win, a loss or a state) and `hsg why`
//! (the action that lost a lost state), over a stored run and its saved analysis.
//! The algorithms are `hsg::explain`; this file loads, prints and draws.

use crate::analyze_cmd::{ensure_saved, AnalysisFlags};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use hsg::explain::{self, Destination, Walk, Why};
use hsg::{SavedAnalysis, Tag};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use store::Run;

/// How `hsg path` prints the sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PathFormat {
    /// The action labels, space-separated, on one line.
    Actions,
    /// Sokoban's LURD notation (lower case a move, upper case a push).
    Lurd,
    /// State ids, actions and which steps are critical, as JSON.
    Json,
    /// PuzzleScript: the inputs as the reference numbers them (0 up, 1 left, 2 down,
    /// 3 right, 4 action), then a conformance case (one JSON line) that replays them
    /// and expects the level the game then shows; `hsg puzzlescript conformance`
    /// replays it.
    Puzzlescript,
}

/// Arguments of `hsg path`.
#[derive(Args, Debug)]
pub struct PathArgs {
    /// The run directory (analysed first when it has no current analysis).
    pub dir: PathBuf,
    /// Where to go: `win` (nearest target state), `fail` (nearest state of a fail
    /// hyperstate: stuck or lost for good), `dead` (nearest state that can no longer
    /// win: fail or implicitly failed), `hang` (PuzzleScript: the shortest inputs that
    /// start an `again` chain that never ends, the last input being the one that
    /// hangs), or a state id.
    #[arg(long, value_parser = parse_path_to)]
    pub to: PathTo,
    /// The state to start from (default: the root, state 0).
    #[arg(long, value_name = "STATE", default_value_t = 0)]
    pub from: u64,
    /// Output format (default: lurd for Sokoban runs, actions otherwise).
    #[arg(long, value_enum)]
    pub format: Option<PathFormat>,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// Arguments of `hsg why`.
#[derive(Args, Debug)]
pub struct WhyArgs {
    /// The run directory (analysed first when it has no current analysis).
    pub dir: PathBuf,
    /// The lost state to explain (a state id, as `hsg path --format json` or the
    /// workbench show them); its hyperstate must be fail or implicitly failed.
    pub state: u64,
    /// Print JSON instead of text and boards.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// Where `hsg path` goes: a destination of the analysis, or a hang.
#[derive(Clone, Copy, Debug)]
pub enum PathTo {
    /// A destination `hsg::explain` finds.
    Go(Destination),
    /// The first (state, input) whose `again` chain never ends.
    Hang,
}

fn parse_path_to(text: &str) -> Result<PathTo, String> {
    if text == "hang" {
        return Ok(PathTo::Hang);
    }
    parse_destination(text).map(PathTo::Go).map_err(|_| {
        format!("`{text}` is not `win`, `fail`, `dead`, `hang` or a state id (a number)")
    })
}

fn parse_destination(text: &str) -> Result<Destination, String> {
    match text {
        "win" => Ok(Destination::Win),
        "fail" => Ok(Destination::Fail),
        "dead" => Ok(Destination::Dead),
        _ => text
            .parse()
            .map(Destination::State)
            .map_err(|_| format!("`{text}` is not `win`, `fail`, `dead` or a state id (a number)")),
    }
}

/// A stored run with its current saved analysis and the game that renders its states.
pub struct Loaded {
    /// The run.
    pub run: Run,
    /// Its analysis.
    pub saved: SavedAnalysis,
    /// The game, reloaded from the level text the run recorded (`None` if that fails).
    pub game: Option<Box<dyn model::Game>>,
}

impl Loaded {
    /// Opens the run in `dir`, analysing it first when needed.
    pub fn open(dir: &std::path::Path, flags: &AnalysisFlags) -> Result<Loaded> {
        let run = Run::open(dir)?;
        ensure_saved(&run, flags)?;
        let saved = hsg::load(run.dir())
            .with_context(|| format!("cannot read the analysis in {}", dir.display()))?;
        let game = game_of_run(&run);
        Ok(Loaded { run, saved, game })
    }

    /// The action label of `action`.
    pub fn label(&self, action: u16) -> String {
        self.run
            .identity()
            .action_labels
            .get(usize::from(action))
            .cloned()
            .unwrap_or_else(|| format!("#{action}"))
    }

    /// The state drawn by its game, or its bytes in hex without the game.
    pub fn draw(&self, state: u64) -> String {
        if state >= self.run.state_count() {
            return format!("<no state {state}>");
        }
        let record = self.run.state(state);
        match &self.game {
            Some(g) => g.render(record),
            None => record.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// The tag of `state`'s hyperstate.
    pub fn tag(&self, state: u64) -> Option<Tag> {
        explain::tag_of_state(&self.saved, state)
    }

    /// The hyperstate of `state`.
    pub fn hyperstate(&self, state: u64) -> Option<u64> {
        self.saved.component.get(state)
    }
}

/// The game a run was explored with, rebuilt from the level text and options its
/// identity records (`games::reload`), for drawing states.
pub fn game_of_run(run: &Run) -> Option<Box<dyn model::Game>> {
    let id = run.identity();
    games::reload(&id.game, &id.level_text, &id.options).ok()
}

/// Runs `hsg path`.
pub fn path(args: PathArgs) -> Result<ExitCode> {
    let loaded = Loaded::open(&args.dir, &args.analysis)?;
    let is_sokoban = loaded.run.identity().game == "sokoban";
    let format = args.format.unwrap_or(if is_sokoban {
        PathFormat::Lurd
    } else {
        PathFormat::Actions
    });
    if format == PathFormat::Lurd && !is_sokoban {
        return Err(crate::usage::usage(format!(
            "--format lurd is Sokoban's notation; this run is {} (use actions or json)",
            loaded.run.identity().game
        )));
    }
    let (to, hang) = match args.to {
        PathTo::Go(d) => (d, None),
        PathTo::Hang => {
            if args.from != 0 {
                return Err(crate::usage::usage(
                    "--to hang starts from the level's start: leave out --from",
                ));
            }
            let h = first_hang(&loaded)?;
            (Destination::State(h.state), Some(loaded.label(h.action)))
        }
    };
    let states = loaded.saved.summary.states;
    for (flag, state) in [("--from", Some(args.from)), ("--to", state_of(to))] {
        if let Some(s) = state.filter(|&s| s >= states) {
            return Err(crate::usage::usage(format!(
                "{flag} {s}: the run has {states} states (ids 0..{})",
                states.saturating_sub(1)
            )));
        }
    }
    let graph = hsg::RunGraph::new(&loaded.run)?;
    let labels = hsg::labels_of(&loaded.run);
    let target = hsg::target::resolve(&labels.outcomes, Some(&loaded.saved.summary.target), None)?;
    let Some(walk) = explain::path_to(&graph, &loaded.saved, &target, args.from, to) else {
        bail!(
            "no {} is reachable from state {}{}",
            describe(to),
            args.from,
            if loaded.saved.summary.provisional {
                " in what was explored (the run is partial)"
            } else {
                ""
            }
        );
    };
    if let Some(input) = hang {
        return print_hang(&loaded, &walk, &input, format);
    }
    match format {
        PathFormat::Actions => outln!("{}", action_words(&loaded, &walk).join(" ")),
        PathFormat::Lurd => outln!("{}", lurd(&loaded, &walk)),
        PathFormat::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&walk_json(&loaded, &walk, to))?
        ),
        PathFormat::Puzzlescript => {
            let (inputs, case) = puzzlescript_case(&loaded, &walk)?;
            outln!("{inputs}");
            outln!("{case}");
        }
    }
    eprintln!(
        "{} actions ({} critical) from state {} to state {} ({})",
        walk.steps.len(),
        walk.critical_count(),
        walk.start,
        walk.end(),
        loaded.tag(walk.end()).map_or("?", Tag::name)
    );
    Ok(ExitCode::SUCCESS)
}

/// The first hang of the run by state id, then input: its state is one of the
/// shallowest with a hang (ids are breadth-first), so the path to it and the hanging
/// input are a shortest input sequence that hangs.
fn first_hang(loaded: &Loaded) -> Result<games::puzzlescript::coverage::Hang> {
    let Some(c) = crate::coverage_cmd::survey_run(&loaded.run, Some(&loaded.saved))? else {
        return Err(crate::usage::usage(format!(
            "--to hang needs a PuzzleScript run; this run is {}",
            loaded.run.identity().game
        )));
    };
    match c.hangs.first() {
        Some(&h) => Ok(h),
        None => bail!(
            "no (state, input) of this run starts an again chain that never ends ({} states \
             expanded again)",
            c.surveyed
        ),
    }
}

/// Prints the inputs that lead to a hang: the walk, then the input that hangs.
fn print_hang(loaded: &Loaded, walk: &Walk, input: &str, format: PathFormat) -> Result<ExitCode> {
    let mut words = action_words(loaded, walk);
    words.push(input.to_string());
    match format {
        PathFormat::Actions => outln!("{}", words.join(" ")),
        PathFormat::Lurd => {
            return Err(crate::usage::usage(
                "--to hang is PuzzleScript's; use --format actions, json or puzzlescript",
            ))
        }
        PathFormat::Json => {
            let mut value = walk_json(loaded, walk, Destination::State(walk.end()));
            value["to"] = json!("hang");
            value["hang_state"] = json!(walk.end());
            value["hang_input"] = json!(input);
            value["inputs"] = json!(words);
            outln!("{}", serde_json::to_string_pretty(&value)?);
        }
        PathFormat::Puzzlescript => {
            let mut codes = Vec::new();
            for label in &words {
                let parsed = puzzlescript::Input::parse(label)
                    .with_context(|| format!("the action {label:?} is no PuzzleScript input"))?;
                codes.push(
                    parsed
                        .code()
                        .map_or_else(|| "tick".to_string(), |c| c.to_string()),
                );
            }
            outln!("{}", codes.join(","));
            eprintln!("(no conformance case: the last input's again chain never ends)");
        }
    }
    eprintln!(
        "{} actions from state {} to state {}, then `{input}`: its again chain never ends",
        walk.steps.len(),
        walk.start,
        walk.end()
    );
    Ok(ExitCode::SUCCESS)
}

/// The walk's inputs in the reference's numbers, and a conformance case that
/// replays them on the run's level.
fn puzzlescript_case(loaded: &Loaded, walk: &Walk) -> Result<(String, String)> {
    let id = loaded.run.identity();
    if id.game != "puzzlescript" {
        return Err(crate::usage::usage(format!(
            "--format puzzlescript needs a PuzzleScript run; this run is {}",
            id.game
        )));
    }
    let mut inputs = Vec::new();
    for label in action_words(loaded, walk) {
        let input = puzzlescript::Input::parse(&label)
            .with_context(|| format!("the action {label:?} is no PuzzleScript input"))?;
        inputs.push(input);
    }
    let number = games::puzzlescript::level_number(&id.level_text)
        .context("the stored level text names no level")?;
    let name = format!(
        "{}: path from state {} to state {}",
        id.level_title,
        walk.start,
        walk.end()
    );
    let case = puzzlescript::conformance::case_line(
        &name,
        "stored puzzlescript level",
        &id.level_text,
        number,
        &inputs,
    )?;
    let words: Vec<String> = inputs
        .iter()
        .map(|i| {
            i.code()
                .map_or_else(|| "tick".to_string(), |c| c.to_string())
        })
        .collect();
    Ok((words.join(","), case))
}

fn state_of(d: Destination) -> Option<u64> {
    match d {
        Destination::State(s) => Some(s),
        _ => None,
    }
}

fn describe(d: Destination) -> String {
    match d {
        Destination::Win => "win".into(),
        Destination::Fail => "fail state".into(),
        Destination::Dead => "state that can no longer win".into(),
        Destination::State(s) => format!("path to state {s}"),
    }
}

fn action_words(loaded: &Loaded, walk: &Walk) -> Vec<String> {
    walk.steps.iter().map(|s| loaded.label(s.action)).collect()
}

/// Sokoban's LURD: the first letter of the direction, upper case when the move pushes
/// a box (the boxes drawn before and after the move differ).
pub fn lurd(loaded: &Loaded, walk: &Walk) -> String {
    walk.steps
        .iter()
        .map(|s| {
            let letter = loaded.label(s.action).chars().next().unwrap_or('?');
            if boxes_of(&loaded.draw(s.from)) != boxes_of(&loaded.draw(s.to)) {
                letter.to_ascii_uppercase()
            } else {
                letter.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Positions of the boxes in a drawn Sokoban board (`$`, and `*` on a goal).
fn boxes_of(board: &str) -> Vec<(usize, usize)> {
    board
        .lines()
        .enumerate()
        .flat_map(|(y, row)| {
            row.chars()
                .enumerate()
                .filter(|&(_, c)| c == '$' || c == '*')
                .map(move |(x, _)| (x, y))
        })
        .collect()
}

fn walk_json(loaded: &Loaded, walk: &Walk, to: Destination) -> Value {
    let critical: Vec<usize> = walk
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.critical)
        .map(|(i, _)| i)
        .collect();
    let mut value = json!({
        "to": match to {
            Destination::Win => json!("win"),
            Destination::Fail => json!("fail"),
            Destination::Dead => json!("dead"),
            Destination::State(s) => json!(s),
        },
        "from_state": walk.start,
        "end_state": walk.end(),
        "end_tag": loaded.tag(walk.end()).map(Tag::name),
        "length": walk.steps.len(),
        "critical_actions": walk.critical_count(),
        "states": walk.states(),
        "actions": action_words(loaded, walk),
        "critical_steps": critical,
        "hyperstates": walk.states().iter().map(|&s| loaded.hyperstate(s)).collect::<Vec<_>>(),
    });
    if loaded.run.identity().game == "sokoban" {
        value["lurd"] = json!(lurd(loaded, walk));
    }
    value
}

/// Runs `hsg why`.
pub fn why(args: WhyArgs) -> Result<ExitCode> {
    let loaded = Loaded::open(&args.dir, &args.analysis)?;
    let states = loaded.saved.summary.states;
    if args.state >= states {
        return Err(crate::usage::usage(format!(
            "state {}: the run has {states} states (ids 0..{})",
            args.state,
            states.saturating_sub(1)
        )));
    }
    let graph = hsg::RunGraph::new(&loaded.run)?;
    match explain::explain_loss(&graph, &loaded.saved, args.state) {
        Why::Lost(e) => {
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&why_json(&loaded, &e))?);
            } else {
                print_explanation(&loaded, &e);
            }
            Ok(ExitCode::SUCCESS)
        }
        Why::NotLost(Tag::Unknown) => bail!(
            "state {}'s future is unknown (the run is partial and it reaches unexplored states); \
             explore further to know whether it is lost",
            args.state
        ),
        Why::NotLost(tag) => bail!(
            "state {} can still win (its hyperstate is {}); `hsg why` explains lost states \
             (fail or implicitly failed); `hsg path {} --from {} --to win` shows a win",
            args.state,
            tag.name(),
            crate::advice::shell_path(&args.dir),
            args.state
        ),
        Why::NoSuchState => bail!("state {} is not covered by the analysis", args.state),
        Why::Unreachable => bail!(
            "state {} is lost, but the root (state 0) does not reach it",
            args.state
        ),
    }
}

fn why_json(loaded: &Loaded, e: &explain::Explanation) -> Value {
    let fatal = e.fatal.and_then(|i| e.walk.steps.get(i));
    json!({
        "state": e.walk.end(),
        "tag": e.tag.name(),
        "path": walk_json(loaded, &e.walk, Destination::State(e.walk.end())),
        "fatal_step": e.fatal,
        "fatal_action": fatal.map(|s| json!({
            "from": s.from,
            "action": loaded.label(s.action),
            "to": s.to,
            "from_tag": loaded.tag(s.from).map(Tag::name),
            "to_tag": loaded.tag(s.to).map(Tag::name),
            "from_board": loaded.draw(s.from),
            "to_board": loaded.draw(s.to),
        })),
    })
}

fn print_explanation(loaded: &Loaded, e: &explain::Explanation) {
    let end = e.walk.end();
    outln!(
        "state {end} is lost ({}): no win is reachable from it.",
        e.tag.name().replace('_', " ")
    );
    let moves = if loaded.run.identity().game == "sokoban" {
        lurd(loaded, &e.walk)
    } else {
        action_words(loaded, &e.walk).join(" ")
    };
    outln!(
        "shortest path from the root: {} actions ({} critical): {moves}",
        e.walk.steps.len(),
        e.walk.critical_count()
    );
    let Some(step) = e.fatal.and_then(|i| e.walk.steps.get(i).map(|s| (i, s))) else {
        outln!("the root itself cannot win: the game was lost before the first action.");
        outln!("\nroot (state 0):\n{}", loaded.draw(0));
        return;
    };
    let (i, s) = step;
    let tag = |x: u64| loaded.tag(x).map_or("?", Tag::name).replace('_', " ");
    let hyper = |x: u64| loaded.hyperstate(x).map_or("?".into(), |h| h.to_string());
    outln!(
        "the losing action is step {} of {}: `{}` from state {} (hyperstate {}, {}) to state {} (hyperstate {}, {}), a critical action after which no win is reachable.",
        i + 1,
        e.walk.steps.len(),
        loaded.label(s.action),
        s.from,
        hyper(s.from),
        tag(s.from),
        s.to,
        hyper(s.to),
        tag(s.to)
    );
    let before = format!("before (state {})", s.from);
    let after = format!("after `{}` (state {})", loaded.label(s.action), s.to);
    out!(
        "\n{}",
        side_by_side(&before, &loaded.draw(s.from), &after, &loaded.draw(s.to))
    );
}

/// Two boards with their titles next to each other when they are narrow, else one
/// above the other.
fn side_by_side(title_a: &str, a: &str, title_b: &str, b: &str) -> String {
    let width = |t: &str, s: &str| {
        s.lines()
            .map(|l| l.chars().count())
            .chain([t.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let (wa, wb) = (width(title_a, a), width(title_b, b));
    if wa + wb + 4 > 100 {
        return format!("{title_a}:\n{a}\n{title_b}:\n{b}\n");
    }
    let left: Vec<&str> = std::iter::once(title_a).chain(a.lines()).collect();
    let right: Vec<&str> = std::iter::once(title_b).chain(b.lines()).collect();
    let mut text = String::new();
    for row in 0..left.len().max(right.len()) {
        let l = left.get(row).copied().unwrap_or("");
        let r = right.get(row).copied().unwrap_or("");
        let pad = wa - l.chars().count();
        text.push_str(format!("{l}{}    {r}", " ".repeat(pad)).trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_parse_and_bad_ones_are_named() {
        assert_eq!(parse_destination("win"), Ok(Destination::Win));
        assert_eq!(parse_destination("dead"), Ok(Destination::Dead));
        assert_eq!(parse_destination("17"), Ok(Destination::State(17)));
        assert!(parse_destination("lose").unwrap_err().contains("`lose`"));
    }

    #[test]
    fn boards_go_side_by_side_when_narrow() {
        let text = side_by_side("a", "###\n#@#", "bb", "##\n##\n##");
        assert_eq!(text, "a      bb\n###    ##\n#@#    ##\n       ##\n");
    }

    #[test]
    fn boxes_are_found_on_and_off_goals() {
        assert_eq!(boxes_of("#$.\n*@#"), vec![(1, 0), (0, 1)]);
    }
}
