//! The Fling! board as a 56-bit mask and its moves, written for speed: the
//! retrograde tables call [`Board::for_each_move`] billions of times, so it
//! allocates nothing and walks rays with precomputed masks.

/// Columns of the board.
pub const WIDTH: usize = 7;
/// Rows of the board.
pub const HEIGHT: usize = 8;
/// Cells of the board; cell index = y * 7 + x.
pub const CELLS: usize = WIDTH * HEIGHT;
/// The mask of every cell.
pub const FULL: u64 = (1 << CELLS) - 1;
/// Number of action labels: every (cell, direction) pair.
pub const ACTIONS: usize = CELLS * 4;

/// A direction a piece can be flung in, in the spec's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Towards column 0.
    Left = 0,
    /// Towards row 0.
    Up = 1,
    /// Towards column 6.
    Right = 2,
    /// Towards row 7.
    Down = 3,
}

/// The four directions, indexed by their number.
pub const DIRECTIONS: [Direction; 4] = [
    Direction::Left,
    Direction::Up,
    Direction::Right,
    Direction::Down,
];

impl Direction {
    /// The direction's lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Left => "left",
            Direction::Up => "up",
            Direction::Right => "right",
            Direction::Down => "down",
        }
    }

    /// The change of cell index for one step in this direction.
    #[inline]
    fn step(self) -> i32 {
        match self {
            Direction::Left => -1,
            Direction::Up => -(WIDTH as i32),
            Direction::Right => 1,
            Direction::Down => WIDTH as i32,
        }
    }

    /// True when cell indices grow in this direction.
    #[inline]
    fn ascending(self) -> bool {
        matches!(self, Direction::Right | Direction::Down)
    }
}

/// The action id of flinging the piece on `cell` in `direction`.
#[inline]
pub fn action_id(cell: usize, direction: Direction) -> u16 {
    (cell * 4 + direction as usize) as u16
}

/// The (cell, direction) of an action id, or `None` past [`ACTIONS`].
pub fn action_parts(action: u16) -> Option<(usize, Direction)> {
    let action = usize::from(action);
    (action < ACTIONS).then(|| (action / 4, DIRECTIONS[action % 4]))
}

/// The label of an action: `x,y direction`, with 0-based column and row.
pub fn action_label(action: u16) -> String {
    match action_parts(action) {
        Some((cell, dir)) => format!("{},{} {}", cell % WIDTH, cell / WIDTH, dir.name()),
        None => format!("action {action}"),
    }
}

/// For each direction and cell, the cells strictly beyond it in that direction.
static RAYS: [[u64; CELLS]; 4] = build_rays();

const fn build_rays() -> [[u64; CELLS]; 4] {
    let mut rays = [[0u64; CELLS]; 4];
    let mut cell = 0;
    while cell < CELLS {
        let (x, y) = (cell % WIDTH, cell / WIDTH);
        let mut i = 0;
        while i < x {
            rays[0][cell] |= 1 << (y * WIDTH + i);
            i += 1;
        }
        i = 0;
        while i < y {
            rays[1][cell] |= 1 << (i * WIDTH + x);
            i += 1;
        }
        i = x + 1;
        while i < WIDTH {
            rays[2][cell] |= 1 << (y * WIDTH + i);
            i += 1;
        }
        i = y + 1;
        while i < HEIGHT {
            rays[3][cell] |= 1 << (i * WIDTH + x);
            i += 1;
        }
        cell += 1;
    }
    rays
}

/// The nearest occupied cell of `hits` (non-zero) seen from a cell looking in `dir`.
#[inline]
fn nearest(hits: u64, dir: Direction) -> u32 {
    if dir.ascending() {
        hits.trailing_zeros()
    } else {
        63 - hits.leading_zeros()
    }
}

/// A Fling! board: the set of occupied cells, bit i = cell i.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Board(u64);

impl Board {
    /// The board with exactly the cells of `mask`; `None` when a bit past cell 55 is set.
    pub fn from_mask(mask: u64) -> Option<Board> {
        (mask & !FULL == 0).then_some(Board(mask))
    }

    /// The occupied cells as a mask.
    #[inline]
    pub fn mask(self) -> u64 {
        self.0
    }

    /// How many pieces stand on the board.
    #[inline]
    pub fn pieces(self) -> u32 {
        self.0.count_ones()
    }

