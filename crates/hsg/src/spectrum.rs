//! The failure spectrum (paper section IV-B): loss distance of every hyperstate, the
//! ideal path from the root and its loss-distance profile.
//!
//! - *Loss distance* `ld(h)`: fewest critical actions from `h` to a hyperstate tagged
//!   `fail` or `implicitly_failed` (0 for those themselves); none when no loss is
//!   reachable.
//! - *Ideal path*: from the root, repeatedly move to the successor with the highest loss
//!   distance (none counts as infinite); ties go to a winnable successor, then to the
//!   one with the fewest critical actions to a win, then to the lowest hyperstate
//!   number, so the path is deterministic. It stops at a leaf.
//! - *Profile*: the loss distances along the ideal path.
//! - *Breadth*: the largest finite loss distance on the ideal path (how many critical
//!   actions the best line of play can keep between itself and a loss); none when no
//!   loss is reachable from any hyperstate of the path. The smallest finite one is
//!   reported as *narrowest*.
//!
//! Time `O(H + HSG edges)`; one `u32` per hyperstate.

use crate::condense::Condensation;
use crate::paths::{distance_to, UNREACHED};
use crate::tags::Tagging;
use std::cmp::Reverse;

/// The failure spectrum of a condensed graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureSpectrum {
    /// Loss distance of every hyperstate, [`UNREACHED`] when no loss is reachable.
    pub loss_distance: Vec<u32>,
    /// Hyperstates of the ideal path, from the root to a leaf.
    pub ideal_path: Vec<u64>,
    /// Loss distance along the ideal path (`None` = no loss reachable).
    pub profile: Vec<Option<u32>>,
    /// Largest finite loss distance on the ideal path.
    pub breadth: Option<u32>,
    /// Smallest finite loss distance on the ideal path.
    pub narrowest: Option<u32>,
}

fn finite(d: u32) -> Option<u32> {
    (d != UNREACHED).then_some(d)
}

/// Computes loss distances and the ideal path from `root`, given each hyperstate's
/// fewest critical actions to a win (`win_distance`, [`UNREACHED`] if none).
pub fn failure_spectrum(
    c: &Condensation,
    tagging: &Tagging,
    win_distance: &[u32],
    root: u64,
) -> FailureSpectrum {
    let loss_distance = distance_to(c, |h| tagging.tag(h).is_lost());
    let ideal_path = ideal_path(c, tagging, &loss_distance, win_distance, root);
    let profile: Vec<Option<u32>> = ideal_path
        .iter()
        .map(|&h| finite(loss_distance[h as usize]))
        .collect();
    let breadth = profile.iter().flatten().max().copied();
    let narrowest = profile.iter().flatten().min().copied();
    FailureSpectrum {
        loss_distance,
        ideal_path,
        profile,
        breadth,
        narrowest,
    }
}

fn ideal_path(
    c: &Condensation,
    tagging: &Tagging,
    loss_distance: &[u32],
    win_distance: &[u32],
    root: u64,
) -> Vec<u64> {
    if root >= c.hyperstate_count() {
        return Vec::new();
    }
    // UNREACHED is u32::MAX, so "no loss reachable" already sorts as the highest ld.
    let key = |s: u64| {
        let i = s as usize;
        (
            loss_distance[i],
            tagging.tag(s).is_winnable(),
            Reverse(win_distance[i]),
            Reverse(s),
        )
    };
    let mut path = vec![root];
    let mut here = root;
    loop {
        let mut best: Option<u64> = None;
        c.edges.for_each_successor(here, |s| {
            if best.is_none_or(|b| key(s) > key(b)) {
                best = Some(s);
            }
        });
        match best {
            Some(next) => {
                path.push(next);
                here = next;
            }
            None => return path,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::condense::condense;
    use crate::mem::MemGraph;
    use crate::tags::tag_hyperstates;

    const WIN: u16 = 0;

    #[test]
    fn ideal_path_keeps_away_from_loss() {
        // 0 -> 1 (fail leaf) ; 0 -> 2 -> 3 -> 4 (win), 3 -> 5 (fail), 2 -> 6 -> 4.
        let edges = [
            (0, 0, 1),
            (0, 1, 2),
            (2, 0, 3),
            (3, 0, 4),
            (3, 1, 5),
            (2, 1, 6),
            (6, 0, 4),
        ];
        let g = MemGraph::new(7, &edges, &[(4, WIN)]).unwrap();
        let c = condense(&g);
        let t = tag_hyperstates(&g, &c, WIN);
        let wd = distance_to(&c, |h| t.contains_target(h));
        let root = c.hyperstate_of(0);
        let fs = failure_spectrum(&c, &t, &wd, root);
        let hs = |s: u64| c.hyperstate_of(s);
        assert_eq!(fs.loss_distance[hs(0) as usize], 1);
        assert_eq!(fs.loss_distance[hs(3) as usize], 1);
        assert_eq!(fs.loss_distance[hs(2) as usize], 2);
        assert_eq!(fs.loss_distance[hs(6) as usize], UNREACHED);
        assert_eq!(fs.ideal_path, vec![hs(0), hs(2), hs(6), hs(4)]);
        assert_eq!(fs.profile, vec![Some(1), Some(2), None, None]);
        assert_eq!(fs.breadth, Some(2));
        assert_eq!(fs.narrowest, Some(1));
    }

    #[test]
    fn ties_prefer_winnable_then_shorter_wins() {
        // 0 -> 1 (win), 0 -> 2 -> 3 (win), 0 -> 4 (stuck non-terminal: fail).
        let edges = [(0, 0, 4), (0, 1, 2), (0, 2, 1), (2, 0, 3)];
        let g = MemGraph::new(5, &edges, &[(1, WIN), (3, WIN)]).unwrap();
        let c = condense(&g);
        let t = tag_hyperstates(&g, &c, WIN);
        let wd = distance_to(&c, |h| t.contains_target(h));
        let fs = failure_spectrum(&c, &t, &wd, c.hyperstate_of(0));
        assert_eq!(fs.ideal_path, vec![c.hyperstate_of(0), c.hyperstate_of(1)]);
        assert_eq!(fs.profile, vec![Some(1), None]);
    }
}
