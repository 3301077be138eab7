//! Checking a raw Sokoban level and indexing the cells the player can reach.
//!
//! The player's region is found by a flood fill from the player through
//! every non-wall cell (boxes do not block it, since they can be pushed
//! away). Region cells are numbered in row-major order; states are built on
//! these numbers.

use std::collections::VecDeque;

use super::rows::SourceCell;
use super::text::RawLevel;
use crate::GamesError;

/// Marks a missing neighbour in [`Board::neighbours`].
pub(crate) const NO_CELL: u16 = u16::MAX;

/// The largest region whose cells fit a `u16` next to [`NO_CELL`].
pub(crate) const MAX_REGION: usize = NO_CELL as usize;

/// The four directions, in action order: up, down, left, right.
pub(crate) const DIRECTIONS: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The fixed part of a grid cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tile {
    Wall,
    Floor,
    Goal,
}

/// A checked level: its fixed tiles, its region and its starting position.
#[derive(Clone, Debug)]
pub(crate) struct Board {
    /// Fixed tiles per row; rows may differ in length.
    pub tiles: Vec<Vec<Tile>>,
    /// Grid position (row, column) of every region cell, by region index.
    pub cells: Vec<(usize, usize)>,
    /// Per region cell and direction, the neighbouring region cell.
    pub neighbours: Vec<[u16; 4]>,
    /// Per region cell, whether it is a goal.
    pub goals: Vec<bool>,
    /// The player's starting cell.
    pub player: u16,
    /// The boxes' starting cells, ascending.
    pub boxes: Vec<u16>,
}

/// Checks `raw` (from `file`) and builds its board.
pub(crate) fn build_board(file: &str, raw: &RawLevel) -> Result<Board, GamesError> {
    let player = find_player(file, raw)?;
    let reached = flood_region(file, raw, player)?;
    check_boxes_reached(file, raw, &reached)?;
    let tiles: Vec<Vec<Tile>> = raw
        .rows
        .iter()
        .map(|r| r.iter().map(tile_of).collect())
        .collect();
    let (cells, index) = number_region(&reached);
    if cells.len() > MAX_REGION {
        return Err(GamesError::LevelTooLarge {
            file: file.to_string(),
            line: raw.first_line,
            column: 1,
            title: raw.title.clone(),
            cells: cells.len(),
            max: MAX_REGION,
        });
    }
    let neighbours = cells
        .iter()
        .map(|&(r, c)| {
            DIRECTIONS.map(|d| step(&index, r, c, d).map_or(NO_CELL, |(nr, nc)| index[nr][nc]))
        })
        .collect();
    let goals = cells
        .iter()
        .map(|&(r, c)| tiles[r][c] == Tile::Goal)
        .collect();
    let mut boxes: Vec<u16> = cells
        .iter()
        .enumerate()
        .filter(|&(_, &(r, c))| matches!(raw.rows[r][c].ch, '$' | '*'))
        .map(|(i, _)| i as u16)
        .collect();
    boxes.sort_unstable();
    let player = index[player.0][player.1];
    Ok(Board {
        tiles,
        cells,
        neighbours,
        goals,
        player,
        boxes,
    })
}

/// The fixed tile under a cell character.
fn tile_of(cell: &SourceCell) -> Tile {
    match cell.ch {
        '#' => Tile::Wall,
        '.' | '+' | '*' => Tile::Goal,
        _ => Tile::Floor,
    }
}

/// The position of the only player; fails on none or on a second one.
fn find_player(file: &str, raw: &RawLevel) -> Result<(usize, usize), GamesError> {
    let mut found: Option<(usize, usize)> = None;
    for (r, row) in raw.rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if !matches!(cell.ch, '@' | '+') {
                continue;
            }
            if let Some((fr, fc)) = found {
                let first = raw.rows[fr][fc];
                return Err(GamesError::TwoPlayers {
                    file: file.to_string(),
                    line: cell.line,
                    column: cell.column,
                    first_line: first.line,
                    first_column: first.column,
                    title: raw.title.clone(),
                });
            }
            found = Some((r, c));
        }
    }
    found.ok_or_else(|| GamesError::NoPlayer {
        file: file.to_string(),
        line: raw.first_line,
        column: 1,
        title: raw.title.clone(),
    })
}

/// The grid position one step from (r, c) in direction `d`, if the grid
/// (ragged rows included) has a cell there.
fn step<T>(grid: &[Vec<T>], r: usize, c: usize, d: (isize, isize)) -> Option<(usize, usize)> {
    let nr = r.checked_add_signed(d.0)?;
    let nc = c.checked_add_signed(d.1)?;
    grid.get(nr)?.get(nc)?;
    Some((nr, nc))
}

