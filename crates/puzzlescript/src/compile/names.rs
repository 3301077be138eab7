//! Name resolution: object ids (assigned in collision-layer order, as the
//! reference does), the synonym, aggregate and property dictionaries, the
//! masks every name stands for, and the glyphs levels are drawn with.

use std::collections::HashMap;

use crate::bits;
use crate::parser::Parsed;

/// Every name of a game resolved to objects and masks.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// Object name by id.
    pub id_dict: Vec<String>,
    /// Id and layer of each object that sits in a layer.
    pub objects: HashMap<String, (usize, usize)>,
    /// Number of collision layers.
    pub layer_count: usize,
    /// Words of an object set.
    pub obj_words: usize,
    /// Synonyms resolved to an object.
    pub synonyms: HashMap<String, String>,
    /// Aggregates resolved to their objects, in declaration order.
    pub aggregates: Vec<(String, Vec<String>)>,
    /// Properties resolved to their objects, in declaration order.
    pub properties: Vec<(String, Vec<String>)>,
    /// Properties whose objects all share one layer, with that layer.
    pub single_layer: HashMap<String, usize>,
    /// The objects each object, synonym or property name may stand for.
    pub object_masks: HashMap<String, Vec<u64>>,
    /// The objects each aggregate requires together.
    pub aggregate_masks: HashMap<String, Vec<u64>>,
    /// The objects of each layer.
    pub layer_masks: Vec<Vec<u64>>,
    /// The objects a level character stands for.
    pub glyphs: HashMap<char, Vec<u64>>,
    /// Every name a rule may use.
    pub all_names: Vec<String>,
    /// The background object's id and layer.
    pub background: (usize, usize),
    /// The layer of each object, by id.
    pub id_layer: Vec<usize>,
    /// The objects that are the player.
    pub player_mask: Vec<u64>,
    /// True when the player is an aggregate: a player cell holds all of its objects.
    pub player_aggregate: bool,
}

