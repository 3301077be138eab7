//! Small games written directly against [`model::Game`], used by the tests and
//! the benchmark: tic-tac-toe and its variants from the paper, 3-to-15, and
//! rock-paper-scissors for simultaneous play.

use model::{Game, Move, OutcomeId, Prob, StateWidth, Successors};

/// The eight lines of the 3x3 board, cells numbered row by row from 0.
const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// Which tic-tac-toe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// X moves first; three in a row wins.
    Standard,
    /// Three in a row loses.
    Misere,
    /// After each placement the same player declares the end of the turn.
    EndOfTurn,
    /// The opening move is restricted to a corner (0), an edge (1) or the centre (4).
    Restricted,
    /// A coin flip decides who starts (the paper's Example 1).
    RandomStart,
    /// Only rows and columns count (no diagonals): a genuinely different game.
    NoDiagonals,
}

/// Tic-tac-toe; a state is nine cells (0 empty, 1 X, 2 O), the player to
/// move (1 X, 2 O, 0 before the coin flip) and a phase (1 while an end of turn is due).
#[derive(Clone, Copy, Debug)]
pub struct TicTacToe(pub Variant);

impl TicTacToe {
    fn lines(&self) -> &'static [[usize; 3]] {
        if self.0 == Variant::NoDiagonals {
            &LINES[..6]
        } else {
            &LINES
        }
    }

    fn winner(&self, s: &[u8]) -> Option<u8> {
        self.lines()
            .iter()
            .find(|l| s[l[0]] != 0 && s[l[0]] == s[l[1]] && s[l[1]] == s[l[2]])
            .map(|l| s[l[0]])
    }
}

impl Game for TicTacToe {
    fn kind(&self) -> &'static str {
        "tictactoe-test"
    }
    fn players(&self) -> u8 {
        2
    }
    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(11)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        let turn = if self.0 == Variant::RandomStart { 0 } else { 1 };
        let mut s = vec![0u8; 11];
        s[9] = turn;
        vec![s]
    }
    fn action_labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = (0..9).map(|i| format!("X{i}")).collect();
        labels.extend((0..9).map(|i| format!("O{i}")));
        labels.extend(["end turn", "flip"].map(String::from));
        labels
    }
    fn outcome_names(&self) -> Vec<String> {
        ["X wins", "O wins", "draw"].map(String::from).to_vec()
    }
    fn terminal(&self, s: &[u8]) -> Option<OutcomeId> {
        if let Some(w) = self.winner(s) {
            let loser_wins = self.0 == Variant::Misere;
            return Some(if (w == 1) != loser_wins { 0 } else { 1 });
        }
        s[..9].iter().all(|&c| c != 0).then_some(2)
    }
    fn successors(&self, s: &[u8], out: &mut Successors) {
        let turn = s[9];
        if turn == 0 {
            for first in [1u8, 2] {
                let mv = Move {
                    action: 19,
                    player: 0,
                    prob: Prob { num: 1, den: 2 },
                };
                out.push_with(mv, |b| {
                    b.extend_from_slice(&s[..9]);
                    b.extend_from_slice(&[first, 0]);
                });
            }
            return;
        }
        let player = turn - 1;
        let next = 3 - turn;
        if s[10] == 1 {
            out.push_with(
                Move {
                    action: 18,
                    player,
                    prob: Prob::ONE,
                },
                |b| {
                    b.extend_from_slice(&s[..9]);
                    b.extend_from_slice(&[next, 0]);
                },
            );
            return;
        }
        let opening = s[..9].iter().all(|&c| c == 0);
        for i in 0..9 {
            if s[i] != 0 || (self.0 == Variant::Restricted && opening && ![0, 1, 4].contains(&i)) {
                continue;
            }
            let action = (i + 9 * usize::from(player)) as u16;
            out.push_with(
                Move {
                    action,
                    player,
                    prob: Prob::ONE,
                },
                |b| {
                    let at = b.len() + i;
                    b.extend_from_slice(&s[..9]);
                    b[at] = turn;
                    if self.0 == Variant::EndOfTurn {
                        b.extend_from_slice(&[turn, 1]);
                    } else {
                        b.extend_from_slice(&[next, 0]);
                    }
                },
            );
        }
    }
    fn render(&self, s: &[u8]) -> String {
        s[..9]
            .chunks(3)
            .map(|row| {
                row.iter()
                    .map(|&c| [".", "X", "O"][usize::from(c.min(2))])
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
    fn has_chance(&self) -> bool {
        self.0 == Variant::RandomStart
    }
    fn to_move(&self, s: &[u8]) -> Option<u8> {
        s[9].checked_sub(1)
    }
    fn decision_tuple(&self, action: u16) -> Option<Vec<Option<String>>> {
        (action == 19).then(|| vec![Some("flip".to_string()), Some("flip".to_string())])
    }
}

/// 3-to-15: players alternately take numbers 1 to 9; whoever holds three
/// numbers summing to 15 wins. The first mover is player 2 here, so that a
/// comparison with tic-tac-toe must relabel players too. A state is the owner
/// of each number (0 none, 1 first mover, 2 second) and the mover (1 or 2).
#[derive(Clone, Copy, Debug)]
pub struct ThreeToFifteen;

impl ThreeToFifteen {
    fn holds_fifteen(s: &[u8], who: u8) -> bool {
        let held: Vec<usize> = (0..9).filter(|&i| s[i] == who).map(|i| i + 1).collect();
        held.iter().enumerate().any(|(a, &x)| {
            held[a + 1..]
                .iter()
                .enumerate()
                .any(|(b, &y)| held[a + b + 2..].iter().any(|&z| x + y + z == 15))
        })
    }
}

impl Game for ThreeToFifteen {
    fn kind(&self) -> &'static str {
        "fifteen-test"
    }
    fn players(&self) -> u8 {
        2
    }
    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(10)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        let mut s = vec![0u8; 10];
        s[9] = 1;
        vec![s]
    }
    fn action_labels(&self) -> Vec<String> {
        (1..=9).rev().map(|n| format!("take {n}")).collect()
    }
    fn outcome_names(&self) -> Vec<String> {
        ["draw", "second player wins", "first player wins"]
            .map(String::from)
            .to_vec()
    }
    fn terminal(&self, s: &[u8]) -> Option<OutcomeId> {
        if Self::holds_fifteen(s, 1) {
            return Some(2);
        }
        if Self::holds_fifteen(s, 2) {
            return Some(1);
        }
        s[..9].iter().all(|&c| c != 0).then_some(0)
    }
    fn successors(&self, s: &[u8], out: &mut Successors) {
        let mover = s[9];
        // The first mover is player index 1, the second player index 0.
        let player = 2 - mover;
        for n in (1..=9usize).rev() {
            if s[n - 1] != 0 {
                continue;
            }
            let mv = Move {
                action: (9 - n) as u16,
                player,
                prob: Prob::ONE,
            };
            out.push_with(mv, |b| {
                let at = b.len() + n - 1;
                b.extend_from_slice(&s[..9]);
                b[at] = mover;
                b.push(3 - mover);
            });
        }
    }
    fn render(&self, s: &[u8]) -> String {
        format!("{:?}", &s[..9])
    }
    fn to_move(&self, s: &[u8]) -> Option<u8> {
        Some(2 - s[9])
    }
}

