//! The picture of the graph view, independent of the terminal: a projection of the
//! layout onto a grid of dots (braille: 2x4 dots a cell; ASCII: one a cell), edges
//! drawn as dotted lines and nodes as glyphs on top. The SVG export uses the same
//! projection, so both show the same picture.

use crate::app::GraphData;
use crate::data::Tag;

/// Maps layout coordinates to dot coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    center: (f32, f32),
    scale: f32,
    /// Vertical stretch of a dot relative to its width (ASCII cells are twice as tall).
    aspect: f32,
    size: (f32, f32),
}

impl Projection {
    /// Fits the layout into `size` dots (a one-dot margin), then zooms by `zoom` around
    /// the centre moved by `pan` (in fractions of the drawing's extent).
    pub fn fit(
        positions: &[(f32, f32)],
        size: (f32, f32),
        aspect: f32,
        zoom: f32,
        pan: (f32, f32),
    ) -> Projection {
        let (mut lo, mut hi) = ((f32::MAX, f32::MAX), (f32::MIN, f32::MIN));
        for &(x, y) in positions {
            lo = (lo.0.min(x), lo.1.min(y));
            hi = (hi.0.max(x), hi.1.max(y));
        }
        if positions.is_empty() {
            (lo, hi) = ((0.0, 0.0), (0.0, 0.0));
        }
        let span = ((hi.0 - lo.0).max(1e-3), (hi.1 - lo.1).max(1e-3));
        let room = ((size.0 - 3.0).max(1.0), ((size.1 - 3.0) / aspect).max(1.0));
        let fit = (room.0 / span.0).min(room.1 / span.1);
        let extent = span.0.max(span.1);
        Projection {
            center: (
                (lo.0 + hi.0) / 2.0 + pan.0 * extent,
                (lo.1 + hi.1) / 2.0 + pan.1 * extent,
            ),
            scale: fit * zoom,
            aspect,
            size,
        }
    }

    /// Dot coordinates of a layout point (may lie outside the grid).
    pub fn apply(&self, p: (f32, f32)) -> (f32, f32) {
        (
            (p.0 - self.center.0) * self.scale + self.size.0 / 2.0,
            (p.1 - self.center.1) * self.scale * self.aspect + self.size.1 / 2.0,
        )
    }
}

/// What a cell shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cell {
    /// Nothing.
    #[default]
    Empty,
    /// Edge dots (braille bits).
    Dots(u8),
    /// A node.
    Node {
        /// Its tag.
        tag: Tag,
        /// True for the selected hyperstate.
        selected: bool,
        /// True for the target of the selected critical action.
        target: bool,
    },
}

/// A grid of cells with the graph drawn into it.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// Columns.
    pub cols: usize,
    /// Rows.
    pub rows: usize,
    /// Cells, row after row.
    pub cells: Vec<Cell>,
    /// Nodes that fell inside the grid.
    pub visible_nodes: usize,
}

/// Braille dot bits by (column, row) within a cell.
const BRAILLE: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];

impl Plot {
    /// Draws `data` into `cols` x `rows` cells; `braille` picks 2x4 dots a cell.
    pub fn draw(
        data: &GraphData,
        (cols, rows): (usize, usize),
        braille: bool,
        (zoom, pan): (f32, (f32, f32)),
        (selected, target): (u64, Option<u64>),
    ) -> Plot {
        let (dx, dy) = if braille { (2, 4) } else { (1, 1) };
        let size = ((cols * dx) as f32, (rows * dy) as f32);
        let aspect = if braille { 1.0 } else { 0.5 };
        let proj = Projection::fit(&data.layout.positions, size, aspect, zoom, pan);
        let mut plot = Plot {
            cols,
            rows,
            cells: vec![Cell::Empty; cols * rows],
            visible_nodes: 0,
        };
        let points: Vec<(f32, f32)> = data
            .layout
            .positions
            .iter()
            .map(|&p| proj.apply(p))
            .collect();
        for &(a, b) in &data.hood.edges {
            if let (Some(&p), Some(&q)) = (points.get(a as usize), points.get(b as usize)) {
                for_each_dot(p, q, size, |x, y| plot.dot(x, y, dx, dy));
            }
        }
        for (i, &p) in points.iter().enumerate() {
            let (Some(&h), Some(&tag)) = (data.hood.nodes.get(i), data.hood.tags.get(i)) else {
                continue;
            };
            let node = Cell::Node {
                tag,
                selected: h == selected,
                target: Some(h) == target,
            };
            plot.node(p, dx, dy, node);
        }
        plot
    }

