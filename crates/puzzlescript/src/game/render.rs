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
    let glyphs = sorted_glyphs(g);
    let mut out = String::new();
    for y in 0..height {
        for x in 0..width {
            out.push(cell_glyph(g, &glyphs, cell_at(g, objects, x * height + y)).0);
        }
        out.push('\n');
    }
    out
}

/// What each character [`grid`] draws for `objects` stands for, in order of
/// first appearance (row by row): the objects of its legend entry, or the one
/// object it names, as `Crate + Target`.
pub fn legend(g: &Compiled, width: usize, height: usize, objects: &[u64]) -> Vec<(char, String)> {
    let glyphs = sorted_glyphs(g);
    let mut out: Vec<(char, String)> = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let (c, mask) = cell_glyph(g, &glyphs, cell_at(g, objects, x * height + y));
            if !out.iter().any(|(seen, _)| *seen == c) {
                out.push((c, describe(g, &mask)));
            }
        }
    }
    out
}

fn sorted_glyphs(g: &Compiled) -> Vec<(char, &Vec<u64>)> {
    let mut glyphs: Vec<(char, &Vec<u64>)> = g.names.glyphs.iter().map(|(c, m)| (*c, m)).collect();
    glyphs.sort_by_key(|(c, _)| *c);
    glyphs
}

fn cell_at<'a>(g: &Compiled, objects: &'a [u64], i: usize) -> &'a [u64] {
    let so = g.obj_words;
    objects.get(i * so..i * so + so).unwrap_or(&[])
}

/// The character drawn for one cell and the objects that character stands for.
fn cell_glyph(g: &Compiled, glyphs: &[(char, &Vec<u64>)], cell: &[u64]) -> (char, Vec<u64>) {
    let bg_id = g.names.background.0;
    let mut without_bg = cell.to_vec();
    if let Some(w) = without_bg.get_mut(bg_id / 64) {
        *w &= !(1 << (bg_id % 64));
    }
    let exact = glyphs
        .iter()
        .find(|(_, m)| m.as_slice() == cell || m.as_slice() == without_bg.as_slice());
    match exact {
        Some((c, m)) => (*c, m.to_vec()),
        None => topmost(g, &without_bg, glyphs),
    }
}

/// The names of the objects of `mask` joined by ` + `, leaving out the
/// background unless it is all there is.
fn describe(g: &Compiled, mask: &[u64]) -> String {
    let bg_id = g.names.background.0;
    let names = &g.names.id_dict;
    let ids: Vec<usize> = bits::ones(mask).collect();
    let shown: Vec<&str> = ids
        .iter()
        .filter(|&&id| id != bg_id || ids.len() == 1)
        .filter_map(|&id| names.get(id).map(String::as_str))
        .collect();
    if shown.is_empty() {
        names.get(bg_id).cloned().unwrap_or_default()
    } else {
        shown.join(" + ")
    }
}

fn topmost(g: &Compiled, cell: &[u64], glyphs: &[(char, &Vec<u64>)]) -> (char, Vec<u64>) {
    let Some(id) = bits::ones(cell).last() else {
        return glyphs
            .iter()
            .find(|(_, m)| {
                m.iter().zip(cell).all(|(a, b)| a & !b == 0) && bits::get(m, g.names.background.0)
            })
            .map_or(('.', Vec::new()), |(c, m)| (*c, m.to_vec()));
    };
    let mut single = vec![0u64; g.obj_words];
    bits::set(&mut single, id);
    let c = glyphs
        .iter()
        .find(|(_, m)| m.as_slice() == single.as_slice())
        .map(|(c, _)| *c)
        .or_else(|| g.names.id_dict[id].chars().next())
        .unwrap_or('?');
    (c, single)
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
