//! Drawing a state as the level's grid with legend characters, and the
//! colour of each cell.

use model::Rgb;

use super::palette;
use crate::bits;
use crate::compile::Compiled;

/// The grid, one text row per level row: each cell is the legend character
/// standing for exactly its objects (with or without the background), else
/// the character of its topmost object, else the first letter of its name.
pub fn grid(g: &Compiled, width: usize, height: usize, objects: &[u64]) -> String {
    let so = g.obj_words;
    let (bg_id, _) = g.names.background;
    let mut glyphs: Vec<(char, &Vec<u64>)> = g.names.glyphs.iter().map(|(c, m)| (*c, m)).collect();
    glyphs.sort_by_key(|(c, _)| *c);
    let mut out = String::new();
    for y in 0..height {
        for x in 0..width {
            let i = x * height + y;
            let cell = objects.get(i * so..i * so + so).unwrap_or(&[]);
            let mut without_bg = cell.to_vec();
            if let Some(w) = without_bg.get_mut(bg_id / 64) {
                *w &= !(1 << (bg_id % 64));
            }
            let exact = glyphs
                .iter()
                .find(|(_, m)| m.as_slice() == cell || m.as_slice() == without_bg.as_slice());
            let c = match exact {
                Some((c, _)) => *c,
                None => topmost(g, &without_bg, &glyphs),
            };
            out.push(c);
        }
        out.push('\n');
    }
    out
}

fn topmost(g: &Compiled, cell: &[u64], glyphs: &[(char, &Vec<u64>)]) -> char {
    let Some(id) = bits::ones(cell).last() else {
        return glyphs
            .iter()
            .find(|(_, m)| {
                m.iter().zip(cell).all(|(a, b)| a & !b == 0) && bits::get(m, g.names.background.0)
            })
            .map_or('.', |(c, _)| *c);
    };
    let mut single = vec![0u64; g.obj_words];
    bits::set(&mut single, id);
    glyphs
        .iter()
        .find(|(_, m)| m.as_slice() == single.as_slice())
        .map(|(c, _)| *c)
        .or_else(|| g.names.id_dict[id].chars().next())
        .unwrap_or('?')
}

/// The colour of each cell of [`grid`], row by row: the first colour of the
/// cell's top visible object (the highest one whose first colour is not
/// `transparent`), `None` for an empty cell.
pub fn colors(g: &Compiled, width: usize, height: usize, objects: &[u64]) -> Vec<Vec<Option<Rgb>>> {
    let so = g.obj_words;
    let chosen = g.flags.color_palette.as_deref();
    let by_id: Vec<Option<Rgb>> = g
        .colors
        .iter()
        .map(|c| palette::rgb_in(chosen, c))
        .collect();
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| {
                    let i = x * height + y;
                    let cell = objects.get(i * so..i * so + so).unwrap_or(&[]);
                    let ids: Vec<usize> = bits::ones(cell).collect();
                    ids.iter()
                        .rev()
                        .find_map(|&id| by_id.get(id).copied().flatten())
                })
                .collect()
        })
        .collect()
}