    fn dot(&mut self, x: usize, y: usize, dx: usize, dy: usize) {
        let (c, r) = (x / dx, y / dy);
        if c >= self.cols || r >= self.rows {
            return;
        }
        let bit = if dx == 2 { BRAILLE[x % 2][y % 4] } else { 1 };
        let cell = &mut self.cells[r * self.cols + c];
        match cell {
            Cell::Empty => *cell = Cell::Dots(bit),
            Cell::Dots(bits) => *bits |= bit,
            Cell::Node { .. } => {}
        }
    }

    fn node(&mut self, (x, y): (f32, f32), dx: usize, dy: usize, node: Cell) {
        if x < 0.0 || y < 0.0 {
            return;
        }
        let (c, r) = (x as usize / dx, y as usize / dy);
        if c >= self.cols || r >= self.rows {
            return;
        }
        let cell = &mut self.cells[r * self.cols + c];
        // The selection and the action's target stay visible over other nodes.
        let keep = matches!(
            cell,
            Cell::Node { selected: true, .. } | Cell::Node { target: true, .. }
        );
        if !keep {
            *cell = node;
        }
        self.visible_nodes += 1;
    }

    /// The cell at (column, row).
    pub fn cell(&self, c: usize, r: usize) -> Cell {
        self.cells
            .get(r * self.cols + c)
            .copied()
            .unwrap_or_default()
    }
}

/// Calls `f` for each dot of the segment p-q that lies in `[0, size)`, after clipping
/// the segment to that box (so zoomed-in lines cost only their visible part).
fn for_each_dot(p: (f32, f32), q: (f32, f32), size: (f32, f32), mut f: impl FnMut(usize, usize)) {
    let Some((p, q)) = clip(p, q, size) else {
        return;
    };
    let steps = (q.0 - p.0).abs().max((q.1 - p.1).abs()).ceil().max(1.0) as usize;
    for k in 0..=steps {
        let s = k as f32 / steps as f32;
        let (x, y) = (p.0 + (q.0 - p.0) * s, p.1 + (q.1 - p.1) * s);
        if x >= 0.0 && y >= 0.0 && x < size.0 && y < size.1 {
            f(x as usize, y as usize);
        }
    }
}

/// Liang-Barsky clipping of p-q to the box `[0, size]`.
fn clip(p: (f32, f32), q: (f32, f32), size: (f32, f32)) -> Option<((f32, f32), (f32, f32))> {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (pk, qk) in [
        (-dx, p.0),
        (dx, size.0 - p.0),
        (-dy, p.1),
        (dy, size.1 - p.1),
    ] {
        if pk == 0.0 {
            if qk < 0.0 {
                return None;
            }
            continue;
        }
        let r = qk / pk;
        if pk < 0.0 {
            t0 = t0.max(r);
        } else {
            t1 = t1.min(r);
        }
        if t0 > t1 {
            return None;
        }
    }
    Some((
        (p.0 + t0 * dx, p.1 + t0 * dy),
        (p.0 + t1 * dx, p.1 + t1 * dy),
    ))
}

/// The braille character with dot bits `bits`.
pub fn braille_char(bits: u8) -> char {
    char::from_u32(0x2800 + u32::from(bits)).unwrap_or(' ')
}
