//! The static design of a PuzzleGraph puzzle: nodes, edges, their elements, the
//! dynamic booleans and the items' start nodes, and what each element permits.
//!
//! The permission tables follow `specs/puzzlegraph.md` and PuzzleGraph 1.1's own
//! element classes; every move needs the permission of the edge element and of the
//! destination node's element.

/// The element a node holds (`Default` when the file names none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// No element: everything allowed.
    Default,
    /// A goal: balls may not enter; the puzzle is solved when every player is on one.
    Goal,
    /// A trigger that latches on once a player or ball stands on it.
    Button,
    /// A trigger that is on exactly while a ball is on it.
    Plate,
    /// A trigger flipped by a player pressing or shooting it.
    Toggle,
    /// A receiver: players may enter only while it is on; balls never.
    Bridge,
}

/// The element an edge holds (`Default` when the file names none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// No element: walk and bring a ball both ways, vision, no pushing.
    Default,
    /// Walk both ways; bring or push a ball forward only; no vision.
    Step,
    /// Walk forward, backward only from a node holding a ball; balls forward; no vision.
    Wall,
    /// Walk, bring and push forward only; no vision.
    OneWay,
    /// Walk both ways; balls never pass; no vision.
    NoBall,
    /// Vision only.
    Vision,
    /// A receiver: walk, bring and vision while open (on); no pushing.
    Gate,
    /// A receiver: walk while safe (on), balls always, vision, no pushing.
    BlockableHazard,
    /// Balls may be pushed through (both ways); nobody walks; vision.
    BallTrack,
}

impl NodeKind {
    /// The element's name in save files, without the `Puzzle` prefix.
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Default => "DefaultNode",
            NodeKind::Goal => "Goal",
            NodeKind::Button => "Button",
            NodeKind::Plate => "Plate",
            NodeKind::Toggle => "Toggle",
            NodeKind::Bridge => "Bridge",
        }
    }

    /// True for elements that carry a boolean in the state.
    pub fn is_dynamic(self) -> bool {
        matches!(
            self,
            NodeKind::Button | NodeKind::Plate | NodeKind::Toggle | NodeKind::Bridge
        )
    }

    /// True for triggers, the elements whose changes drive receivers.
    pub fn is_trigger(self) -> bool {
        matches!(self, NodeKind::Button | NodeKind::Plate | NodeKind::Toggle)
    }

    /// May a player enter a node of this kind, given the element's value?
    pub fn can_walk(self, value: bool) -> bool {
        self != NodeKind::Bridge || value
    }

    /// May a ball be brought or pushed onto a node of this kind?
    pub fn can_take_ball(self) -> bool {
        !matches!(self, NodeKind::Goal | NodeKind::Bridge)
    }
}

impl EdgeKind {
    /// The element's name in save files, without the `Puzzle` prefix.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Default => "DefaultEdge",
            EdgeKind::Step => "Step",
            EdgeKind::Wall => "Wall",
            EdgeKind::OneWay => "OneWay",
            EdgeKind::NoBall => "NoBall",
            EdgeKind::Vision => "Vision",
            EdgeKind::Gate => "Gate",
            EdgeKind::BlockableHazard => "BlockableHazard",
            EdgeKind::BallTrack => "BallTrack",
        }
    }

    /// True for elements that carry a boolean in the state.
    pub fn is_dynamic(self) -> bool {
        matches!(self, EdgeKind::Gate | EdgeKind::BlockableHazard)
    }

    /// May a player walk across, in direction `forward`, with the element's value,
    /// and knowing whether a ball lies at the node the player leaves (a Wall can be
    /// climbed backward from a ball)?
    pub fn can_walk(self, forward: bool, value: bool, ball_at_start: bool) -> bool {
        match self {
            EdgeKind::Default | EdgeKind::Step | EdgeKind::NoBall => true,
            EdgeKind::Wall => forward || ball_at_start,
            EdgeKind::OneWay => forward,
            EdgeKind::Vision | EdgeKind::BallTrack => false,
            // PuzzleGraph's hazard lets a player pass while its value is on ("Safe").
            EdgeKind::Gate | EdgeKind::BlockableHazard => value,
        }
    }

    /// May a player bring a ball along across this edge?
    pub fn can_take_ball(self, forward: bool, value: bool) -> bool {
        match self {
            EdgeKind::Default | EdgeKind::BlockableHazard => true,
            EdgeKind::Step | EdgeKind::Wall | EdgeKind::OneWay => forward,
            EdgeKind::NoBall | EdgeKind::Vision | EdgeKind::BallTrack => false,
            EdgeKind::Gate => value,
        }
    }

    /// May a player push a ball across this edge (the player stays)?
    pub fn can_push_ball(self, forward: bool) -> bool {
        match self {
            EdgeKind::Step | EdgeKind::Wall | EdgeKind::OneWay => forward,
            EdgeKind::BallTrack => true,
            _ => false,
        }
    }

    /// May a player see across this edge (to shoot a toggle)?
    pub fn can_see(self, value: bool) -> bool {
        match self {
            EdgeKind::Default
            | EdgeKind::Vision
            | EdgeKind::BlockableHazard
            | EdgeKind::BallTrack => true,
            EdgeKind::Step | EdgeKind::Wall | EdgeKind::OneWay | EdgeKind::NoBall => false,
            EdgeKind::Gate => value,
        }
    }

    /// Could some state allow walking in this direction (for the fixed label set)?
    pub fn may_walk(self, forward: bool) -> bool {
        self.can_walk(forward, true, true)
    }

    /// Could some state allow bringing a ball in this direction?
    pub fn may_take_ball(self, forward: bool) -> bool {
        self.can_take_ball(forward, true)
    }

    /// Could some state allow vision across?
    pub fn may_see(self) -> bool {
        self.can_see(true)
    }
}