/// One round of a simultaneous game on a 3x3 payoff table: `table[a][b]` is
/// the outcome when player 1 picks `a` and player 2 picks `b`.
#[derive(Clone, Debug)]
pub struct Simultaneous {
    /// Outcome ids by (player 1's choice, player 2's choice).
    pub table: [[u16; 3]; 3],
    /// Names of the three choices.
    pub names: [&'static str; 3],
}

impl Simultaneous {
    /// Rock-paper-scissors (outcomes: 0 draw, 1 player 1 wins, 2 player 2 wins).
    pub fn rock_paper_scissors() -> Simultaneous {
        Simultaneous {
            table: [[0, 2, 1], [1, 0, 2], [2, 1, 0]],
            names: ["rock", "paper", "scissors"],
        }
    }
}

impl Game for Simultaneous {
    fn kind(&self) -> &'static str {
        "simultaneous-test"
    }
    fn players(&self) -> u8 {
        2
    }
    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(1)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![vec![9]]
    }
    fn action_labels(&self) -> Vec<String> {
        (0..9)
            .map(|k| format!("{}/{}", self.names[k / 3], self.names[k % 3]))
            .collect()
    }
    fn outcome_names(&self) -> Vec<String> {
        ["draw", "player 1 wins", "player 2 wins"]
            .map(String::from)
            .to_vec()
    }
    fn terminal(&self, s: &[u8]) -> Option<OutcomeId> {
        let k = usize::from(s[0]);
        (k < 9).then(|| self.table[k / 3][k % 3])
    }
    fn successors(&self, _s: &[u8], out: &mut Successors) {
        for k in 0..9u8 {
            out.push(
                Move {
                    action: u16::from(k),
                    player: 0,
                    prob: Prob::ONE,
                },
                &[k],
            );
        }
    }
    fn render(&self, s: &[u8]) -> String {
        format!("{}", s[0])
    }
    fn decision_tuple(&self, action: u16) -> Option<Vec<Option<String>>> {
        let k = usize::from(action);
        (k < 9).then(|| {
            vec![
                Some(self.names[k / 3].to_string()),
                Some(self.names[k % 3].to_string()),
            ]
        })
    }
}
