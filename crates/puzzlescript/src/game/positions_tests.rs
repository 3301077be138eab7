//! Which objects the analysis of [`super::positions`] finds conserved.

use super::positions::conserved_objects;
use crate::bits;

/// A pushing game with `rules` added to its one push rule.
fn conserved(rules: &str) -> Vec<&'static str> {
    let text = format!(
        "title t\n\nOBJECTS\n\nBackground\nblack\n\nWall\nbrown\n\nPlayer\nwhite\n\nCrate\norange\n\n\
         LEGEND\n\n. = Background\n# = Wall\nP = Player\n* = Crate\n\nSOUNDS\n\n\
         COLLISIONLAYERS\n\nBackground\nPlayer, Wall, Crate\n\n\
         RULES\n\n[ > Player | Crate ] -> [ > Player | > Crate ]\n{rules}\n\n\
         WINCONDITIONS\n\nLEVELS\n\n#####\n#P*.#\n#####\n"
    );
    let g = crate::compile("t", &text).unwrap();
    let kept = conserved_objects(&g);
    ["player", "crate", "wall"]
        .into_iter()
        .filter(|name| {
            g.names
                .objects
                .get(*name)
                .is_some_and(|&(id, _)| bits::get(&kept, id))
        })
        .collect()
}

#[test]
fn moved_objects_are_conserved_and_written_ones_are_not() {
    assert_eq!(conserved(""), vec!["player", "crate", "wall"]);
    // Removing, creating or replacing on the layer breaks the counts.
    assert_eq!(
        conserved("[ action Player | Crate ] -> [ Player | ]"),
        vec!["player", "wall"]
    );
    // A crate written where the pattern does not rule out a player or a
    // wall would replace it.
    assert!(conserved("[ action Player | no Crate ] -> [ Player | Crate ]").is_empty());
    assert_eq!(
        conserved("[ Crate | Wall ] -> [ Crate | Crate ]"),
        vec!["player"]
    );
    assert_eq!(conserved("late [ Player ] -> [ Crate ]"), vec!["wall"]);
    // Rewriting an object onto itself, or its movement, keeps it.
    assert_eq!(
        conserved("[ Crate | Crate ] -> [ Crate | > Crate ]"),
        vec!["player", "crate", "wall"]
    );
}
