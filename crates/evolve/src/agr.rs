//! The adaptive generative representation (AGR): a list of genes in [0,1)
//! that plays a sandbox game by choosing among the admissible moves only.
//!
//! At each step the admissible directions, enumerated in a fixed order (the
//! seed: up, down, left, right), split [0,1) into as many equal parts; the
//! gene's part picks the move. Play stops when the ration is spent, nothing
//! is admissible, or the genes run out. Forced moves (silver tokens) are
//! not decisions and take no gene.

use games::sandbox::{Board, Dir, Play, DOWN, LEFT, RIGHT, UP};

/// A gene: the fraction `g / 2^32` of [0,1). Fixed point makes the choice
/// among k parts exact (`floor(g * k)`) and cheap.
pub type Gene = u32;

/// The gene closest below `x` in [0,1) (clamped).
pub fn gene(x: f64) -> Gene {
    (x.clamp(0.0, 1.0) * 4_294_967_296.0).min(4_294_967_295.0) as Gene
}

/// The seed's enumeration order: up, down, left, right.
pub const SEED_ORDER: [Dir; 4] = [UP, DOWN, LEFT, RIGHT];
/// Clockwise from up: the order the seed's worked example actually follows.
pub const CLOCKWISE: [Dir; 4] = [UP, RIGHT, DOWN, LEFT];

/// Turns genes into moves for one enumeration order.
#[derive(Clone, Copy, Debug)]
pub struct Decoder {
    /// For each admissible set (bit d = direction d) and part index, the direction.
    table: [[Dir; 4]; 16],
}

impl Decoder {
    /// A decoder enumerating admissible directions in `order`.
    pub fn new(order: [Dir; 4]) -> Decoder {
        let mut table = [[UP; 4]; 16];
        for (mask, row) in table.iter_mut().enumerate() {
            let listed = order.iter().filter(|&&d| mask & (1 << d) != 0);
            for (slot, &d) in row.iter_mut().zip(listed) {
                *slot = d;
            }
        }
        Decoder { table }
    }

    /// The move `g` picks among the admissible set `mask` (not empty).
    #[inline]
    pub fn choose(&self, mask: u8, g: Gene) -> Dir {
        let k = u64::from(mask.count_ones());
        let part = ((u64::from(g) * k) >> 32) as usize;
        self.table[usize::from(mask & 15)][part & 3]
    }

    /// Plays `genes` on `board` from `start` and returns the end of play.
    #[inline]
    pub fn play(&self, board: &Board, start: &Play, genes: &[Gene]) -> Play {
        self.play_counted(board, start, genes).0
    }

    /// Plays `genes` and also returns how many genes were read: the genes
    /// after them never influence the game.
    #[inline]
    pub fn play_counted(&self, board: &Board, start: &Play, genes: &[Gene]) -> (Play, usize) {
        let mut p = *start;
        let mut used = 0;
        for &g in genes {
            let mask = board.admissible(&p);
            if mask == 0 {
                break;
            }
            used += 1;
            board.step_admissible(&mut p, self.choose(mask, g));
            while p.forced_left > 0 && p.moves_left > 0 {
                let forced = p.forced_dir;
                board.step_admissible(&mut p, forced);
            }
        }
        (p, used)
    }

    /// Plays `genes` and lists the squares visited, start first (for drawings).
    pub fn path(&self, board: &Board, genes: &[Gene]) -> Vec<u8> {
        let mut p = board.start();
        let mut path = vec![p.pos];
        for &g in genes {
            let mask = board.admissible(&p);
            if mask == 0 {
                break;
            }
            board.step_admissible(&mut p, self.choose(mask, g));
            path.push(p.pos);
            while p.forced_left > 0 && p.moves_left > 0 {
                let forced = p.forced_dir;
                board.step_admissible(&mut p, forced);
                path.push(p.pos);
            }
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use games::sandbox::{parse, Block};

    /// The seed's Example 1: a 3x3 grid, start in the lower left corner,
    /// unlimited moves (the ration is 20 here), chromosome of 8 genes.
    fn example_board() -> Board {
        let text =
            "sandbox instance\ntitle ex1\nside 3\nmoves 20\nboard\n.. .. ..\n.. .. ..\n@@ .. ..\n";
        let Block::Instance(inst, _) = parse("ex1.sandbox", text).unwrap().remove(0) else {
            unreachable!("an instance")
        };
        Board::new(&inst).unwrap()
    }

    const CHROMOSOME: [f64; 8] = [0.23, 0.56, 0.81, 0.95, 0.17, 0.22, 0.32, 0.41];

    /// The example's table in (x, y) coordinates, y up, as board squares.
    fn square(x: u8, y: u8) -> u8 {
        (2 - y) * 3 + x
    }

    #[test]
    fn the_worked_example_walks_as_the_seed_tabulates() {
        let board = example_board();
        let genes: Vec<Gene> = CHROMOSOME.iter().map(|&x| gene(x)).collect();
        let expected: Vec<u8> = [
            (0, 0),
            (0, 1),
            (1, 1),
            (1, 0),
            (2, 0),
            (2, 1),
            (2, 2),
            (1, 2),
            (0, 2),
        ]
        .iter()
        .map(|&(x, y)| square(x, y))
        .collect();
        // The seed's table follows the clockwise order (its third move, 0.81
        // among {up, down, right}, goes down), although its text says UDLR.
        assert_eq!(Decoder::new(CLOCKWISE).path(&board, &genes), expected);
        let p = Decoder::new(CLOCKWISE).play(&board, &board.start(), &genes);
        assert_eq!(p.score, 8);
        assert!(board.is_over(&p), "no admissible move at the end");
    }

    #[test]
    fn the_stated_order_differs_from_the_table_at_the_third_move() {
        let board = example_board();
        let genes: Vec<Gene> = CHROMOSOME.iter().map(|&x| gene(x)).collect();
        let path = Decoder::new(SEED_ORDER).path(&board, &genes);
        assert_eq!(&path[..3], &[square(0, 0), square(0, 1), square(1, 1)]);
        assert_eq!(
            path[3],
            square(2, 1),
            "0.81 in the top third of up, down, right is right"
        );
    }

    #[test]
    fn parts_are_equal_and_exact() {
        let d = Decoder::new(SEED_ORDER);
        let all = 0b1111;
        assert_eq!(d.choose(all, gene(0.0)), UP);
        assert_eq!(d.choose(all, gene(0.2499)), UP);
        assert_eq!(d.choose(all, gene(0.25)), DOWN);
        assert_eq!(d.choose(all, gene(0.5)), LEFT);
        assert_eq!(d.choose(all, gene(0.9999)), RIGHT);
        assert_eq!(d.choose(0b1010, gene(0.49)), DOWN);
        assert_eq!(d.choose(0b1010, gene(0.51)), RIGHT);
        assert_eq!(d.choose(0b0100, u32::MAX), LEFT);
    }

    #[test]
    fn play_stops_when_the_genes_end() {
        let board = example_board();
        let p = Decoder::new(SEED_ORDER).play(&board, &board.start(), &[gene(0.1), gene(0.1)]);
        assert_eq!(p.score, 2);
        assert!(!board.is_over(&p));
    }
}