/// Marks every non-wall cell reachable from the player, breadth first;
/// fails, naming the reachable cell nearest the player, when the fill
/// touches the outside of the board.
fn flood_region(
    file: &str,
    raw: &RawLevel,
    (pr, pc): (usize, usize),
) -> Result<Vec<Vec<bool>>, GamesError> {
    let mut reached: Vec<Vec<bool>> = raw.rows.iter().map(|r| vec![false; r.len()]).collect();
    reached[pr][pc] = true;
    let mut queue = VecDeque::from([(pr, pc)]);
    while let Some((r, c)) = queue.pop_front() {
        for d in DIRECTIONS {
            let Some((nr, nc)) = step(&raw.rows, r, c, d) else {
                let cell = raw.rows[r][c];
                return Err(GamesError::OpenLevel {
                    file: file.to_string(),
                    line: cell.line,
                    column: cell.column,
                    title: raw.title.clone(),
                });
            };
            if raw.rows[nr][nc].ch != '#' && !reached[nr][nc] {
                reached[nr][nc] = true;
                queue.push_back((nr, nc));
            }
        }
    }
    Ok(reached)
}

/// Fails on the first box (row-major) outside the player's region.
fn check_boxes_reached(
    file: &str,
    raw: &RawLevel,
    reached: &[Vec<bool>],
) -> Result<(), GamesError> {
    for (row, reached_row) in raw.rows.iter().zip(reached) {
        for (cell, &inside) in row.iter().zip(reached_row) {
            if matches!(cell.ch, '$' | '*') && !inside {
                return Err(GamesError::UnreachableBox {
                    file: file.to_string(),
                    line: cell.line,
                    column: cell.column,
                    title: raw.title.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Numbers the reached cells in row-major order; also returns the reverse
/// map from grid position to number. Numbers past `u16` range are left
/// unmapped; the caller rejects such regions.
fn number_region(reached: &[Vec<bool>]) -> (Vec<(usize, usize)>, Vec<Vec<u16>>) {
    let mut cells = Vec::new();
    let mut index: Vec<Vec<u16>> = reached.iter().map(|r| vec![NO_CELL; r.len()]).collect();
    for (r, row) in reached.iter().enumerate() {
        for (c, &inside) in row.iter().enumerate() {
            if inside {
                if let Ok(i) = u16::try_from(cells.len()) {
                    if i != NO_CELL {
                        index[r][c] = i;
                    }
                }
                cells.push((r, c));
            }
        }
    }
    (cells, index)
}

impl Board {
    /// Draws the board in XSB with the player and boxes on the given region
    /// cells; trailing floor is trimmed and every row ends with a newline.
    pub(crate) fn draw(&self, player: usize, boxes: &[usize]) -> String {
        let mut grid: Vec<Vec<char>> = self
            .tiles
            .iter()
            .map(|row| {
                row.iter()
                    .map(|t| match t {
                        Tile::Wall => '#',
                        Tile::Floor => ' ',
                        Tile::Goal => '.',
                    })
                    .collect()
            })
            .collect();
        let mut put = |cell: usize, on_floor: char, on_goal: char| {
            if let Some(&(r, c)) = self.cells.get(cell) {
                grid[r][c] = if self.tiles[r][c] == Tile::Goal {
                    on_goal
                } else {
                    on_floor
                };
            }
        };
        for &b in boxes {
            put(b, '$', '*');
        }
        put(player, '@', '+');
        let rows = grid
            .into_iter()
            .map(|row| row.into_iter().collect::<String>());
        join_rows(rows)
    }
}

/// The text of drawn rows, one line each, such that reading it back gives the same rows.
/// A line is a board line only when it holds a wall, so a row without one (floor alone,
/// drawn `-`) joins a neighbouring line after a `|` row break: as a line of its own it
/// would end the level, and the text would reload as another level with another hash.
fn join_rows(rows: impl Iterator<Item = String>) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut before_first_wall = String::new();
    for row in rows {
        let row = match row.trim_end() {
            "" => "-".to_string(),
            kept => kept.to_string(),
        };
        match lines.last_mut() {
            _ if row.contains('#') => lines.push(std::mem::take(&mut before_first_wall) + &row),
            Some(last) => {
                last.push('|');
                last.push_str(&row);
            }
            None => {
                before_first_wall.push_str(&row);
                before_first_wall.push('|');
            }
        }
    }
    let mut text = String::new();
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
#[path = "board_tests.rs"]
mod tests;
