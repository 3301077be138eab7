//! Name resolution: object ids (assigned in collision-layer order, as the
//! reference does), the synonym, aggregate and property dictionaries, the
//! masks every name stands for, and the glyphs levels are drawn with.

use std::collections::HashMap;

use super::fault::Fault;
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
    /// The movement field of each layer (only the layers that can move
    /// have one): every layer its own until the rules are read.
    pub move_slots: super::move_slots::MoveSlots,
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
pub fn resolve(parsed: &Parsed) -> Result<Names, Fault> {
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
    names.move_slots = super::move_slots::MoveSlots::identity(names.layer_count);
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

fn assign_ids(parsed: &Parsed, names: &mut Names) -> Result<(), Fault> {
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
            return Err(Fault::at(
                o.line,
                format!(
                    "object \"{}\" is not in any collision layer",
                    o.name.to_uppercase()
                ),
            ));
        }
    }
    if names.id_dict.is_empty() {
        return Err("no objects in the collision layers".into());
    }
    Ok(())
}

/// A legend dictionary (aggregates or properties) in declaration order, with
/// the position of each name's first entry.
#[derive(Default)]
struct Dict {
    entries: Vec<(String, Vec<String>)>,
    first: HashMap<String, usize>,
}

impl Dict {
    fn push(&mut self, name: String, values: Vec<String>) {
        self.first.entry(name.clone()).or_insert(self.entries.len());
        self.entries.push((name, values));
    }

    fn get(&self, name: &str) -> Option<&Vec<String>> {
        self.first.get(name).map(|&i| &self.entries[i].1)
    }
}

/// Resolves synonyms, aggregates and properties to objects, keeping the
/// reference's order of members (nested properties' members go last).
/// Every name is looked up in constant time, so a pass is linear in the
/// legend's size (names are defined before use, so passes are few).
fn resolve_dicts(parsed: &Parsed, names: &mut Names) {
    let mut aggregates = Dict::default();
    for d in &parsed.aggregates {
        aggregates.push(d.name.clone(), d.values.clone());
    }
    let mut properties = Dict::default();
    for d in &parsed.properties {
        properties.push(d.name.clone(), d.values.clone());
    }
    let mut synonyms: Vec<(String, String)> = Vec::new();
    for d in &parsed.synonyms {
        let (key, value) = (&d.name, &d.values[0]);
        if let Some(v) = aggregates.get(value).cloned() {
            aggregates.push(key.clone(), v);
        } else if let Some(v) = properties.get(value).cloned() {
            properties.push(key.clone(), v);
        } else if key != value {
            synonyms.push((key.clone(), value.clone()));
        }
    }
    let mut modified = true;
    let mut rounds = 0;
    while modified && rounds < 1000 {
        modified = false;
        rounds += 1;
        let mut targets: HashMap<String, String> = HashMap::new();
        for (k, v) in &synonyms {
            targets.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let mut kept = Vec::with_capacity(synonyms.len());
        for (key, value) in std::mem::take(&mut synonyms) {
            if let Some(v) = properties.get(&value).cloned() {
                properties.push(key, v);
                modified = true;
            } else if let Some(v) = aggregates.get(&value).cloned() {
                aggregates.push(key, v);
                modified = true;
            } else {
                let next = targets.get(&value).cloned();
                match next {
                    Some(next) if next != value => {
                        modified = true;
                        // Later synonyms see this one's new value, as in
                        // the reference's loop, which updates in place.
                        if targets.get(&key) == Some(&value) {
                            targets.insert(key.clone(), next.clone());
                        }
                        kept.push((key, next));
                    }
                    _ => kept.push((key, value)),
                }
            }
        }
        synonyms = kept;
        let targets: HashMap<&str, &str> = synonyms
            .iter()
            .rev()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        modified |= flatten(&mut properties, &targets);
        modified |= flatten(&mut aggregates, &targets);
    }
    names.synonyms = synonyms.into_iter().collect();
    names.aggregates = aggregates.entries;
    names.properties = properties.entries;
    for (key, values) in &names.properties {
        let layers: Vec<Option<usize>> = values.iter().map(|v| names.layer_of(v)).collect();
        if let Some(Some(first)) = layers.first() {
            if layers.iter().all(|l| *l == Some(*first)) {
                names.single_layer.insert(key.clone(), *first);
            }
        }
    }
}

/// One pass replacing synonyms by objects and nested entries by their
/// members, as the reference's loop does (it skips the member after a splice).
fn flatten(dict: &mut Dict, synonyms: &HashMap<&str, &str>) -> bool {
    let mut modified = false;
    for k in 0..dict.entries.len() {
        let mut i = 0;
        // How often each name is among the members of entry `k`, for a
        // constant-time `contains`.
        let mut members: HashMap<String, usize> = HashMap::new();
        for v in &dict.entries[k].1 {
            *members.entry(v.clone()).or_default() += 1;
        }
        while i < dict.entries[k].1.len() {
            let value = dict.entries[k].1[i].clone();
            if let Some(s) = synonyms.get(value.as_str()) {
                dict.entries[k].1[i] = s.to_string();
                take_one(&mut members, &value);
                *members.entry(s.to_string()).or_default() += 1;
                modified = true;
            } else if let Some(&pos) = dict.first.get(&value) {
                if pos != k {
                    let nested = dict.entries[pos].1.clone();
                    let values = &mut dict.entries[k].1;
                    values.remove(i);
                    take_one(&mut members, &value);
                    for nv in nested {
                        let count = members.entry(nv.clone()).or_default();
                        if *count == 0 {
                            *count = 1;
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

/// One occurrence of `name` fewer in a count of members.
fn take_one(members: &mut HashMap<String, usize>, name: &str) {
    if let Some(c) = members.get_mut(name) {
        *c = c.saturating_sub(1);
    }
}

fn build_masks(parsed: &Parsed, names: &mut Names) -> Result<(), Fault> {
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

fn build_glyphs(parsed: &Parsed, names: &mut Names) -> Result<(), Fault> {
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
                    return Err(Fault::at(
                        d.line,
                        format!(
                            "aggregate \"{}\" holds two objects of one layer",
                            d.name.to_uppercase()
                        ),
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

fn find_background(names: &mut Names) -> Result<(), Fault> {
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