    /// True when `cell` holds a piece (false for cells off the board).
    pub fn occupied(self, cell: usize) -> bool {
        cell < CELLS && self.0 >> cell & 1 == 1
    }

    /// The board with `cell`'s content flipped (a piece added or removed).
    pub fn toggled(self, cell: usize) -> Board {
        Board(self.0 ^ (1u64 << (cell % CELLS)))
    }

    /// The occupied cells in ascending order.
    pub fn cells(self) -> impl Iterator<Item = usize> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let cell = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                cell
            })
        })
    }

    /// The board after flinging the piece on `cell` in `dir`, or `None` when
    /// that is no legal move (no piece there, the neighbour occupied, or
    /// nothing to collide with).
    #[inline]
    pub fn apply(self, cell: usize, dir: Direction) -> Option<Board> {
        if cell >= CELLS || self.0 >> cell & 1 == 0 {
            return None;
        }
        let hits = self.0 & RAYS[dir as usize][cell];
        if hits == 0 {
            return None;
        }
        let step = dir.step();
        let first = nearest(hits, dir);
        if first as i32 == cell as i32 + step {
            return None;
        }
        let stop = (first as i32 - step) as u32;
        Some(Board(self.slide(cell as u32, stop, first, dir)))
    }

    /// Moves the piece from `from` to `stop` and passes the momentum on from
    /// `hit` until one piece leaves the board.
    #[inline]
    fn slide(self, from: u32, stop: u32, hit: u32, dir: Direction) -> u64 {
        let step = dir.step();
        let mut board = (self.0 & !(1u64 << from)) | 1u64 << stop;
        let mut moving = hit;
        loop {
            let hits = board & RAYS[dir as usize][moving as usize];
            if hits == 0 {
                return board & !(1u64 << moving);
            }
            let next = nearest(hits, dir);
            if next as i32 != moving as i32 + step {
                // A gap: the moving piece slides up to the next piece.
                let rest = (next as i32 - step) as u32;
                board = (board & !(1u64 << moving)) | 1u64 << rest;
            }
            moving = next;
        }
    }

    /// Calls `visit(action, child)` for every legal move, in action order.
    #[inline]
    pub fn for_each_move(self, mut visit: impl FnMut(u16, Board)) {
        let mut rest = self.0;
        while rest != 0 {
            let cell = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            for dir in DIRECTIONS {
                if let Some(child) = self.apply(cell, dir) {
                    visit(action_id(cell, dir), child);
                }
            }
        }
    }

    /// True when some move is legal.
    pub fn has_move(self) -> bool {
        let mut found = false;
        self.for_each_move(|_, _| found = true);
        found
    }

    /// The board mirrored left to right (x becomes 6 - x).
    pub fn mirror_lr(self) -> Board {
        let mut out = 0u64;
        for y in 0..HEIGHT {
            let row = (self.0 >> (y * WIDTH)) & 0x7f;
            let reversed = (row as u8).reverse_bits() >> 1;
            out |= u64::from(reversed) << (y * WIDTH);
        }
        Board(out)
    }

    /// The board mirrored top to bottom (y becomes 7 - y).
    pub fn mirror_tb(self) -> Board {
        let mut out = 0u64;
        for y in 0..HEIGHT {
            let row = (self.0 >> (y * WIDTH)) & 0x7f;
            out |= row << ((HEIGHT - 1 - y) * WIDTH);
        }
        Board(out)
    }

    /// The board's images under the symmetry group: itself, mirrored left
    /// to right, top to bottom, and both.
    pub fn symmetries(self) -> [Board; 4] {
        let lr = self.mirror_lr();
        [self, lr, self.mirror_tb(), lr.mirror_tb()]
    }

    /// The canonical form: the image with the smallest mask.
    pub fn canonical(self) -> Board {
        self.symmetries().into_iter().min().unwrap_or(self)
    }

    /// The board as 8 rows of 7 characters, `o` a piece and `.` empty.
    pub fn rows(self) -> String {
        let mut text = String::with_capacity(CELLS + HEIGHT);
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                text.push(if self.occupied(y * WIDTH + x) {
                    'o'
                } else {
                    '.'
                });
            }
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
#[path = "board_tests.rs"]
mod tests;