impl Names {
    /// The property called `name`.
    pub fn property(&self, name: &str) -> Option<&Vec<String>> {
        self.properties
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// The aggregate called `name`.
    pub fn aggregate(&self, name: &str) -> Option<&Vec<String>> {
        self.aggregates
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// The layer of an object.
    pub fn layer_of(&self, name: &str) -> Option<usize> {
        self.objects.get(name).map(|&(_, l)| l)
    }

    fn single(&self, id: usize) -> Vec<u64> {
        let mut m = vec![0; self.obj_words];
        bits::set(&mut m, id);
        m
    }
}

/// Resolves the names of `parsed`; errors are messages with line numbers.
pub fn resolve(parsed: &Parsed) -> Result<Names, String> {
    let mut names = Names {
        layer_count: parsed.layers.len(),
        ..Names::default()
    };
    assign_ids(parsed, &mut names)?;
    resolve_dicts(parsed, &mut names);
    names.obj_words = bits::words_for(names.id_dict.len());
    names.id_layer = names
        .id_dict
        .iter()
        .map(|n| names.objects.get(n).map_or(0, |&(_, l)| l))
        .collect();
    build_masks(parsed, &mut names)?;
    build_glyphs(parsed, &mut names)?;
    find_background(&mut names)?;
    names.player_mask = mask_of(&names, "player");
    names.player_aggregate = names.aggregate("player").is_some();
    if bits::is_zero(&names.player_mask) {
        return Err("there must be an object called PLAYER (or a legend entry for it)".into());
    }
    names.all_names = parsed.objects.iter().map(|o| o.name.clone()).collect();
    for d in parsed
        .synonyms
        .iter()
        .chain(&parsed.aggregates)
        .chain(&parsed.properties)
    {
        names.all_names.push(d.name.clone());
    }
    Ok(names)
}

fn assign_ids(parsed: &Parsed, names: &mut Names) -> Result<(), String> {
    for (layer, members) in parsed.layers.iter().enumerate() {
        for n in members {
            names
                .objects
                .insert(n.clone(), (names.id_dict.len(), layer));
            names.id_dict.push(n.clone());
        }
    }
    for o in &parsed.objects {
        if !names.objects.contains_key(&o.name) {
            return Err(format!(
                "line {}: object \"{}\" is not in any collision layer",
                o.line,
                o.name.to_uppercase()
            ));
        }
    }
    if names.id_dict.is_empty() {
        return Err("no objects in the collision layers".into());
    }
    Ok(())
}

/// Resolves synonyms, aggregates and properties to objects, keeping the
/// reference's order of members (nested properties' members go last).
fn resolve_dicts(parsed: &Parsed, names: &mut Names) {
    let mut aggregates: Vec<(String, Vec<String>)> = parsed
        .aggregates
        .iter()
        .map(|d| (d.name.clone(), d.values.clone()))
        .collect();
    let mut properties: Vec<(String, Vec<String>)> = parsed
        .properties
        .iter()
        .map(|d| (d.name.clone(), d.values.clone()))
        .collect();
    let mut synonyms: Vec<(String, String)> = Vec::new();
    for d in &parsed.synonyms {
        let (key, value) = (&d.name, &d.values[0]);
        if let Some(v) = find(&aggregates, value).cloned() {
            aggregates.push((key.clone(), v));
        } else if let Some(v) = find(&properties, value).cloned() {
            properties.push((key.clone(), v));
        } else if key != value {
            synonyms.push((key.clone(), value.clone()));
        }
    }
    let mut modified = true;
    let mut rounds = 0;
    while modified && rounds < 1000 {
        modified = false;
        rounds += 1;
        let mut i = 0;
        while i < synonyms.len() {
            let value = synonyms[i].1.clone();
            if let Some(v) = find(&properties, &value).cloned() {
                let (key, _) = synonyms.remove(i);
                properties.push((key, v));
                modified = true;
                continue;
            }
            if let Some(v) = find(&aggregates, &value).cloned() {
                let (key, _) = synonyms.remove(i);
                aggregates.push((key, v));
                modified = true;
                continue;
            }
            if let Some(next) = synonyms
                .iter()
                .find(|(k, _)| *k == value)
                .map(|(_, v)| v.clone())
            {
                if next != synonyms[i].1 {
                    synonyms[i].1 = next;
                    modified = true;
                }
            }
            i += 1;
        }
        modified |= flatten(&mut properties, &synonyms);
        modified |= flatten(&mut aggregates, &synonyms);
    }
    names.synonyms = synonyms.into_iter().collect();
    names.aggregates = aggregates;
    names.properties = properties;
    for (key, values) in &names.properties {
        let layers: Vec<Option<usize>> = values.iter().map(|v| names.layer_of(v)).collect();
        if let Some(Some(first)) = layers.first() {
            if layers.iter().all(|l| *l == Some(*first)) {
                names.single_layer.insert(key.clone(), *first);
            }
        }
    }
}

fn find<'a>(dict: &'a [(String, Vec<String>)], key: &str) -> Option<&'a Vec<String>> {
    dict.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// One pass replacing synonyms by objects and nested entries by their
/// members, as the reference's loop does (it skips the member after a splice).
fn flatten(dict: &mut [(String, Vec<String>)], synonyms: &[(String, String)]) -> bool {
    let mut modified = false;
    for k in 0..dict.len() {
        let mut i = 0;
        while i < dict[k].1.len() {
            let value = dict[k].1[i].clone();
            if let Some((_, s)) = synonyms.iter().find(|(n, _)| *n == value) {
                dict[k].1[i] = s.clone();
                modified = true;
            } else if let Some(pos) = dict.iter().position(|(n, _)| *n == value) {
                if pos != k {
                    let nested = dict[pos].1.clone();
                    let values = &mut dict[k].1;
                    values.remove(i);
                    for nv in nested {
                        if !values.contains(&nv) {
                            values.push(nv);
                        }
                    }
                    modified = true;
                }
            }
            i += 1;
        }
    }
    modified
}

fn build_masks(parsed: &Parsed, names: &mut Names) -> Result<(), String> {
    let mut masks: HashMap<String, Vec<u64>> = HashMap::new();
    for (n, &(id, _)) in &names.objects {
        masks.insert(n.clone(), names.single(id));
    }
    let mut entries: Vec<&crate::parser::LegendDef> =
        parsed.synonyms.iter().chain(&parsed.properties).collect();
    entries.sort_by_key(|d| d.line);
    for d in entries {
        let mut m = vec![0; names.obj_words];
        let mut any = false;
        for v in &d.values {
            if let Some(vm) = masks.get(v) {
                bits::or_into(&mut m, vm);
                any = true;
            }
        }
        if any {
            masks.insert(d.name.clone(), m);
        }
    }
    for (name, members) in &names.aggregates {
        let mut m = vec![0; names.obj_words];
        for v in members {
            if let Some(&(id, _)) = names.objects.get(v) {
                bits::set(&mut m, id);
            }
        }
        names.aggregate_masks.insert(name.clone(), m);
    }
    for (name, members) in &names.properties {
        // Properties defined through synonyms of properties get their mask here.
        if !masks.contains_key(name) {
            let mut m = vec![0; names.obj_words];
            for v in members {
                if let Some(&(id, _)) = names.objects.get(v) {
                    bits::set(&mut m, id);
                }
            }
            masks.insert(name.clone(), m);
        }
    }
    names.layer_masks = vec![vec![0; names.obj_words]; names.layer_count];
    for (id, n) in names.id_dict.iter().enumerate() {
        if let Some(&(_, layer)) = names.objects.get(n) {
            bits::set(&mut names.layer_masks[layer], id);
        }
    }
    names.object_masks = masks;
    Ok(())
}

fn build_glyphs(parsed: &Parsed, names: &mut Names) -> Result<(), String> {
    let mut glyphs: HashMap<String, Vec<u64>> = HashMap::new();
    for (n, &(id, _)) in &names.objects {
        glyphs.insert(n.clone(), names.single(id));
    }
    let mut added = true;
    while added {
        added = false;
        for d in &parsed.synonyms {
            if !glyphs.contains_key(&d.name) {
                if let Some(m) = glyphs.get(&d.values[0]).cloned() {
                    glyphs.insert(d.name.clone(), m);
                    added = true;
                }
            }
        }
        for d in &parsed.aggregates {
            if glyphs.contains_key(&d.name) || !d.values.iter().all(|v| glyphs.contains_key(v)) {
                continue;
            }
            let mut m = vec![0; names.obj_words];
            let mut used = vec![false; names.layer_count];
            for v in &d.values {
                let Some(&(id, layer)) = names.objects.get(v) else {
                    continue;
                };
                if used[layer] {
                    return Err(format!(
                        "line {}: aggregate \"{}\" holds two objects of one layer",
                        d.line,
                        d.name.to_uppercase()
                    ));
                }
                used[layer] = true;
                bits::set(&mut m, id);
            }
            glyphs.insert(d.name.clone(), m);
            added = true;
        }
    }
    for (name, m) in glyphs {
        let mut chars = name.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            names.glyphs.insert(c, m);
        }
    }
    Ok(())
}

fn find_background(names: &mut Names) -> Result<(), String> {
    let object = if names.objects.contains_key("background") {
        Some("background".to_string())
    } else if let Some(s) = names.synonyms.get("background") {
        Some(s.clone())
    } else {
        names
            .property("background")
            .and_then(|v| v.first().cloned())
    };
    let Some(&(id, layer)) = object.as_deref().and_then(|o| names.objects.get(o)) else {
        return Err(
            "there must be an object called BACKGROUND (or a property of that name)".into(),
        );
    };
    // Background objects on several layers are an error the reference
    // reports and then ignores, using the first one.
    names.background = (id, layer);
    Ok(())
}

/// Every object a name may stand for: object, synonym, property or aggregate.
pub fn mask_of(names: &Names, name: &str) -> Vec<u64> {
    let mut m = vec![0; names.obj_words];
    if let Some(om) = names.object_masks.get(name) {
        bits::or_into(&mut m, om);
    }
    if let Some(am) = names.aggregate_masks.get(name) {
        bits::or_into(&mut m, am);
    }
    m
}