/// A location of the puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its name in the file (edges are named after their nodes).
    pub name: String,
    /// Drawing position from `pos:x,y`.
    pub pos: (i32, i32),
    /// Its element.
    pub kind: NodeKind,
    /// Index of its boolean among the dynamic elements, if it has one.
    pub bit: Option<usize>,
    /// Dynamic-element indices this node's trigger drives, in `notify:` order
    /// (a receiver listed twice is driven twice, as in PuzzleGraph).
    pub receivers: Vec<usize>,
}

/// A connection between two nodes; `a` to `b` is forward.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// First node (index into [`Puzzle::nodes`]).
    pub a: usize,
    /// Second node.
    pub b: usize,
    /// Its element.
    pub kind: EdgeKind,
    /// Index of its boolean among the dynamic elements, if it has one.
    pub bit: Option<usize>,
}

/// Where a dynamic element lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// On a node (index).
    Node(usize),
    /// On an edge (index).
    Edge(usize),
}

/// A boolean element of the state: its place, its initial value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dynamic {
    /// The node or edge holding it.
    pub container: Container,
    /// Value in the initial state.
    pub initial: bool,
}

/// A whole puzzle design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// Line 1 of the file.
    pub title: String,
    /// Nodes in file order (the order triggers are updated in).
    pub nodes: Vec<Node>,
    /// Edges in file order.
    pub edges: Vec<Edge>,
    /// Dynamic elements in file order: bit `i` of a state is `dynamic[i]`.
    pub dynamic: Vec<Dynamic>,
    /// Static elements (Goal and the edge kinds without a value) in file order, as
    /// containers, so that the canonical text writes them where PuzzleGraph does.
    pub statics: Vec<Container>,
    /// Start node of every player.
    pub players: Vec<usize>,
    /// Start node of every ball.
    pub balls: Vec<usize>,
}

impl Puzzle {
    /// The name of edge `e`: `A-B`.
    pub fn edge_name(&self, e: usize) -> String {
        match self.edges.get(e) {
            Some(edge) => format!("{}-{}", self.node_name(edge.a), self.node_name(edge.b)),
            None => String::from("?"),
        }
    }

    /// The name of node `n`.
    pub fn node_name(&self, n: usize) -> &str {
        self.nodes.get(n).map_or("?", |node| node.name.as_str())
    }

    /// The name of a container as PuzzleGraph writes it.
    pub fn container_name(&self, c: Container) -> String {
        match c {
            Container::Node(n) => self.node_name(n).to_string(),
            Container::Edge(e) => self.edge_name(e),
        }
    }

    /// The element name of a container, without the `Puzzle` prefix.
    pub fn element_name(&self, c: Container) -> &'static str {
        match c {
            Container::Node(n) => self.nodes.get(n).map_or("?", |x| x.kind.name()),
            Container::Edge(e) => self.edges.get(e).map_or("?", |x| x.kind.name()),
        }
    }
}
